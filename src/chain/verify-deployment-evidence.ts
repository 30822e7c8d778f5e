import { createPublicClient, type Hex, keccak256 } from 'viem';
import type { ChainDeploymentV1 } from '../../generated/types/service.ts';
import { digestOf } from '../core/request-hashes.ts';
import { logger } from '../observability/logger.ts';
import { providerTransport } from './provider-transport.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What a verification of the bound deployment evidence found. */
export type EvidenceVerification =
  | { kind: 'verified' }
  /** The document contradicts itself, or both providers contradict it: the V4 lane must not accept writes. */
  | { kind: 'tampered'; problems: string[] }
  /** The chain could not be read (a provider down or timing out): not a verdict; try again. */
  | { kind: 'unreachable'; detail: string }
  /**
   * One provider contradicts the document while the other agrees with it, or the deployment block is not final on a
   * provider: one provider's word is not a verdict either way; try again.
   */
  | { kind: 'disagreeing'; problems: string[] };

/** How the evidence is read: each provider request's timeout (CHAIN_RPC_TIMEOUT_MS). */
export interface EvidenceReadOptions {
  timeoutMs?: number;
}

function withoutDigest<T extends object>(value: T, field = 'evidenceDigest'): Omit<T, never> {
  const { [field as keyof T]: _digest, ...rest } = value;
  return rest as T;
}

type Client = ReturnType<typeof createPublicClient>;
type Raw = (i: number, method: string, params: unknown[]) => Promise<Json>;
type Evidence = ChainDeploymentV1['deploymentEvidence'];

/** Collects the problems of the checks that fail. */
function problemList(): { problems: string[]; check: (ok: boolean, problem: string) => void } {
  const problems: string[] = [];
  return {
    problems,
    check: (ok, problem) => {
      if (!ok) problems.push(problem);
    },
  };
}

/**
 * Verifies the chain-deployment document the server is bound to against itself and the chain, through both
 * provider URLs (spec/schemas/deployment-evidence.v1.schema.json, spec/schemas/chain-deployment.v1.schema.json):
 * every evidence digest, the root deployment transaction and receipt (sender, router call, nonce, status, block,
 * receipt logs and their digest, the per-provider response digests), the finality evidence's policy digest and
 * base-layer block order, the canonical pool manager's creation (the external root), both providers' readbacks of
 * the resulting contracts' runtime code hashes at the deployment block and today, the addresses the document binds,
 * and that the deployment block is final. A provider that cannot be read gives `unreachable`, one provider
 * contradicting the document alone (or a deployment block not yet final) gives `disagreeing`: neither is a verdict.
 * `tampered` needs the document itself or both providers to contradict it.
 */
export async function verifyChainDeploymentEvidence(
  doc: ChainDeploymentV1,
  rpcUrls: readonly string[],
  options: EvidenceReadOptions = {},
): Promise<EvidenceVerification> {
  const own = documentProblems(doc);
  const clients = rpcUrls.map((url, position) =>
    createPublicClient({
      transport: providerTransport(
        url,
        { chain: '4663', position },
        { retryCount: 1, timeout: options.timeoutMs ?? 20_000 },
      ),
    }),
  );
  const raw: Raw = (i, method, params) => clients[i]?.request({ method, params } as never) as Promise<Json>;
  let perProvider: Array<{ problems: string[]; final: boolean }>;
  try {
    perProvider = await Promise.all(clients.map((client, i) => providerProblems(raw, client, i, doc)));
  } catch (err) {
    // viem's short message names no URL: a provider URL may carry a key.
    return {
      kind: 'unreachable',
      detail: (err as { shortMessage?: string }).shortMessage ?? 'provider request failed',
    };
  }
  const chain = perProvider.flatMap((p) => p.problems);
  if (own.length > 0 || perProvider.every((p) => p.problems.length > 0))
    return { kind: 'tampered', problems: [...own, ...chain] };
  const notFinal = perProvider.flatMap((p, i) => (p.final ? [] : [`provider ${i}: the deployment block is not final`]));
  if (chain.length > 0 || notFinal.length > 0) return { kind: 'disagreeing', problems: [...chain, ...notFinal] };
  return { kind: 'verified' };
}

/** What one provider reads against the document: its contradictions, and whether the deployment block is final. */
async function providerProblems(
  raw: Raw,
  client: Client,
  i: number,
  doc: ChainDeploymentV1,
): Promise<{ problems: string[]; final: boolean }> {
  const evidence = doc.deploymentEvidence;
  const problems = [
    ...(await rootTransactionProblems(raw, i, evidence)),
    ...(await resultingContractProblems(client, i, evidence)),
    ...(await poolManagerProblems(raw, client, i, doc.externalRootDeploymentEvidence.canonicalPoolManager)),
  ];
  const finalized = await client.getBlock({ blockTag: 'finalized' });
  return { problems, final: finalized.number >= BigInt(evidence.blockNumber) };
}

