import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Address, createPublicClient, type Hex, http, keccak256, toBytes } from 'viem';
import type { ChainDeploymentV1 } from '../../generated/types/service.ts';
import { digestOf } from '../core/request-hashes.ts';
import { artifact, artifacts } from '../solidity/artifacts.ts';

type RootName = 'permitAuthority' | 'graphFactory' | 'platformLaunchStampRouter';
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One of the two fixed provider positions: its identity and its JSON-RPC URL. */
export interface ProviderPosition {
  providerId: string;
  trustDomain: string;
  url: string;
}

/** The platform's finality policy for chain 4663 (its digest binds chainDeployment.finality). */
export const finalityPolicy = {
  policyId: 'l2.finalized-on-ethereum',
  policyRevision: 1,
  rule: 'l2-block <= finalized',
} as const;
const permit2Address: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
/** Resulting contracts in the order the reference fixes. */
const rootOrder: RootName[] = ['permitAuthority', 'graphFactory', 'platformLaunchStampRouter'];

function withDigest<T extends Record<string, unknown>>(value: T): T & { evidenceDigest: string } {
  return { ...value, evidenceDigest: digestOf(value) };
}

/** The git object id (SHA-1 blob id) of a file: what `git hash-object` prints for it. */
function gitBlobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

type Client = ReturnType<typeof createPublicClient>;

/** Both provider positions' clients, and their raw JSON-RPC answers to one call, which must be identical. */
interface Providers {
  positions: readonly ProviderPosition[];
  clients: Client[];
  first: Client;
  agreed: (method: string, params: unknown[]) => Promise<Json[]>;
}

/** The root deployment transaction as both providers returned it, and what its receipt says. */
interface RootTransaction {
  hash: Hex;
  txs: Json[];
  receipts: Json[];
  tx: { [key: string]: string };
  receipt: { [key: string]: Json };
  blockNumber: bigint;
  blockHash: Hex;
  logs: Array<{ address: string; topics: string[]; data: string; logIndex: string }>;
  /** The roots in deployment order, from their RootDeployed logs. */
  roots: Address[];
}

type ResultingContract = Awaited<ReturnType<typeof readResultingContract>>;
type DeploymentEvidence = ReturnType<typeof deploymentEvidenceOf>;

/**
 * Reads a root deployment back from the chain through both provider positions and returns the chain-deployment
 * document (chain-deployment.v1 with deployment-evidence.v1). Both providers must return identical transactions,
 * receipts and code; any disagreement throws. On the devnet there is no base layer: the finality evidence records the
 * devnet's own `safe` and `finalized` blocks standing in for the batch posting and base-layer finality, with batch
 * number 0.
 */
export async function readChainDeploymentEvidence(input: {
  providers: readonly ProviderPosition[];
  rootTransactionHash: Hex;
  poolManagerTransactionHash: Hex;
}): Promise<ChainDeploymentV1> {
  const providers = providersOf(input.providers);
  const root = await readRootTransaction(providers, input.rootTransactionHash);
  const before = await providers.first.getBlock({ blockNumber: root.blockNumber - 1n });
  const resultingContracts = await Promise.all(
    rootOrder.map((contract, i) => readResultingContract(providers, root, before.hash as Hex, contract, i)),
  );
  const byName = Object.fromEntries(resultingContracts.map((c) => [c.contract, c])) as Record<
    RootName,
    ResultingContract
  >;
  const finality = await readFinalityEvidence(providers.first, root);
  const deploymentEvidence = deploymentEvidenceOf(providers, root, byName, finality);
  return chainDeploymentOf(
    providers.first,
    input.poolManagerTransactionHash,
    root.blockNumber,
    deploymentEvidence,
    byName,
  );
}

function providersOf(positions: readonly ProviderPosition[]): Providers {
  const clients = positions.map((p) => createPublicClient({ transport: http(p.url) }));
  const [first] = clients;
  if (!first || clients.length !== 2) throw new Error('two provider positions are required');
  // Raw JSON-RPC answers, so the digests cover exactly what each provider returned.
  const raw = (i: number, method: string, params: unknown[]) =>
    (clients[i] as Client).request({ method, params } as never) as Promise<Json>;
  const agreed = async (method: string, params: unknown[]) => {
    const answers = await Promise.all([raw(0, method, params), raw(1, method, params)]);
    if (JSON.stringify(answers[0]) !== JSON.stringify(answers[1])) throw new Error(`providers disagree on ${method}`);
    return answers;
  };
  return { positions, clients, first, agreed };
}

