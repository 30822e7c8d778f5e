import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createTestClient, createWalletClient, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { chain4663 } from '../../src/chain/chain.ts';
import { packLaunchProject } from '../../src/client/launches/pack/pack.ts';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { devnetOperatorKey, startAnvil } from '../../src/devnet/anvil.ts';
import { devnetServerEnv, startDevnet } from '../../src/devnet/devnet.ts';
import { openDatabase } from '../../src/store/db.ts';
import { devnetWallet } from '../support/devnet-server.ts';
import { auth, call } from '../support/http.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';
import { deliverExampleSources } from '../support/sources.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

/**
 * Transient outages never fail a launch (spec/schemas/custom-launch-resource.v4.schema.json, LifecycleQueue): real
 * server processes on one devnet, each provider reached through a TCP relay the test cuts and restores. The old
 * bound (LIFECYCLE_MAX_ATTEMPTS = 5) would have failed these launches after 5 attempts, 1.5 s at this backoff.
 */
const project = new URL('../../examples/example-launch', import.meta.url).pathname;
const oldMaxAttempts = 5;

let dir: string;
let devnet: Awaited<ReturnType<typeof startDevnet>>;
let bare: Awaited<ReturnType<typeof startAnvil>>;
const proxies: TcpProxy[] = [];
let outage: { server: ServerProcess; key: string; a: TcpProxy; b: TcpProxy };
let deadline: { server: ServerProcess; key: string; a: TcpProxy; b: TcpProxy };
/** The launch the first test hands off to the wallet; the later ones follow it. */
let launchId: string;
/** The example project packed for this devnet, once (packing compiles). */
let packed: ReturnType<typeof packLaunchProject>;

