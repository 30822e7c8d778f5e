/**
 * Deterministic generator of the two V4 create-request examples:
 *   spec/examples/custom-launch-create-request.v4.json                 (profile 4.1.0, funded)
 *   spec/examples/custom-launch-create-request.v4--profile-4.0.0.json  (frozen profile 4.0.0)
 *
 * Every hash is computed for real from the data below: keccak-256 runtime code hashes of the graph targets,
 * SHA-256 of the source files and of the embedded PNG, and the sha256: digests over RFC 8785 canonical JSON
 * (chainDeploymentDescriptorDigest, receiptLogsDigest, evidence digests, graphBundleDigest,
 * sourceBundleManifestDigest, projectMetadataHash, fundingPlanHash, launchIntentHash).
 *
 * The chain-deployment constants the reference omits (deployer and router addresses, selector, calldata hash,
 * provider ids, root runtime code hashes, foundation source commitment) are illustrative values derived from fixed
 * labels; a real deployment configuration supplies its own. Nothing here reads the clock or a random source.
 *
 * Run: npx tsx scripts/examples/build-v4-examples.ts
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { keccak256 } from 'viem';
import { canonicalJson, sha256Digest } from '../../src/domain/canonical-json.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const exampleDir = new URL('../../spec/examples/', import.meta.url);

/** sha256: digest over the canonical JSON of a value. */
function digestOf(value: Json): string {
  return sha256Digest(canonicalJson(value));
}

/** The value without the named top-level fields (for self-excluding digests). */
function without(value: JsonObject, ...fields: string[]): JsonObject {
  const copy: JsonObject = { ...value };
  for (const field of fields) delete copy[field];
  return copy;
}

/** Bare SHA-256 hex of a label, the seed of every illustrative constant. */
function seed(label: string): string {
  return createHash('sha256').update(`custom-launch-api example: ${label}`, 'utf8').digest('hex');
}

/** Illustrative 32-byte value (0x + 64 lowercase hex) derived from a label. */
function hex32(label: string): string {
  return `0x${seed(label)}`;
}

