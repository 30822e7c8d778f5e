/**
 * Deterministic generator of the two V4 create-request examples:
 *   spec/examples/custom-launch-create-request.v4.json                 (profile 4.1.0, funded)
 *   spec/examples/custom-launch-create-request.v4--profile-4.0.0.json  (frozen profile 4.0.0)
 *
 * It starts a fresh local devnet, takes its chain-deployment document (the same at every start), and builds a launch
 * that reaches `authorized` there: the example graph of contracts/example-graph/ compiled by `make generate`, the hook
 * at a mined CREATE2 salt whose address carries the hook's permission mask, anvil's test account 0 as the launch
 * wallet. Every hash is computed for real: keccak-256 runtime code hashes, SHA-256 of the source files and of the
 * embedded PNG, and the sha256: digests over RFC 8785 canonical JSON. Nothing here reads the clock or a random source.
 *
 * Run after changing contracts/: npx tsx scripts/examples/build-v4-examples.ts
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { type Hex, keccak256 } from 'viem';
import { artifact, artifacts } from '../../src/chain/artifacts.ts';
import { mineHookSalt } from '../../src/chain/graph-address.ts';
import { startDevnet } from '../../src/devnet/devnet.ts';
import { sha256Digest } from '../../src/domain/canonical-json.ts';
import { digestOf, launchIntentHashOf } from '../../src/domain/launches/request-hashes.ts';
import type { CreateRequestV4 } from '../../src/domain/launches/request-rules.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const exampleDir = new URL('../../spec/examples/', import.meta.url);

/** A 32-byte value (0x + 64 lowercase hex) derived from a label. */
function hex32(label: string): string {
  return `0x${createHash('sha256').update(`custom-launch-api example: ${label}`, 'utf8').digest('hex')}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Fixed inputs

/** anvil / hardhat test account 0: the launch controller of the examples (the devnet's first funded account). */
const launchWallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** A real 1x1 RGBA PNG (70 bytes). */
const imagePngBase64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const imageBytes = Buffer.from(imagePngBase64, 'base64');
if (imageBytes.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') {
  throw new Error('embedded image is not a PNG');
}

/** The example graph: contracts/example-graph/, compiled by `make generate` (generated/contracts/). */
const graphTargets = [
  { targetId: 'token', role: 'token', contractName: 'ExampleToken' },
  { targetId: 'hook', role: 'hook', contractName: 'ExampleHook' },
  { targetId: 'initializer', role: 'initializer', contractName: 'ExampleInitializer' },
] as const;
const sources: Record<string, string> = Object.fromEntries(
  graphTargets.map((t) => {
    const path = artifact(t.contractName).sourcePath;
    return [path, readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')];
  }),
);

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

function buildGraphBundle(factory: Hex, router: Hex): JsonObject {
  const targets: JsonObject[] = graphTargets.map((target) => {
    const runtimeBytecode = artifact(target.contractName).deployedBytecode;
    const item: JsonObject = {
      targetId: target.targetId,
      role: target.role,
      runtimeBytecode,
      runtimeCodeHash: keccak256(runtimeBytecode),
      create2Salt:
        target.role === 'hook'
          ? mineHookSalt(factory, router, runtimeBytecode, hookMask)
          : hex32(`create2 salt of ${target.targetId}`),
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
    initialBuy: { minTokenOut: '800000000000000000000', recipient: launchWallet },
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

function buildRequest(profile: '4.1.0' | '4.0.0', chainDeployment: JsonObject): JsonObject {
  const contracts = chainDeployment.contracts as { [name: string]: { address: Hex } };
  const sourceBundleManifest = buildSourceBundleManifest();
  const graphBundle = buildGraphBundle(
    (contracts.graphFactory as { address: Hex }).address,
    (contracts.platformLaunchStampRouter as { address: Hex }).address,
  );
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
      compilerVersion: artifacts().compilerVersion,
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      viaIR: false,
    },
    sourceBundleManifest,
    externalContracts: [],
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
        sourcePath: artifact(target.contractName).sourcePath,
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
      // 1,000,000 tokens per native coin: sqrt(1e6) * 2^96.
      initialSqrtPriceX96: '79228162514264337593543950336000',
      tokenLiquidityAmount: '800000000000000000000000000',
    },
  };
  if (fundingPlan !== null) body.fundingPlan = fundingPlan;

  const launchIntentHash = launchIntentHashOf(body as unknown as CreateRequestV4);
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

const devnet = await startDevnet();
let chainDeployment: JsonObject;
try {
  chainDeployment = devnet.chainDeployment as unknown as JsonObject;
} finally {
  await devnet.stop();
}
const outputs: Array<[string, JsonObject]> = [
  ['custom-launch-create-request.v4.json', buildRequest('4.1.0', chainDeployment)],
  ['custom-launch-create-request.v4--profile-4.0.0.json', buildRequest('4.0.0', chainDeployment)],
];
for (const [file, request] of outputs) {
  writeFileSync(new URL(file, exampleDir), `${JSON.stringify(request, null, 2)}\n`);
  console.log(`wrote spec/examples/${file}`);
}