/** A server process whose two provider URLs go through their own relays, with its own database and wallet key. */
async function startServer(name: string, [a, b]: TcpProxy[], env: Record<string, string>) {
  if (!a || !b) throw new Error('two relays');
  const databasePath = join(dir, `${name}.sqlite`);
  const db = openDatabase(databasePath);
  const key = mintWalletKey(db, {
    wallet: devnetWallet,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    chains: ['4663'],
  }).apiKey;
  db.close();
  const server = await startServerProcess({
    ...devnetServerEnv(devnet.deployment, dir),
    CHAIN_4663_RPC_URLS: `${a.url},${b.url}`,
    DATABASE_PATH: databasePath,
    LIFECYCLE_POLL_MS: '50',
    LIFECYCLE_BACKOFF_MS: '100',
    LIFECYCLE_BACKOFF_MAX_MS: '400',
    LIFECYCLE_TRACKER_POLL_MS: '200',
    ...env,
  });
  return { server, key, a, b };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'custom-launch-outage-'));
  [devnet, bare] = await Promise.all([startDevnet({ outputDir: dir }), startAnvil()]);
  proxies.push(...(await Promise.all([1, 2, 3, 4].map(() => startTcpProxy(devnet.deployment.rpcUrl)))));
  // The processes are spawned before the example is packed (packing compiles, on this thread): both proceed at once.
  const servers = Promise.all([
    startServer('outage', proxies.slice(0, 2), { LIFECYCLE_VALIDATION_DEADLINE_MS: '600000' }),
    // 8 s: room for well over the old bound's 5 attempts at this backoff even on a loaded 2-core machine.
    startServer('deadline', proxies.slice(2, 4), { LIFECYCLE_VALIDATION_DEADLINE_MS: '8000' }),
  ]);
  packed = packLaunchProject(project, { chainDeployment: devnet.chainDeployment });
  [outage, deadline] = await servers;
}, 120_000);
afterAll(async () => {
  await Promise.all([outage?.server.stop(), deadline?.server.stop()]);
  await Promise.all(proxies.map((p) => p.close()));
  await Promise.all([devnet?.stop(), bare?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

/** Creates a launch of the example project, its request edited first if asked, and delivers its sources. */
async function create(on: { server: ServerProcess; key: string }, edit?: (r: CustomLaunchCreateRequestV4) => void) {
  let body: Buffer = packed.bytes;
  if (edit) {
    const request = structuredClone(packed.request);
    edit(request);
    body = Buffer.from(JSON.stringify(bindRequestHashes(request)));
  }
  const r = await call(`${on.server.url}/v4/chains/4663/custom-launches`, {
    method: 'POST',
    headers: auth(on.key, { 'Idempotency-Key': `outage-${Math.random().toString(36).slice(2)}-0001` }),
    body,
  });
  expect(r.status, r.text).toBe(202);
  // The permit waits for the sources (SOURCE_FILES_PENDING): the outage starts at the chain gates after them.
  await deliverExampleSources(on.server.url, on.key, r.json.launchId, body.toString('utf8'), { projectDir: project });
  return r.json.launchId as string;
}

async function read(on: { server: ServerProcess; key: string }, launchId: string) {
  const r = await call(`${on.server.url}/v4/chains/4663/custom-launches/${launchId}`, { headers: auth(on.key) });
  expect(r.status, r.text).toBe(200);
  return r.json;
}

/** Polls until `done` holds, checking `always` on every read on the way (and on the last). */
async function until(
  on: { server: ServerProcess; key: string },
  launchId: string,
  done: (launch: any) => boolean,
  always: (launch: any) => void = () => undefined,
  timeoutMs = 20_000,
) {
  const started = Date.now();
  for (;;) {
    const launch = await read(on, launchId);
    always(launch);
    if (done(launch)) return launch;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out: ${JSON.stringify(launch.lifecycleQueue)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every read during a transient outage: the status held, nothing failed, the backoff shown and growing. */
function waiting(statuses: string[]) {
  let lastAttempt = 0;
  return (launch: any) => {
    expect(statuses).toContain(launch.status);
    expect(launch.failure).toBeNull();
    const q = launch.lifecycleQueue;
    expect(q.attempt).toBeGreaterThanOrEqual(lastAttempt);
    lastAttempt = q.attempt;
    if (q.state === 'retry_wait') {
      expect(Date.parse(q.nextAttemptAt)).toBeGreaterThan(Date.parse(launch.updatedAt) - 1);
      expect(q.lastErrorCode).toMatch(
        /^(CHAIN_RPC_UNAVAILABLE|CHAIN_PROVIDERS_DISAGREE|INITIAL_BUY_QUOTE_UNAVAILABLE)$/,
      );
    }
  };
}

describe('a transient outage keeps the launch in its status (LifecycleQueue)', () => {
  let revertingId: string;

  it('waits out unreachable providers, a missing quote and disagreeing providers, then authorizes', async () => {
    const { a, b } = outage;
    a.cut();
    b.cut();
    launchId = await create(outage);
    const delivered = Date.now();
    // A definitive outcome still changes the status: a request whose exact simulation reverts.
    revertingId = await create(outage, (r) => {
      if (r.profile === '4.1.0') r.fundingPlan.initialBuy.minTokenOut = '1000000000000000000000000000';
    });
    const created = await read(outage, launchId);
    // createdAt plus 600 s, moved on by the time the step waited idle for the sources (at most until delivered).
    const deadlineAt = created.lifecycleQueue.deadlineAt as string;
    expect(Date.parse(deadlineAt)).toBeGreaterThanOrEqual(Date.parse(created.createdAt) + 600_000);
    expect(Date.parse(deadlineAt)).toBeLessThanOrEqual(delivered + 600_000);
    const check = waiting(['received', 'validating']);

    // Nothing answers: the quote read through provider 1 fails first. More attempts than the old bound allowed.
    let launch = await until(
      outage,
      launchId,
      (l) => l.lifecycleQueue.state === 'retry_wait' && l.lifecycleQueue.attempt > oldMaxAttempts + 3,
      (l) => {
        check(l);
        expect(l.lifecycleQueue.deadlineAt).toBe(deadlineAt);
      },
    );
    expect(launch.status).toBe('validating');
    expect(launch.lifecycleQueue).toMatchObject({
      state: 'retry_wait',
      lastErrorCode: 'INITIAL_BUY_QUOTE_UNAVAILABLE',
    });
    await until(
      outage,
      revertingId,
      (l) => l.lifecycleQueue.attempt > oldMaxAttempts,
      waiting(['received', 'validating']),
    );

    // Provider 1 is back, provider 2 still unreachable: the chain gates cannot read it.
    a.restore();
    const before = launch.lifecycleQueue.attempt;
    launch = await until(outage, launchId, (l) => l.lifecycleQueue.lastErrorCode === 'CHAIN_RPC_UNAVAILABLE', check);
    launch = await until(outage, launchId, (l) => l.lifecycleQueue.attempt >= before + 3, check);
    expect(launch.lifecycleQueue.lastErrorCode).toBe('CHAIN_RPC_UNAVAILABLE');

    // Provider 2 answers from another node, without the bound deployment: the providers disagree.
    b.restore(bare.url);
    launch = await until(outage, launchId, (l) => l.lifecycleQueue.lastErrorCode === 'CHAIN_PROVIDERS_DISAGREE', check);
    expect(launch.status).toBe('validating');

    // Both providers agree again: the launch resumes and reaches the wallet handoff.
    b.restore(devnet.deployment.rpcUrl);
    launch = await until(
      outage,
      launchId,
      (l) => l.status === 'awaiting_wallet_signature',
      (l) => expect(['received', 'validating', 'authorized', 'awaiting_wallet_signature']).toContain(l.status),
    );
    expect(launch.walletTransaction).not.toBeNull();
    expect(launch.lifecycleQueue).toEqual({
      state: 'idle',
      attempt: 0,
      deadlineAt: launch.walletTransaction.permitExpiresAt,
      nextAttemptAt: null,
      lastErrorCode: null,
    });

    const reverted = await until(outage, revertingId, (l) => !['received', 'validating'].includes(l.status));
    expect(reverted.status).toBe('action_required');
    expect(reverted.remediation.findingCodes).toEqual(['ROUTER_SIMULATION_REVERTED']);
    expect(reverted.lifecycleQueue).toMatchObject({ state: 'idle', deadlineAt: null, lastErrorCode: null });
  }, 60_000);

  it('keeps a launch awaiting its wallet signature while the tracker cannot read the chain', async () => {
    const { a, b } = outage;
    a.cut();
    b.cut();
    const check = waiting(['awaiting_wallet_signature']);
    let launch = await until(
      outage,
      launchId,
      (l) => l.lifecycleQueue.state === 'retry_wait' && l.lifecycleQueue.attempt >= 3,
      check,
    );
    expect(launch.lifecycleQueue.lastErrorCode).toBe('CHAIN_RPC_UNAVAILABLE');
    expect(launch.lifecycleQueue.deadlineAt).toBe(launch.walletTransaction.permitExpiresAt);
    a.restore();
    b.restore();
    // A successful poll clears the failed ones: the attempt count starts again.
    launch = await until(
      outage,
      launchId,
      (l) => l.lifecycleQueue.state === 'idle',
      (l) => expect(l.status).toBe('awaiting_wallet_signature'),
    );
    expect(launch.status).toBe('awaiting_wallet_signature');
    expect(launch.lifecycleQueue).toMatchObject({ attempt: 0, nextAttemptAt: null, lastErrorCode: null });
  }, 40_000);
});

describe('the validation deadline (LIFECYCLE_VALIDATION_DEADLINE_MS)', () => {
  it('fails a launch still waiting out an outage once its deadline passes, and only then', async () => {
    const { a, b } = deadline;
    a.cut();
    b.cut();
    const launchId = await create(deadline);
    const delivered = Date.now();
    const created = await read(deadline, launchId);
    // createdAt plus 8 s, moved on by the time the step waited idle for the sources (at most until they were all
    // delivered): that wait is the controller's, not the lifecycle's.
    const deadlineMs = Date.parse(created.lifecycleQueue.deadlineAt);
    expect(deadlineMs).toBeGreaterThanOrEqual(Date.parse(created.createdAt) + 8_000);
    expect(deadlineMs).toBeLessThanOrEqual(delivered + 8_000);
    const check = waiting(['received', 'validating']);
    let seenBefore = 0;
    const launch = await until(
      deadline,
      launchId,
      (l) => l.status === 'failed',
      (l) => {
        if (l.status === 'failed') return;
        // Before the deadline the launch only waits (the margin covers one attempt and this read on a loaded machine).
        expect(Date.now()).toBeLessThan(deadlineMs + 3_000);
        check(l);
        if (Date.now() < deadlineMs) seenBefore++;
      },
    );
    expect(seenBefore).toBeGreaterThan(3);
    expect(Date.parse(launch.failure.failedAt)).toBeGreaterThanOrEqual(deadlineMs);
    expect(launch.failure).toMatchObject({
      code: 'LIFECYCLE_VALIDATION_DEADLINE_PASSED',
      remediation: { findingCodes: ['LIFECYCLE_VALIDATION_DEADLINE_PASSED'], newRequestRequired: true },
    });
    expect(launch.lifecycleQueue).toMatchObject({
      state: 'exhausted',
      deadlineAt: null,
      nextAttemptAt: null,
      lastErrorCode: 'INITIAL_BUY_QUOTE_UNAVAILABLE',
    });
    expect(launch.lifecycleQueue.attempt).toBeGreaterThan(oldMaxAttempts);

    // The chain coming back changes nothing: failed is terminal.
    a.restore();
    b.restore();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await read(deadline, launchId)).status).toBe('failed');
  }, 30_000);
});

describe("the permit's expiry after an outage (LAUNCH_PERMIT_EXPIRED)", () => {
  it('is decided only once every block up to the head was searched: a transaction mined later is still found', async () => {
    const { a, b } = outage;
    const chain = chain4663(devnet.deployment.rpcUrl);
    const testClient = createTestClient({ mode: 'anvil', chain, transport: http(devnet.deployment.rpcUrl) });
    const reader = createPublicClient({ chain, transport: http(devnet.deployment.rpcUrl) });
    const wallet = createWalletClient({ chain, transport: http(devnet.deployment.rpcUrl) });
    const before = await read(outage, launchId);
    expect(before.status).toBe('awaiting_wallet_signature');
    const tx = before.walletTransaction;

    // While the server cannot read the chain, more blocks than one poll scans (500) pass, then the wallet sends the
    // exact transaction before the permit expires, then the chain's clock passes the permit's expiry.
    a.cut();
    b.cut();
    await testClient.mine({ blocks: 600 });
    const hash = await wallet.sendTransaction({
      account: privateKeyToAccount(devnetOperatorKey),
      chain,
      to: tx.to as Hex,
      value: BigInt(tx.valueWei),
      data: tx.data as Hex,
      gas: BigInt(tx.gasLimit),
    });
    const receipt = await reader.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    await testClient.increaseTime({ seconds: 7_200 });
    await testClient.mine({ blocks: 1 });
    const head = await reader.getBlock({ blockTag: 'latest' });
    expect(Number(head.timestamp) * 1000).toBeGreaterThan(Date.parse(tx.permitExpiresAt));

    a.restore();
    b.restore();
    const launch = await until(
      outage,
      launchId,
      (l) => l.status === 'sequencer_soft_confirmed' && l.lifecycleQueue.state === 'idle',
      (l) => expect(l.status).not.toBe('failed'),
    );
    expect(launch.chainEvidence).toMatchObject({ transactionHash: hash, blockNumber: String(receipt.blockNumber) });
    expect(launch.lifecycleQueue).toMatchObject({ state: 'idle', deadlineAt: null });
  }, 40_000);
});