/** Illustrative address derived from a label. */
function address(label: string): string {
  return `0x${seed(label).slice(0, 40)}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Fixed inputs

/** anvil / hardhat test account 0: the launch controller of the examples. */
const launchWallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
/** Uniswap v4 PoolManager reported for chain 4663 (per-chain configuration, see CHAIN-NOTES.md). */
const canonicalPoolManager = '0x8366a39CC670B4001A1121B8F6A443A643e40951';
/** The canonical Permit2 address. */
const permit2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
/** keccak-256 of empty code: the runtime code hash of an address before deployment. */
const emptyCodeHash = keccak256('0x');

/** A real 1x1 RGBA PNG (70 bytes). */
const imagePngBase64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const imageBytes = Buffer.from(imagePngBase64, 'base64');
if (imageBytes.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') {
  throw new Error('embedded image is not a PNG');
}

/** Source files of the graph (their bytes are hashed into the source bundle manifest). */
const sources: Record<string, string> = {
  'src/ExampleHook.sol':
    '// SPDX-License-Identifier: Apache-2.0\npragma solidity 0.8.26;\n\ncontract ExampleHook {\n    address public immutable poolManager;\n\n    constructor(address manager) {\n        poolManager = manager;\n    }\n}\n',
  'src/ExampleInitializer.sol':
    '// SPDX-License-Identifier: Apache-2.0\npragma solidity 0.8.26;\n\ncontract ExampleInitializer {\n    event Initialized(address token, address hook);\n}\n',
  'src/ExampleToken.sol':
    '// SPDX-License-Identifier: Apache-2.0\npragma solidity 0.8.26;\n\ncontract ExampleToken {\n    string public constant name = "Example Launch Token";\n    string public constant symbol = "EXLT";\n}\n',
};

/** Graph targets: tiny runtime codes (PUSH1 0x80 PUSH1 0x40 MSTORE, a target-specific PUSH4, PUSH0 DUP1 REVERT). */
const graphTargets = [
  { targetId: 'token', role: 'token', tag: '01010101', source: 'src/ExampleToken.sol', contractName: 'ExampleToken' },
  { targetId: 'hook', role: 'hook', tag: '02020202', source: 'src/ExampleHook.sol', contractName: 'ExampleHook' },
  {
    targetId: 'initializer',
    role: 'initializer',
    tag: '03030303',
    source: 'src/ExampleInitializer.sol',
    contractName: 'ExampleInitializer',
  },
] as const;

/** Hook permissions of the example hook: beforeSwap and afterSwap (bits 7 and 6, mask 0x00c0). */
const hookFlagNames = [
  'beforeInitialize',
  'afterInitialize',
  'beforeAddLiquidity',
  'afterAddLiquidity',
  'beforeRemoveLiquidity',
  'afterRemoveLiquidity',
  'beforeSwap',
  'afterSwap',
  'beforeDonate',
  'afterDonate',
  'beforeSwapReturnDelta',
  'afterSwapReturnDelta',
  'afterAddLiquidityReturnDelta',
  'afterRemoveLiquidityReturnDelta',
] as const;
const hookMask = 0x00c0;

function hookPermissions(mask: number): JsonObject {
  const permissions: JsonObject = { mask };
  hookFlagNames.forEach((name, index) => {
    const bit = 13 - index;
    permissions[name] = (mask & (1 << bit)) !== 0;
  });
  return permissions;
}

// ---------------------------------------------------------------------------------------------------------------
// chainDeployment

function buildChainDeployment(): JsonObject {
  const deploymentBlockNumber = '1024';
  const deploymentBlockHash = hex32('root deployment block');
  const preDeploymentBlockHash = hex32('block before root deployment');
  const transactionHash = hex32('root deployment transaction');
  const roots = {
    permitAuthority: { address: address('permitAuthority'), runtimeCodeHash: hex32('permitAuthority runtime') },
    graphFactory: { address: address('graphFactory'), runtimeCodeHash: hex32('graphFactory runtime') },
    platformLaunchStampRouter: {
      address: address('platformLaunchStampRouter'),
      runtimeCodeHash: hex32('platformLaunchStampRouter runtime'),
    },
  };
  const providers = [
    { providerId: 'provider-a.rpc', trustDomain: 'operator-a' },
    { providerId: 'provider-b.rpc', trustDomain: 'operator-b' },
  ];

  const receiptLogs: JsonObject[] = (['permitAuthority', 'graphFactory', 'platformLaunchStampRouter'] as const).map(
    (name, index) => ({
      address: roots[name].address,
      topics: [hex32('RootDeployed(address,bytes32)'), `0x${'0'.repeat(24)}${roots[name].address.slice(2)}`],
      data: roots[name].runtimeCodeHash,
      logIndex: String(index),
    }),
  );

  const transactionReadbacks: JsonObject[] = providers.map((provider) => {
    const readback: JsonObject = {
      providerId: provider.providerId,
      trustDomain: provider.trustDomain,
      transactionHash,
      transactionResponseDigest: digestOf({ provider: provider.providerId, transactionResponse: transactionHash }),
      transactionReceiptDigest: digestOf({ provider: provider.providerId, transactionReceipt: transactionHash }),
    };
    return { ...readback, evidenceDigest: digestOf(readback) };
  });

  const resultingContracts: JsonObject[] = (
    ['permitAuthority', 'graphFactory', 'platformLaunchStampRouter'] as const
  ).map((name) => {
    const providerReadbacks: JsonObject[] = providers.map((provider) => {
      const readback: JsonObject = {
        schemaVersion: 'platform.l2-atomic-root-runtime-transition-provider-readback.v1',
        providerId: provider.providerId,
        trustDomain: provider.trustDomain,
        contract: name,
        address: roots[name].address,
        preDeploymentBlockNumber: '1023',
        preDeploymentBlockHash,
        preDeploymentRuntimeCodeHash: emptyCodeHash,
        deploymentBlockNumber,
        deploymentBlockHash,
        deploymentRuntimeCodeHash: roots[name].runtimeCodeHash,
      };
      return { ...readback, evidenceDigest: digestOf(readback) };
    });
    return {
      contract: name,
      address: roots[name].address,
      runtimeCodeHash: roots[name].runtimeCodeHash,
      previousBlockRuntimeCodeHash: emptyCodeHash,
      providerReadbacks,
      stateEvidenceDigest: digestOf({ contract: name, providerReadbacks }),
    };
  });

  const finality: JsonObject = {
    schemaVersion: 'platform.custom-launch-finality-policy-ref.v1',
    policyId: 'l2.finalized-on-ethereum',
    policyRevision: 1,
    policyDigest: digestOf({ policyId: 'l2.finalized-on-ethereum', policyRevision: 1, rule: 'l2-block <= finalized' }),
  };

  const finalityEvidence: JsonObject = {
    schemaVersion: 'platform.l2-ethereum-finality-evidence.v1',
    policyDigest: finality.policyDigest as string,
    l2BlockNumber: deploymentBlockNumber,
    l2BlockHash: deploymentBlockHash,
    parentChainId: '1',
    batchSequenceNumber: '512',
    parentChainBlockNumber: '21000000',
    parentChainBlockHash: hex32('parent chain block posting batch 512'),
    parentChainFinalizedBlockNumber: '21000100',
  };

  const evidence: JsonObject = {
    schemaVersion: 'platform.l2-atomic-root-deployment-evidence.v1',
    deploymentId: 'l2-mainnet-custom-launch-v1',
    chainId: '4663',
    coveredContracts: ['platformLaunchStampRouter', 'graphFactory', 'permitAuthority'],
    transactionHash,
    from: address('root deployer 1'),
    to: address('root deployment entry point'),
    valueWei: '0',
    selector: `0x${seed('root deployment selector').slice(0, 8)}`,
    calldataHash: hex32('root deployment calldata'),
    calldataBytes: 33412,
    nonce: '0',
    transactionIndex: '1',
    receiptStatus: '1',
    blockNumber: deploymentBlockNumber,
    blockHash: deploymentBlockHash,
    receiptLogs,
    receiptLogsDigest: digestOf(receiptLogs),
    providerReadbacks: transactionReadbacks,
    resultingContracts,
    ethereumFinalityEvidence: { ...finalityEvidence, evidenceDigest: digestOf(finalityEvidence) },
    sourceVerification: {
      status: 'exact_match',
      observationProvider: 'sourcify',
      releaseAuthority: false,
      protectedBuildDigest: digestOf({ protectedBuild: 'l2-mainnet-custom-launch-v1' }),
      finalizedBytecodeBindingDigest: digestOf({
        finalizedBytecode: resultingContracts.map((item) => item.runtimeCodeHash as string),
      }),
    },
  };
  const deploymentEvidence: JsonObject = { ...evidence, evidenceDigest: digestOf(evidence) };

  const permit2Provenance: JsonObject = {
    schemaVersion: 'platform.l2-permit2-genesis-provenance.v1',
    genesisBlockHash: hex32('chain 4663 genesis block'),
    address: permit2,
    runtimeCodeHash: hex32('permit2 runtime'),
  };
  const permitAuthorityProvenance: JsonObject = {
    schemaVersion: 'platform.l2-permit-authority-source-provenance.v1',
    sourceCommit: seed('permitAuthority source commit').slice(0, 40),
    sourceBundleDigest: digestOf({ sourceBundle: 'permitAuthority' }),
    compilerVersion: '0.8.26+commit.8a97fa7a',
    runtimeCodeHash: roots.permitAuthority.runtimeCodeHash,
  };
  const externalRoots: JsonObject = {
    schemaVersion: 'platform.l2-external-root-deployment-evidence.v1',
    canonicalPoolManager: {
      address: canonicalPoolManager,
      runtimeCodeHash: hex32('pool manager runtime'),
      deploymentTransactionHash: hex32('pool manager deployment transaction'),
      deploymentBlockNumber: '12',
      deploymentBlockHash: hex32('pool manager deployment block'),
    },
  };

  return {
    schemaVersion: 'platform.custom-launch-chain-deployment.v1',
    chainDeploymentId: 'l2-mainnet-custom-launch-v1',
    chainId: '4663',
    caip2: 'eip155:4663',
    finality,
    foundationSourceCommitment: hex32('foundation source commitment'),
    deploymentEvidence,
    permit2GenesisProvenance: { ...permit2Provenance, evidenceDigest: digestOf(permit2Provenance) },
    permitAuthoritySourceProvenance: {
      ...permitAuthorityProvenance,
      evidenceDigest: digestOf(permitAuthorityProvenance),
    },
    externalRootDeploymentEvidence: { ...externalRoots, evidenceDigest: digestOf(externalRoots) },
    contracts: {
      platformLaunchStampRouter: roots.platformLaunchStampRouter,
      graphFactory: roots.graphFactory,
      permitAuthority: roots.permitAuthority,
      canonicalPoolManager: {
        address: canonicalPoolManager,
        runtimeCodeHash: (externalRoots.canonicalPoolManager as JsonObject).runtimeCodeHash as string,
      },
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request parts shared by both profiles

function buildSourceBundleManifest(): JsonObject {
  const files: JsonObject[] = Object.keys(sources)
    .sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')))
    .map((path) => {
      const bytes = Buffer.from(sources[path] as string, 'utf8');
      return { path, sha256: createHash('sha256').update(bytes).digest('hex'), byteLength: bytes.length };
    });
  return { schemaVersion: 'platform.custom-launch-source-bundle-manifest.v1', files };
}

function buildGraphBundle(): JsonObject {
  const targets: JsonObject[] = graphTargets.map((target) => {
    const runtimeBytecode = `0x608060405263${target.tag}505f80fd`;
    const item: JsonObject = {
      targetId: target.targetId,
      role: target.role,
      runtimeBytecode,
      runtimeCodeHash: keccak256(runtimeBytecode as `0x${string}`),
      create2Salt: hex32(`create2 salt of ${target.targetId}`),
    };
    if (target.role === 'hook') item.hookPermissions = hookPermissions(hookMask);
    return item;
  });
  const bundle: JsonObject = { schemaVersion: 'platform.custom-launch-graph-bundle.v1', targets };
  return { ...bundle, graphBundleDigest: digestOf(bundle) };
}

function buildProjectMetadata(): JsonObject {
  return {
    name: 'Example Launch Token',
    symbol: 'EXLT',
    description: 'An example token launched through the chain-bound custom launch API on chain 4663.',
    image: {
      uri: 'https://assets.example.com/exlt/logo.png',
      mediaType: 'image/png',
      sha256: sha256Digest(imageBytes),
    },
    links: {
      website: 'https://example.com',
      x: 'https://x.com/example',
      other: [{ label: 'Documentation', uri: 'https://docs.example.com/exlt' }],
    },
  };
}

function buildFundingPlan(): JsonObject {
  const plan: JsonObject = {
    schemaVersion: 'platform.custom-launch-funding-plan.v2',
    profile: '4.1.0',
    revision: 2,
    mode: 'funded',
    settlementAsset: { kind: 'native' },
    walletTransactionValueWei: '10000000000000000',
    nativeAllocations: {
      initialLiquidityWei: '6000000000000000',
      initialBuyWei: '1000000000000000',
      reservesWei: '2000000000000000',
      otherNativeAllocations: [{ label: 'liquidity-buffer', amountWei: '1000000000000000' }],
    },
    maxLaunchValueWei: '12000000000000000',
    maxGasCostWei: '500000000000000',
    initialBuy: { minTokenOut: '1000000000000000000000', recipient: launchWallet },
  };
  // Self-check: the allocations sum to the wallet transaction value.
  const allocations = plan.nativeAllocations as JsonObject;
  const others = allocations.otherNativeAllocations as JsonObject[];
  const sum =
    BigInt(allocations.initialLiquidityWei as string) +
    BigInt(allocations.initialBuyWei as string) +
    BigInt(allocations.reservesWei as string) +
    others.reduce((total, item) => total + BigInt(item.amountWei as string), 0n);
  if (sum !== BigInt(plan.walletTransactionValueWei as string)) throw new Error('funding plan does not sum');
  return { ...plan, fundingPlanHash: digestOf(plan) };
}

function buildRequest(profile: '4.1.0' | '4.0.0'): JsonObject {
  const chainDeployment = buildChainDeployment();
  const sourceBundleManifest = buildSourceBundleManifest();
  const graphBundle = buildGraphBundle();
  const projectMetadata = buildProjectMetadata();
  const fundingPlan = profile === '4.1.0' ? buildFundingPlan() : null;

  const body: JsonObject = {
    schemaVersion: 'platform.custom-launch-create-request.v4',
    chainId: '4663',
    caip2: 'eip155:4663',
    chainDeployment,
    chainDeploymentDescriptorDigest: digestOf(chainDeployment),
    profile,
    launchWallet,
    nonce: hex32(`request nonce, profile ${profile}`),
    permitWindow: { lifetimeSeconds: 3600 },
    sourceDescriptor: {
      schemaVersion: 'platform.custom-launch-source-descriptor.v1',
      language: 'Solidity',
      compilerVersion: '0.8.26+commit.8a97fa7a',
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      viaIR: false,
    },
    sourceBundleManifest,
    externalContracts: [
      {
        referenceId: 'permit2',
        chainId: '4663',
        address: permit2,
        runtimeCodeHash: (chainDeployment.permit2GenesisProvenance as JsonObject).runtimeCodeHash as string,
        sourceVerification: {
          provider: 'sourcify',
          evidenceUri: `https://sourcify.dev/server/v2/contract/4663/${permit2}`,
          evidenceDigest: digestOf({ sourceVerification: permit2 }),
        },
        graphRole: 'auxiliary',
        checkpoint: { blockNumber: '2048', blockHash: hex32('checkpoint block 2048') },
      },
    ],
    graphBundle,
    projectMetadata,
    projectMetadataHash: digestOf(projectMetadata),
    projectMetadataImageArtifact: {
      mediaType: 'image/png',
      byteLength: imageBytes.length,
      sha256: sha256Digest(imageBytes),
      bytesBase64: imagePngBase64,
    },
    verificationBundle: {
      schemaVersion: 'platform.custom-launch-verification-bundle.v1',
      graphBundleDigest: graphBundle.graphBundleDigest as string,
      sourceBundleManifestDigest: digestOf(sourceBundleManifest),
      targets: graphTargets.map((target) => ({
        targetId: target.targetId,
        sourcePath: target.source,
        contractName: target.contractName,
      })),
    },
    funding:
      fundingPlan === null
        ? { model: 'exact-wallet-value', walletTransactionValueWei: '0', initialBuyWei: '0' }
        : { model: 'hash-bound-funding-plan', fundingPlanHash: fundingPlan.fundingPlanHash as string },
    liquidityModel: {
      model: 'native-token-v4-pool',
      lpFeePips: 3000,
      tickSpacing: 60,
      initialSqrtPriceX96: '79228162514264337593543950336',
      tokenLiquidityAmount: '800000000000000000000000000',
    },
  };
  if (fundingPlan !== null) body.fundingPlan = fundingPlan;

  const launchIntentHash = digestOf(without(body, 'launchIntentHash', 'agentAttestation'));
  return {
    ...body,
    launchIntentHash,
    agentAttestation: {
      schemaVersion: 'platform.custom-launch-agent-attestation.v1',
      agentId: 'example-packer',
      agentVersion: profile === '4.1.0' ? '4.1.1' : '4.0.0',
      evidenceVerifiedClaim: false,
      feeBehaviorClaim: false,
      safetyClaim: false,
    },
  };
}

const outputs: Array<[string, JsonObject]> = [
  ['custom-launch-create-request.v4.json', buildRequest('4.1.0')],
  ['custom-launch-create-request.v4--profile-4.0.0.json', buildRequest('4.0.0')],
];
for (const [file, request] of outputs) {
  writeFileSync(new URL(file, exampleDir), `${JSON.stringify(request, null, 2)}\n`);
  console.log(`wrote spec/examples/${file}`);
}
