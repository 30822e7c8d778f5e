import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MultiRoleLaunchChain } from '../../src/chain/multi-role-launch-chain.ts';
import { watchDeploymentEvidence } from '../../src/chain/verify-deployment-evidence.ts';
import { loadConfig } from '../../src/config.ts';
import { classifyStepFailure } from '../../src/domain/lifecycle/retry-policy.ts';
import { evidenceCheck } from '../../src/domain/public/deployment-evidence-check.ts';
import { type DevnetServer, devnetWallet, startDevnetServer } from '../support/devnet-server.ts';
import { auth, call } from '../support/http.ts';
import { type RpcFault, type RpcProxy, startRpcProxy } from '../support/rpc-proxy.ts';
import { v4DevnetLaunches } from '../support/v4-devnet-launch.ts';

/**
 * Two providers that can disagree: one devnet behind a JSON-RPC proxy per provider position of chain 4663, each
 * fault set on one position in turn. A launch never moves forward on one provider's word nor backward on one
 * provider's lie; it shows the fault in lifecycleQueue (retry_wait with CHAIN_RPC_UNAVAILABLE or
 * CHAIN_PROVIDERS_DISAGREE, spec/schemas/custom-launch-resource.v4.schema.json LifecycleQueue) and moves on once the
 * fault clears. The bound deployment evidence is not verified under a fault (readiness 503,
 * DEPLOYMENT_EVIDENCE_UNVERIFIED, never a tampered verdict) and is verified once it clears.
 */
const rpcTimeoutMs = 1000;
let running: DevnetServer;
let launches: ReturnType<typeof v4DevnetLaunches>;
let a: RpcProxy;
let b: RpcProxy;
/** The block of the bound deployment's root transaction. */
let deploymentBlock: number;

beforeAll(async () => {
  running = await startDevnetServer(
    'provider-faults',
    {
      LIFECYCLE_BACKOFF_MS: '100',
      LIFECYCLE_BACKOFF_MAX_MS: '400',
      LIFECYCLE_TRACKER_POLL_MS: '100',
      CHAIN_RPC_TIMEOUT_MS: String(rpcTimeoutMs),
      DEPLOYMENT_EVIDENCE_RETRY_MS: '200',
      VALIDATE_RESPONSES: 'true',
    },
    async (devnet) => {
      [a, b] = await Promise.all([startRpcProxy(devnet.deployment.rpcUrl), startRpcProxy(devnet.deployment.rpcUrl)]);
      deploymentBlock = Number(devnet.chainDeployment.deploymentEvidence.blockNumber);
      // The server starts while provider 2 answers another hash for the deployment block: its evidence is unverified.
      b.fault({ kind: 'hash', height: deploymentBlock });
      return { CHAIN_4663_RPC_URLS: `${a.url},${b.url}` };
    },
  );
  launches = v4DevnetLaunches(running);
}, 120_000);

// A failed test leaves no fault behind for the next one.
afterEach(() => {
  a?.fault({ kind: 'none' });
  b?.fault({ kind: 'none' });
});