/** The document against itself: every digest, the bound contracts against their evidence, the finality rules. */
function documentProblems(doc: ChainDeploymentV1): string[] {
  const { problems, check } = problemList();
  const evidence = doc.deploymentEvidence;
  check(digestOf(withoutDigest(evidence)) === evidence.evidenceDigest, 'deploymentEvidence.evidenceDigest');
  check(digestOf(evidence.receiptLogs) === evidence.receiptLogsDigest, 'deploymentEvidence.receiptLogsDigest');
  for (const [i, readback] of evidence.providerReadbacks.entries()) {
    check(digestOf(withoutDigest(readback)) === readback.evidenceDigest, `providerReadbacks[${i}].evidenceDigest`);
  }
  for (const contract of evidence.resultingContracts) {
    for (const [i, readback] of contract.providerReadbacks.entries()) {
      check(
        digestOf(withoutDigest(readback)) === readback.evidenceDigest,
        `resultingContracts.${contract.contract}.providerReadbacks[${i}].evidenceDigest`,
      );
    }
    check(
      digestOf({ contract: contract.contract, providerReadbacks: contract.providerReadbacks }) ===
        contract.stateEvidenceDigest,
      `resultingContracts.${contract.contract}.stateEvidenceDigest`,
    );
    const bound = doc.contracts[contract.contract as keyof ChainDeploymentV1['contracts']];
    check(
      bound?.address.toLowerCase() === contract.address.toLowerCase() &&
        bound.runtimeCodeHash === contract.runtimeCodeHash,
      `contracts.${contract.contract} differs from its deployment evidence`,
    );
  }
  return [...problems, ...finalityAndRootProblems(doc)];
}

/** The finality evidence's digest and its two server rules; the external root's digest and its bound contract. */
function finalityAndRootProblems(doc: ChainDeploymentV1): string[] {
  const { problems, check } = problemList();
  const evidence = doc.deploymentEvidence;
  check(
    digestOf(withoutDigest(evidence.ethereumFinalityEvidence)) === evidence.ethereumFinalityEvidence.evidenceDigest,
    'ethereumFinalityEvidence.evidenceDigest',
  );
  const root = doc.externalRootDeploymentEvidence;
  check(digestOf(withoutDigest(root)) === root.evidenceDigest, 'externalRootDeploymentEvidence.evidenceDigest');
  const boundManager = doc.contracts.canonicalPoolManager;
  check(
    root.canonicalPoolManager.address.toLowerCase() === boundManager.address.toLowerCase() &&
      root.canonicalPoolManager.runtimeCodeHash === boundManager.runtimeCodeHash,
    'externalRootDeploymentEvidence differs from contracts.canonicalPoolManager',
  );
  // The two server rules of deployment-evidence.v1 EthereumFinalityEvidence no schema can state.
  const finality = evidence.ethereumFinalityEvidence;
  check(
    finality.policyDigest === doc.finality.policyDigest,
    'ethereumFinalityEvidence.policyDigest is not finality.policyDigest',
  );
  check(
    BigInt(finality.parentChainFinalizedBlockNumber) >= BigInt(finality.parentChainBlockNumber),
    'ethereumFinalityEvidence.parentChainFinalizedBlockNumber is below parentChainBlockNumber',
  );
  return problems;
}

/** The root deployment transaction and receipt as provider `i` returns them, against the evidence. */
async function rootTransactionProblems(raw: Raw, i: number, evidence: Evidence): Promise<string[]> {
  const { problems, check } = problemList();
  const hash = evidence.transactionHash;
  const tx = (await raw(i, 'eth_getTransactionByHash', [hash])) as { [key: string]: string } | null;
  const receipt = (await raw(i, 'eth_getTransactionReceipt', [hash])) as { [key: string]: Json } | null;
  if (!tx || !receipt) return [`provider ${i} has no root deployment transaction ${hash}`];
  const readback = evidence.providerReadbacks[i];
  check(readback?.transactionResponseDigest === digestOf(tx as Json), `provider ${i}: transaction response digest`);
  check(readback?.transactionReceiptDigest === digestOf(receipt as Json), `provider ${i}: receipt digest`);
  check(tx.from?.toLowerCase() === evidence.from, `provider ${i}: sender`);
  check(tx.to?.toLowerCase() === evidence.to, `provider ${i}: called address`);
  check(tx.input?.slice(0, 10) === evidence.selector, `provider ${i}: selector`);
  check(keccak256(tx.input as Hex) === evidence.calldataHash, `provider ${i}: calldata hash`);
  check(BigInt(tx.nonce ?? '0x0').toString() === evidence.nonce, `provider ${i}: nonce`);
  check(receipt.status === '0x1', `provider ${i}: receipt status`);
  check(BigInt(receipt.blockNumber as string).toString() === evidence.blockNumber, `provider ${i}: block number`);
  check(receipt.blockHash === evidence.blockHash, `provider ${i}: block hash`);
  const logs = (receipt.logs as Array<{ [key: string]: Json }>).map((log) => ({
    address: (log.address as string).toLowerCase(),
    topics: log.topics as string[],
    data: log.data as string,
    logIndex: BigInt(log.logIndex as string).toString(),
  }));
  check(digestOf(logs) === evidence.receiptLogsDigest, `provider ${i}: receipt logs`);
  return problems;
}