async function readRootTransaction(providers: Providers, hash: Hex): Promise<RootTransaction> {
  const [txs, receipts] = await Promise.all([
    providers.agreed('eth_getTransactionByHash', [hash]),
    providers.agreed('eth_getTransactionReceipt', [hash]),
  ]);
  const tx = txs[0] as { [key: string]: string };
  const receipt = receipts[0] as { [key: string]: Json };
  if (receipt.status !== '0x1') throw new Error('the root deployment transaction reverted');
  const logs = (receipt.logs as Array<{ [key: string]: Json }>).map((log) => ({
    address: (log.address as string).toLowerCase(),
    topics: log.topics as string[],
    data: log.data as string,
    logIndex: BigInt(log.logIndex as string).toString(),
  }));
  // RootDeployed(address indexed root, bytes32 runtimeCodeHash), one per root in deployment order.
  const roots = logs.map((log) => `0x${(log.topics[1] as string).slice(26)}` as Address);
  if (roots.length !== 3) throw new Error(`the root deployment emitted ${roots.length} RootDeployed logs, not 3`);
  const blockNumber = BigInt(receipt.blockNumber as string);
  return { hash, txs, receipts, tx, receipt, blockNumber, blockHash: receipt.blockHash as Hex, logs, roots };
}

async function codeHashAt(client: Client, address: Address, at: bigint): Promise<Hex> {
  return keccak256((await client.getCode({ address, blockNumber: at })) ?? '0x');
}

/** One root's code before and at the deployment block, as each provider reads it; both must agree. */
async function readResultingContract(
  providers: Providers,
  root: RootTransaction,
  preDeploymentBlockHash: Hex,
  contract: RootName,
  i: number,
) {
  const address = root.roots[i] as Address;
  const { blockNumber } = root;
  const providerReadbacks = await Promise.all(
    providers.positions.map(async (provider, p) => {
      const client = providers.clients[p] as Client;
      return withDigest({
        schemaVersion: 'platform.l2-atomic-root-runtime-transition-provider-readback.v1' as const,
        providerId: provider.providerId,
        trustDomain: provider.trustDomain,
        contract,
        address,
        preDeploymentBlockNumber: (blockNumber - 1n).toString(),
        preDeploymentBlockHash,
        preDeploymentRuntimeCodeHash: await codeHashAt(client, address, blockNumber - 1n),
        deploymentBlockNumber: blockNumber.toString(),
        deploymentBlockHash: root.blockHash,
        deploymentRuntimeCodeHash: await codeHashAt(client, address, blockNumber),
      });
    }),
  );
  const [a, b] = providerReadbacks;
  if (!a || !b || a.deploymentRuntimeCodeHash !== b.deploymentRuntimeCodeHash) {
    throw new Error(`providers disagree on the code of ${contract}`);
  }
  return {
    contract,
    address,
    runtimeCodeHash: a.deploymentRuntimeCodeHash,
    previousBlockRuntimeCodeHash: a.preDeploymentRuntimeCodeHash,
    providerReadbacks: [a, b] as [typeof a, typeof b],
    stateEvidenceDigest: digestOf({ contract, providerReadbacks }),
  };
}

/**
 * The finality evidence: the devnet's `safe` block stands in for the batch posting, its `finalized` block for the base
 * layer's.
 */
async function readFinalityEvidence(first: Client, root: RootTransaction) {
  const { blockNumber } = root;
  const safe = await first.getBlock({ blockTag: 'safe' });
  const finalized = await first.getBlock({ blockTag: 'finalized' });
  if (finalized.number < blockNumber) throw new Error('the root deployment is not final yet');
  const postedAt = await first.getBlock({
    blockNumber: blockNumber + 32n <= safe.number ? blockNumber + 32n : safe.number,
  });
  return withDigest({
    schemaVersion: 'platform.l2-ethereum-finality-evidence.v1' as const,
    policyDigest: digestOf(finalityPolicy),
    l2BlockNumber: blockNumber.toString(),
    l2BlockHash: root.blockHash,
    parentChainId: '1' as const,
    batchSequenceNumber: '0',
    parentChainBlockNumber: (postedAt.number as bigint).toString(),
    parentChainBlockHash: postedAt.hash as Hex,
    parentChainFinalizedBlockNumber: (finalized.number as bigint).toString(),
  });
}