afterAll(async () => {
  await running?.stop();
  await Promise.all([a?.close(), b?.close()]);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until `done` holds of it, checking `always` on every read (and on the last). */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, always: (v: T) => void = () => {}) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    always(value);
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out at ${JSON.stringify(value).slice(0, 2000)}`);
    await sleep(50);
  }
}

const feedIds = async () => {
  const r = await call(`${running.server.url}/v4/chains/4663/finalized-custom-launches?limit=25`);
  expect(r.status, r.text).toBe(200);
  return (r.json.launches as Array<{ launchId: string }>).map((l) => l.launchId);
};
const codes = (launch: { findings: Array<{ code: string }> }) => launch.findings.map((f) => f.code);

/**
 * Reads the launch until at least `holdMs` have passed and its queue shows `retry_wait`, checking `always` on every
 * read; answers the last read.
 */
async function retryingAfter(launchId: string, holdMs: number, always: (launch: any) => void) {
  const started = Date.now();
  return until(
    () => launches.launchOf(launchId),
    (l) => Date.now() - started >= holdMs && l.lifecycleQueue.state === 'retry_wait',
    always,
  );
}

/**
 * Holds the launch's status and chain evidence while the fault stands (at least `holdMs`, and until the queue shows
 * `code`), then clears the fault and waits for the queue to be clear again. Answers the launch seen under the fault.
 */
async function heldUnder(launch: any, proxy: RpcProxy, fault: RpcFault, code: string, holdMs = 1000) {
  proxy.fault(fault);
  const kept = (l: any) => {
    expect(l.status).toBe(launch.status);
    expect(l.chainEvidence).toEqual(launch.chainEvidence);
    expect(l.failure).toBeNull();
    expect(codes(l)).not.toContain('CHAIN_REORG_DETECTED');
  };
  const seen = await retryingAfter(launch.launchId, holdMs, kept);
  expect(seen.lifecycleQueue).toMatchObject({ state: 'retry_wait', lastErrorCode: code });
  expect(Date.parse(seen.lifecycleQueue.nextAttemptAt)).toBeGreaterThan(Date.parse(seen.createdAt));
  proxy.fault({ kind: 'none' });
  await until(
    () => launches.launchOf(launch.launchId),
    (l) => l.lifecycleQueue.lastErrorCode === null,
    kept,
  );
  return seen;
}

describe('the bound deployment evidence under one faulty provider', () => {
  it('the server started under a lie is not ready (503 DEPLOYMENT_EVIDENCE_UNVERIFIED), and ready once it clears', async () => {
    const ready = await call(`${running.server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.json.checks).toContainEqual({
      name: 'deployment_evidence',
      ok: false,
      reason: 'DEPLOYMENT_EVIDENCE_UNVERIFIED',
    });
    b.fault({ kind: 'none' });
    const after = await until(
      () => call(`${running.server.url}/readyz`),
      (r) => r.status === 200,
    );
    expect(after.json.checks).toContainEqual({ name: 'deployment_evidence', ok: true, reason: null });
  }, 30_000);

  /** The lag that leaves the deployment block just known to a provider, but not final on it. */
  const deepLag = async (): Promise<RpcFault> => ({
    kind: 'lag',
    blocks: Number(await launches.reader.getBlockNumber({ cacheTime: 0 })) - deploymentBlock,
  });
  const faults: Array<[string, 'verified' | 'no verdict', () => RpcProxy, () => Promise<RpcFault> | RpcFault]> = [
    ['provider 2 down', 'no verdict', () => b, () => ({ kind: 'down' })],
    // The deployment block is final long before: a provider 100 blocks behind still confirms all of it.
    ['provider 1 lagging 100 blocks', 'verified', () => a, () => ({ kind: 'lag', blocks: 100 })],
    ['provider 2 lagging 100 blocks', 'verified', () => b, () => ({ kind: 'lag', blocks: 100 })],
    ['provider 2 lagging until the deployment block is not final on it', 'no verdict', () => b, deepLag],
    [
      'provider 2 answering another hash at the deployment block',
      'no verdict',
      () => b,
      () => ({ kind: 'hash', height: deploymentBlock }),
    ],
    ['provider 1 answering other code', 'no verdict', () => a, () => ({ kind: 'code' })],
    ['provider 2 answering other code', 'no verdict', () => b, () => ({ kind: 'code' })],
    ['provider 2 timing out on eth_getCode', 'no verdict', () => b, () => ({ kind: 'hang', method: 'eth_getCode' })],
  ];
  it.each(faults)(
    '%s: %s while it stands, verified once it clears',
    async (_name, want, proxy, fault) => {
      proxy().fault(await fault());
      const watch = watchDeploymentEvidence(running.devnet.chainDeployment, [a.url, b.url], {
        retryMs: 100,
        timeoutMs: rpcTimeoutMs,
      });
      try {
        const first = await watch.first;
        if (want === 'verified') {
          expect(first).toEqual({ kind: 'verified' });
          return;
        }
        expect(['unreachable', 'disagreeing']).toContain(first.kind);
        expect(evidenceCheck(first.kind)).toEqual({ ok: false, reason: 'DEPLOYMENT_EVIDENCE_UNVERIFIED' });
        proxy().fault({ kind: 'none' });
        await until(
          async () => watch.state().kind,
          (kind) => kind === 'verified',
          (kind) => expect(kind).not.toBe('tampered'),
        );
      } finally {
        watch.stop();
        proxy().fault({ kind: 'none' });
      }
    },
    30_000,
  );
});