/** Each resulting contract's runtime code hash at the deployment block and today, on provider `i`. */
async function resultingContractProblems(client: Client, i: number, evidence: Evidence): Promise<string[]> {
  const { problems, check } = problemList();
  const deployedAt = BigInt(evidence.blockNumber);
  for (const contract of evidence.resultingContracts) {
    const atDeployment = keccak256(
      (await client.getCode({ address: contract.address as Hex, blockNumber: deployedAt })) ?? '0x',
    );
    const today = keccak256((await client.getCode({ address: contract.address as Hex })) ?? '0x');
    check(
      atDeployment === contract.runtimeCodeHash,
      `provider ${i}: ${contract.contract} code at the deployment block`,
    );
    check(today === contract.runtimeCodeHash, `provider ${i}: ${contract.contract} code today`);
  }
  return problems;
}

/** The external root (chain-deployment.v1 ExternalRootDeploymentEvidence) on provider `i`: the pool manager's creation. */
async function poolManagerProblems(
  raw: Raw,
  client: Client,
  i: number,
  root: ChainDeploymentV1['externalRootDeploymentEvidence']['canonicalPoolManager'],
): Promise<string[]> {
  const { problems, check } = problemList();
  const receipt = (await raw(i, 'eth_getTransactionReceipt', [root.deploymentTransactionHash])) as {
    [key: string]: string;
  } | null;
  if (!receipt) return [`provider ${i} has no pool manager deployment transaction ${root.deploymentTransactionHash}`];
  check(receipt.status === '0x1', `provider ${i}: pool manager deployment status`);
  check(receipt.contractAddress?.toLowerCase() === root.address.toLowerCase(), `provider ${i}: pool manager address`);
  check(
    BigInt(receipt.blockNumber ?? '0x0').toString() === root.deploymentBlockNumber &&
      receipt.blockHash === root.deploymentBlockHash,
    `provider ${i}: pool manager deployment block`,
  );
  const code = await client.getCode({ address: root.address as Hex, blockNumber: BigInt(root.deploymentBlockNumber) });
  check(keccak256(code ?? '0x') === root.runtimeCodeHash, `provider ${i}: pool manager code at its deployment block`);
  return problems;
}

/** The state of the bound evidence as the server holds it: not yet checked, or the last verification. */
export type EvidenceState = { kind: 'verifying' } | EvidenceVerification;

/**
 * Verifies the bound evidence at start-up and again every `retryMs` (DEPLOYMENT_EVIDENCE_RETRY_MS) while there is no
 * verdict (a provider unreachable, or the providers disagreeing); a verdict (verified or tampered) is final for the
 * process. Logs each outcome, never a URL.
 */
export function watchDeploymentEvidence(
  doc: ChainDeploymentV1,
  rpcUrls: readonly string[],
  options: EvidenceReadOptions & { retryMs?: number } = {},
): { state: () => EvidenceState; first: Promise<EvidenceState>; stop: () => void } {
  let state: EvidenceState = { kind: 'verifying' };
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let logged = '';
  const run = async () => {
    state = await verifyChainDeploymentEvidence(doc, rpcUrls, options);
    const fields = 'problems' in state ? { problems: state.problems } : {};
    const line = JSON.stringify([state.kind, fields]);
    // A retry that finds the same again is not logged again.
    if (line !== logged)
      logger[state.kind === 'verified' ? 'info' : 'error'](fields, `deployment evidence ${state.kind}`);
    logged = line;
    const verdict = state.kind === 'verified' || state.kind === 'tampered';
    if (!verdict && !stopped) timer = setTimeout(run, options.retryMs ?? 10_000);
  };
  const first = run().then(() => state);
  return {
    state: () => state,
    /** Resolves after the first attempt (a verdict, or no verdict yet and retrying). */
    first,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