/** deployment-evidence.v1 for the root transaction, its resulting contracts and its finality evidence. */
function deploymentEvidenceOf(
  providers: Providers,
  root: RootTransaction,
  byName: Record<RootName, ResultingContract>,
  ethereumFinalityEvidence: Awaited<ReturnType<typeof readFinalityEvidence>>,
) {
  const { tx, receipt } = root;
  const transactionReadbacks = providers.positions.map((provider, p) =>
    withDigest({
      providerId: provider.providerId,
      trustDomain: provider.trustDomain,
      transactionHash: root.hash,
      transactionResponseDigest: digestOf(root.txs[p] as Json),
      transactionReceiptDigest: digestOf(root.receipts[p] as Json),
    }),
  );
  return withDigest({
    schemaVersion: 'platform.l2-atomic-root-deployment-evidence.v1' as const,
    deploymentId: 'l2-mainnet-custom-launch-v1' as const,
    chainId: '4663' as const,
    coveredContracts: ['platformLaunchStampRouter', 'graphFactory', 'permitAuthority'] as [
      'platformLaunchStampRouter',
      'graphFactory',
      'permitAuthority',
    ],
    transactionHash: root.hash,
    from: (tx.from as string).toLowerCase(),
    to: (tx.to as string).toLowerCase(),
    valueWei: '0' as const,
    selector: (tx.input as string).slice(0, 10),
    calldataHash: keccak256(tx.input as Hex),
    calldataBytes: ((tx.input as string).length - 2) / 2,
    nonce: BigInt(tx.nonce as string).toString(),
    transactionIndex: BigInt(receipt.transactionIndex as string).toString(),
    receiptStatus: '1' as const,
    blockNumber: root.blockNumber.toString(),
    blockHash: root.blockHash,
    receiptLogs: root.logs,
    receiptLogsDigest: digestOf(root.logs),
    providerReadbacks: transactionReadbacks as [
      (typeof transactionReadbacks)[number],
      (typeof transactionReadbacks)[number],
    ],
    resultingContracts: rootOrder.map((name) => byName[name]),
    ethereumFinalityEvidence,
    sourceVerification: {
      status: 'exact_match' as const,
      observationProvider: 'local-solc-build',
      releaseAuthority: false as const,
      protectedBuildDigest: artifacts().compilerInputDigest,
      finalizedBytecodeBindingDigest: digestOf({
        finalizedBlockNumber: root.blockNumber.toString(),
        runtimeCodeHashes: rootOrder.map((name) => byName[name].runtimeCodeHash),
      }),
    },
  });
}

/** The chain-deployment document: the evidence, the provenances, the external root and the bound contracts. */
async function chainDeploymentOf(
  first: Client,
  poolManagerTransactionHash: Hex,
  blockNumber: bigint,
  deploymentEvidence: DeploymentEvidence,
  byName: Record<RootName, ResultingContract>,
): Promise<ChainDeploymentV1> {
  const genesis = await first.getBlock({ blockNumber: 0n });
  const poolManagerReceipt = await first.getTransactionReceipt({ hash: poolManagerTransactionHash });
  const poolManagerAddress = poolManagerReceipt.contractAddress as Address;
  const poolManagerCodeHash = await codeHashAt(first, poolManagerAddress, blockNumber);
  const permitAuthoritySource = readFileSync(
    new URL(`../../${artifact('PermitAuthority').sourcePath}`, import.meta.url),
  );
  const bound = (name: RootName) => ({
    address: byName[name].address.toLowerCase(),
    runtimeCodeHash: byName[name].runtimeCodeHash,
  });
  const chainDeployment = {
    schemaVersion: 'platform.custom-launch-chain-deployment.v1' as const,
    chainDeploymentId: 'l2-mainnet-custom-launch-v1' as const,
    chainId: '4663' as const,
    caip2: 'eip155:4663' as const,
    finality: {
      schemaVersion: 'platform.custom-launch-finality-policy-ref.v1' as const,
      policyId: finalityPolicy.policyId,
      policyRevision: finalityPolicy.policyRevision,
      policyDigest: digestOf(finalityPolicy),
    },
    foundationSourceCommitment: keccak256(toBytes(artifacts().compilerInputDigest)),
    deploymentEvidence,
    permit2GenesisProvenance: withDigest({
      schemaVersion: 'platform.l2-permit2-genesis-provenance.v1' as const,
      genesisBlockHash: genesis.hash as Hex,
      address: permit2Address,
      runtimeCodeHash: await codeHashAt(first, permit2Address, 0n),
    }),
    permitAuthoritySourceProvenance: withDigest({
      schemaVersion: 'platform.l2-permit-authority-source-provenance.v1' as const,
      sourceCommit: gitBlobId(permitAuthoritySource),
      sourceBundleDigest: `sha256:${createHash('sha256').update(permitAuthoritySource).digest('hex')}`,
      compilerVersion: artifacts().compilerVersion,
      runtimeCodeHash: byName.permitAuthority.runtimeCodeHash,
    }),
    externalRootDeploymentEvidence: withDigest({
      schemaVersion: 'platform.l2-external-root-deployment-evidence.v1' as const,
      canonicalPoolManager: {
        address: poolManagerAddress.toLowerCase(),
        runtimeCodeHash: poolManagerCodeHash,
        deploymentTransactionHash: poolManagerTransactionHash,
        deploymentBlockNumber: poolManagerReceipt.blockNumber.toString(),
        deploymentBlockHash: poolManagerReceipt.blockHash,
      },
    }),
    contracts: {
      platformLaunchStampRouter: bound('platformLaunchStampRouter'),
      graphFactory: bound('graphFactory'),
      permitAuthority: bound('permitAuthority'),
      canonicalPoolManager: { address: poolManagerAddress.toLowerCase(), runtimeCodeHash: poolManagerCodeHash },
    },
  };
  return chainDeployment as ChainDeploymentV1;
}