describe('a launch under one faulty provider', () => {
  let first: any;
  let height: number;

  it('other code on one provider holds the launch at its chain gates (CHAIN_PROVIDERS_DISAGREE), then it is authorized', async () => {
    b.fault({ kind: 'code' });
    const handedOff = launches.handedOff();
    const list = async () => {
      const r = await call(`${running.server.url}/v4/chains/4663/custom-launches`, { headers: auth(running.key) });
      return r.json.launches as any[];
    };
    const started = Date.now();
    await until(
      list,
      (ls) => {
        const l = ls[0];
        return Date.now() - started > 1000 && l?.lifecycleQueue?.lastErrorCode === 'CHAIN_PROVIDERS_DISAGREE';
      },
      (ls) => expect(['received', 'validating']).toContain(ls[0]?.status ?? 'received'),
    );
    b.fault({ kind: 'none' });
    first = await handedOff;
    expect(first.status).toBe('awaiting_wallet_signature');
  }, 60_000);

  it('a provider lagging 100 blocks: the exact transaction is not accepted on the other provider alone', async () => {
    b.fault({ kind: 'lag', blocks: 100 });
    const receipt = await launches.send(first.walletTransaction);
    height = Number(receipt.blockNumber);
    await sleep(1500);
    const held = await launches.launchOf(first.launchId);
    expect(held.status).toBe('awaiting_wallet_signature');
    expect(held.chainEvidence).toBeNull();
    // No failed poll: the search simply stops at the lower of the two heads.
    expect(held.lifecycleQueue.lastErrorCode).toBeNull();
    b.fault({ kind: 'none' });
    first = await launches.until(first.launchId, ['sequencer_soft_confirmed']);
    expect(first.chainEvidence).toMatchObject({
      transactionHash: receipt.transactionHash,
      blockNumber: String(height),
    });
  }, 30_000);

  it('another hash at the launch height on one provider is no reorg: the status holds (CHAIN_PROVIDERS_DISAGREE)', async () => {
    await heldUnder(first, b, { kind: 'hash', height }, 'CHAIN_PROVIDERS_DISAGREE');
    await heldUnder(first, a, { kind: 'hash', height }, 'CHAIN_PROVIDERS_DISAGREE');
  }, 30_000);

  it('a provider timing out mid-poll holds the status (CHAIN_RPC_UNAVAILABLE)', async () => {
    const fault: RpcFault = { kind: 'hang', method: 'eth_getBlockByNumber', height };
    const seen = await heldUnder(first, b, fault, 'CHAIN_RPC_UNAVAILABLE', 2 * rpcTimeoutMs + 500);
    expect(seen.status).toBe('sequencer_soft_confirmed');
  }, 30_000);

  it('a provider down holds the status (CHAIN_RPC_UNAVAILABLE)', async () => {
    await heldUnder(first, a, { kind: 'down' }, 'CHAIN_RPC_UNAVAILABLE');
    await heldUnder(first, b, { kind: 'down' }, 'CHAIN_RPC_UNAVAILABLE');
  }, 30_000);

  it('a provider lagging 100 blocks holds finality back (no feed row), then the launch is finalized', async () => {
    b.fault({ kind: 'lag', blocks: 100 });
    await launches.testClient.mine({ blocks: 65 });
    const seen = await retryingAfter(first.launchId, 1000, (l) => {
      expect(l.status).toBe('sequencer_soft_confirmed');
      expect(codes(l)).not.toContain('CHAIN_REORG_DETECTED');
    });
    expect(seen.lifecycleQueue.lastErrorCode).toBe('CHAIN_PROVIDERS_DISAGREE');
    expect(await feedIds()).not.toContain(first.launchId);
    b.fault({ kind: 'none' });
    first = await launches.until(first.launchId, ['finalized']);
    expect(await feedIds()).toContain(first.launchId);
  }, 30_000);

  it('a finalized launch keeps its status under a lie about its block', async () => {
    b.fault({ kind: 'hash', height });
    await sleep(800);
    b.fault({ kind: 'none' });
    const after = await launches.launchOf(first.launchId);
    expect(after.status).toBe('finalized');
    expect(after.chainEvidence).toEqual(first.chainEvidence);
    expect(await feedIds()).toContain(first.launchId);
  }, 30_000);

  it('another hash at the height of a new transaction on one provider: not accepted until both agree', async () => {
    const second = await launches.handedOff();
    // From the next block on (the devnet's price publisher may mine one first), provider 2 answers other hashes.
    const next = Number(await launches.reader.getBlockNumber({ cacheTime: 0 })) + 1;
    b.fault({ kind: 'hash', height: next, andNewer: true });
    const receipt = await launches.send(second.walletTransaction);
    expect(Number(receipt.blockNumber)).toBeGreaterThanOrEqual(next);
    const seen = await retryingAfter(second.launchId, 1000, (l) => {
      expect(l.status).toBe('awaiting_wallet_signature');
      expect(l.chainEvidence).toBeNull();
    });
    expect(seen.lifecycleQueue.lastErrorCode).toBe('CHAIN_PROVIDERS_DISAGREE');
    b.fault({ kind: 'none' });
    const soft = await launches.until(second.launchId, ['sequencer_soft_confirmed']);
    expect(soft.chainEvidence).toMatchObject({
      transactionHash: receipt.transactionHash,
      blockHash: receipt.blockHash,
    });
  }, 60_000);
});

/**
 * The V3 and shared lanes read their chain through one shared class (LaneLaunchChain; here as the shared lane's
 * MultiRoleLaunchChain on this devnet): its trackers take a null block hash for a reorg, a transaction and a receipt
 * for the chain's, and search up to its head. One provider's lie or lag must throw (a transient failure that holds
 * the status), never answer.
 */
describe("the lanes' shared chain reads under one faulty provider", () => {
  const chain = () => new MultiRoleLaunchChain([a.url, b.url], running.devnet.multiRoleDeployment);
  /** What a read gives: its value, or the transient code its failure shows in lifecycleQueue. */
  const outcome = <T>(read: Promise<T>) =>
    read.then(
      (value) => ({ value }),
      (err: unknown) => ({ transient: classifyStepFailure(err) }),
    );

  it.each([
    ['another hash at the height', 'CHAIN_PROVIDERS_DISAGREE', (h: number): RpcFault => ({ kind: 'hash', height: h })],
    ['lagging 100 blocks', 'CHAIN_PROVIDERS_DISAGREE', (): RpcFault => ({ kind: 'lag', blocks: 100 })],
    ['down', 'CHAIN_RPC_UNAVAILABLE', (): RpcFault => ({ kind: 'down' })],
  ])(
    'provider 2 %s: the block hash, the transaction and the receipt are no answer (%s)',
    async (_name, code, fault) => {
      // A fresh transaction in the newest block: a provider 100 blocks behind does not have it.
      const receipt = await launches.send({ to: devnetWallet, valueWei: '0', data: '0x', gasLimit: '21000' });
      const [tx, height] = [receipt.transactionHash, Number(receipt.blockNumber)];
      const block = { number: receipt.blockNumber, hash: receipt.blockHash };
      expect(await outcome(chain().agreedBlockHash(block.number))).toEqual({ value: block.hash });
      b.fault(fault(height));
      const want = { transient: { kind: 'transient', code } };
      expect(await outcome(chain().agreedBlockHash(block.number))).toEqual(want);
      expect(await outcome(chain().transaction(tx))).toEqual(want);
      if (code !== 'CHAIN_RPC_UNAVAILABLE') {
        // A receipt carries the block hash and number: a lie or a lag shows there too.
        expect(await outcome(chain().receiptStatus(tx))).toEqual(want);
      }
      b.fault({ kind: 'none' });
      expect(await outcome(chain().agreedBlockHash(block.number))).toEqual({ value: block.hash });
      expect((await chain().transaction(tx))?.blockHash).toBe(block.hash);
    },
    30_000,
  );

  it('the head the lanes search up to is the lower of the two', async () => {
    b.fault({ kind: 'lag', blocks: 100 });
    // The devnet's price publisher may mine meanwhile: the heads read before and after (uncached) bound it.
    const before = await launches.reader.getBlockNumber({ cacheTime: 0 });
    const agreed = await chain().agreedHead();
    const after = await launches.reader.getBlockNumber({ cacheTime: 0 });
    expect(agreed.number).toBeGreaterThanOrEqual(before - 100n);
    expect(agreed.number).toBeLessThanOrEqual(after - 100n);
  }, 30_000);
});

describe('the provider timeout and the evidence retry settings', () => {
  it.each([
    ['CHAIN_RPC_TIMEOUT_MS unset', {}, 'chainRpcTimeoutMs', 20_000],
    ['CHAIN_RPC_TIMEOUT_MS at its least', { CHAIN_RPC_TIMEOUT_MS: '1' }, 'chainRpcTimeoutMs', 1],
    ['CHAIN_RPC_TIMEOUT_MS below it', { CHAIN_RPC_TIMEOUT_MS: '0' }, 'chainRpcTimeoutMs', 'must be at least 1'],
    ['DEPLOYMENT_EVIDENCE_RETRY_MS unset', {}, 'deploymentEvidenceRetryMs', 10_000],
    [
      'DEPLOYMENT_EVIDENCE_RETRY_MS at its least',
      { DEPLOYMENT_EVIDENCE_RETRY_MS: '1' },
      'deploymentEvidenceRetryMs',
      1,
    ],
    [
      'DEPLOYMENT_EVIDENCE_RETRY_MS below it',
      { DEPLOYMENT_EVIDENCE_RETRY_MS: '0' },
      'deploymentEvidenceRetryMs',
      'must be at least 1',
    ],
  ] as const)('%s', (_name, env, field, want) => {
    if (typeof want === 'string') expect(() => loadConfig(env)).toThrow(want);
    else expect(loadConfig(env)[field]).toBe(want);
  });
});
