import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { auth, call, type Reply } from '../support/http.ts';
import {
  controlledBy,
  example,
  exampleBytes,
  exampleWithUnboundReference,
  freshV4Bytes,
  freshWallet,
  startServer,
  type TestServer,
  v4Example,
  v4FrozenExample,
} from '../support/server.ts';

let s: TestServer;
let key: string;
const base = () => `${s.url}/v4/chains/4663/custom-launches`;
const counts = () => ({
  launches: (s.db.prepare('SELECT count(*) AS n FROM launches').get() as { n: number }).n,
  idempotency: (s.db.prepare('SELECT count(*) AS n FROM idempotency_records').get() as { n: number }).n,
  admissions: (s.db.prepare('SELECT count(*) AS n FROM admissions').get() as { n: number }).n,
});
let seq = 0;
const idem = () => `test-key-${Date.now()}-${++seq}`.padEnd(16, 'x');
const create = (body: string, k = key, headers: Record<string, string> = {}) =>
  call(base(), { method: 'POST', headers: auth(k, { 'Idempotency-Key': idem(), ...headers }), body });

function expectApiError(r: Reply, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.json.error.code).toBe(code);
  expect(r.json.error.requestId).toBe(r.headers.get('x-request-id'));
  expect(typeof r.json.error.retryable).toBe('boolean');
}

beforeAll(async () => {
  s = await startServer();
  key = s.key();
});
afterAll(() => s.close());

describe('createCustomLaunchV4', () => {
  it('stores a new request durably in received and answers 202 with the resource', async () => {
    const before = counts();
    const r = await create(exampleBytes(v4Example));
    expect(r.status, r.text).toBe(202);
    expect(r.json).toMatchObject({
      status: 'received',
      chainId: '4663',
      profile: '4.1.0',
      walletTransaction: null,
      // The wallet review's metadata comes with the wallet transaction, not before.
      boundMetadata: null,
    });
    expect(r.json.launchId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.json.launchId).not.toBe(r.headers.get('x-request-id'));
    expect(counts()).toEqual({
      launches: before.launches + 1,
      idempotency: before.idempotency + 1,
      admissions: before.admissions + 1,
    });
    const row = s.db.prepare('SELECT status, request_bytes FROM launches WHERE launch_id = ?').get(r.json.launchId) as {
      status: string;
      request_bytes: Buffer;
    };
    expect(row.status).toBe('received');
    expect(row.request_bytes.toString('utf8')).toBe(exampleBytes(v4Example));
  });

  it('replays an exact retry as 200 with a byte-identical body and consumes nothing', async () => {
    const k = idem();
    const bytes = freshV4Bytes();
    const first = await create(bytes, key, { 'Idempotency-Key': k });
    const mid = counts();
    const replay = await create(bytes, key, { 'Idempotency-Key': k });
    expect(first.status).toBe(202);
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
    expect(counts()).toEqual(mid);
  });

  it('answers 409 IDEMPOTENCY_CONFLICT for the same key with other bytes, persisting nothing', async () => {
    const k = idem();
    const bytes = freshV4Bytes();
    await create(bytes, key, { 'Idempotency-Key': k });
    const before = counts();
    const other = await create(freshV4Bytes(v4FrozenExample), key, { 'Idempotency-Key': k });
    expectApiError(other, 409, 'IDEMPOTENCY_CONFLICT');
    expect(other.json.error.retryable).toBe(false);
    // Whitespace is a byte change too: the key binds the exact bytes, not the parsed value.
    const reformatted = await create(JSON.stringify(JSON.parse(bytes), null, 1), key, { 'Idempotency-Key': k });
    expectApiError(reformatted, 409, 'IDEMPOTENCY_CONFLICT');
    expect(counts()).toEqual(before);
  });

  it('scopes an idempotency key to its credential', async () => {
    const k = idem();
    const other = s.key();
    const a = await create(freshV4Bytes(), key, { 'Idempotency-Key': k });
    const b = await create(freshV4Bytes(), other, { 'Idempotency-Key': k });
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(a.json.launchId).not.toBe(b.json.launchId);
  });

  it('accepts the frozen 4.0.0 profile unchanged', async () => {
    const r = await create(freshV4Bytes(v4FrozenExample));
    expect(r.status, r.text).toBe(202);
    expect(r.json.profile).toBe('4.0.0');
  });
});

describe('chain, wallet and credential binding', () => {
  it('409 CHAIN_MISMATCH when the body names another chain than the path', async () => {
    const body = example(v4Example);
    body.chainId = '1';
    const before = counts();
    expectApiError(await create(JSON.stringify(body)), 409, 'CHAIN_MISMATCH');
    expectApiError(
      await call(`${base()}/preflight`, { method: 'POST', headers: auth(key), body: JSON.stringify(body) }),
      409,
      'CHAIN_MISMATCH',
    );
    expect(counts()).toEqual(before);
  });

  it('403 WALLET_MISMATCH when launchWallet is not the key wallet', async () => {
    const stranger = s.key({ wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' });
    const before = counts();
    expectApiError(await create(exampleBytes(v4Example), stranger), 403, 'WALLET_MISMATCH');
    expect(counts()).toEqual(before);
  });

  it('401 UNAUTHENTICATED without a key, with an unknown key, or with a malformed header', async () => {
    for (const headers of [
      { 'Content-Type': 'application/json' },
      auth('clk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
      { 'Content-Type': 'application/json', Authorization: `Basic ${key}` },
      { 'Content-Type': 'application/json', Authorization: key },
    ]) {
      const r = await call(base(), {
        method: 'POST',
        headers: { ...headers, 'Idempotency-Key': idem() },
        body: exampleBytes(v4Example),
      });
      expectApiError(r, 401, 'UNAUTHENTICATED');
      expect(r.text).not.toContain(key);
    }
    expectApiError(await call(base()), 401, 'UNAUTHENTICATED');
  });

  it('403 INSUFFICIENT_SCOPE for a key without the operation scope', async () => {
    const readOnly = s.key({ scopes: ['custom-launch:read'] });
    const createOnly = s.key({ scopes: ['custom-launch:create'] });
    const modules = s.key({ scopes: ['modules:submit', 'modules:read'] });
    expectApiError(await create(exampleBytes(v4Example), readOnly), 403, 'INSUFFICIENT_SCOPE');
    expectApiError(await create(exampleBytes(v4Example), modules), 403, 'INSUFFICIENT_SCOPE');
    expectApiError(await call(base(), { headers: auth(createOnly) }), 403, 'INSUFFICIENT_SCOPE');
    expect((await call(base(), { headers: auth(readOnly) })).status).toBe(200);
  });

  it('403 CHAIN_NOT_ALLOWED for a key without a chain-4663 grant', async () => {
    const baseLayerOnly = s.key({ chains: ['1'] });
    expectApiError(await create(exampleBytes(v4Example), baseLayerOnly), 403, 'CHAIN_NOT_ALLOWED');
    expectApiError(await call(base(), { headers: auth(baseLayerOnly) }), 403, 'CHAIN_NOT_ALLOWED');
  });
});

describe('request rules that need no chain (server rules of the create request schema)', () => {
  const broken: Array<[string, (b: any) => void, string]> = [
    [
      'projectMetadataHash binds the metadata',
      (b) => (b.projectMetadata.description += ' changed'),
      '/projectMetadataHash',
    ],
    [
      'allocations sum to the wallet transaction value',
      (b) =>
        (b.fundingPlan.walletTransactionValueWei = (BigInt(b.fundingPlan.walletTransactionValueWei) + 1n).toString()),
      '/fundingPlan/walletTransactionValueWei',
    ],
    ['fundingPlanHash binds the plan', (b) => (b.fundingPlan.maxGasCostWei = '1'), '/fundingPlan/fundingPlanHash'],
    [
      'the image artifact hash binds its bytes',
      (b) => (b.projectMetadataImageArtifact.sha256 = `sha256:${'0'.repeat(64)}`),
      '/projectMetadataImageArtifact/sha256',
    ],
    ['launchIntentHash binds the request', (b) => (b.nonce = `0x${'1'.repeat(64)}`), '/launchIntentHash'],
  ];
  it.each(broken)('%s: 400 INVALID_REQUEST naming the rule, nothing persisted', async (_name, mutate, location) => {
    const body = example(v4Example);
    mutate(body);
    const before = counts();
    for (const r of [
      await create(JSON.stringify(body)),
      await call(`${base()}/preflight`, { method: 'POST', headers: auth(key), body: JSON.stringify(body) }),
    ]) {
      expectApiError(r, 400, 'INVALID_REQUEST');
      expect(r.json.error.issues.map((i: { location: string }) => i.location)).toContain(location);
    }
    expect(counts()).toEqual(before);
  });
});

describe('graph rules, each alone: every other hash rebound', () => {
  const hookOf = (b: any) => b.graphBundle.targets.find((t: { role: string }) => t.role === 'hook');
  const graphRules: Array<[string, (b: any) => void, string]> = [
    [
      'a runtimeCodeHash that is not the keccak of the code',
      (b) => (b.graphBundle.targets[0].runtimeCodeHash = `0x${'ab'.repeat(32)}`),
      '/graphBundle/targets/0/runtimeCodeHash',
    ],
    [
      'a repeated target id',
      (b) => (b.graphBundle.targets[1].targetId = b.graphBundle.targets[0].targetId),
      '/graphBundle/targets/1/targetId',
    ],
    [
      'the same code at the same CREATE2 salt twice',
      (b) => {
        const [first, second] = b.graphBundle.targets;
        second.runtimeBytecode = first.runtimeBytecode;
        second.runtimeCodeHash = first.runtimeCodeHash;
        second.create2Salt = first.create2Salt;
      },
      '/graphBundle/targets/1',
    ],
    ['a hook mask that is not its flags', (b) => (hookOf(b).hookPermissions.mask ^= 1 << 13), 'hookPermissions/mask'],
    [
      'a returns-delta flag without its base flag',
      (b) => {
        const p = hookOf(b).hookPermissions;
        p.beforeSwap = false;
        p.beforeSwapReturnDelta = true;
        p.mask = (p.mask & ~(1 << 7)) | (1 << 3);
      },
      'hookPermissions/beforeSwapReturnDelta',
    ],
  ];
  it.each(graphRules)('%s: 400 naming only that rule', async (_name, mutate, location) => {
    const body = example(v4Example) as any;
    mutate(body);
    const r = await call(`${base()}/preflight`, {
      method: 'POST',
      headers: auth(key),
      body: JSON.stringify(bindRequestHashes(body, { keepHookSalt: true })),
    });
    expectApiError(r, 400, 'INVALID_REQUEST');
    const locations = r.json.error.issues.map((i: { location: string }) => i.location);
    expect(locations).toHaveLength(1);
    expect(locations[0]).toContain(location);
  });
});

describe('preflightCustomLaunchV4', () => {
  it('reports without side effects: no launch, no idempotency record, no admission', async () => {
    const before = counts();
    const r = await call(`${base()}/preflight`, {
      method: 'POST',
      headers: auth(key),
      body: exampleWithUnboundReference(),
    });
    expect(r.status, r.text).toBe(200);
    // An external contract reference gains no trust until it is bound on the chain.
    expect(r.json).toMatchObject({
      disposition: 'unsupported',
      launchEligibility: { deployable: false },
      platformAdmission: { status: 'no_blocking_static_finding', safetyClaim: false, feeBehaviorClaim: false },
    });
    expect(r.json.blockingFindingCodes).toEqual(['EXTERNAL_REFERENCE_UNBOUND']);
    expect(r.json.needsEvidenceFindingCodes).toEqual(['CALLBACK_GUARD_UNDECIDED', 'INITIAL_BUY_USD_UNPROVEN']);
    expect(r.json).not.toHaveProperty('launchId');
    expect(counts()).toEqual(before);
  });
});

describe('listCustomLaunchesV4 and getCustomLaunchV4 (lineage reads)', () => {
  it('lists only the credential lineage and hides foreign launches as 404 NOT_FOUND', async () => {
    const mine = await create(freshV4Bytes());
    const wallet = freshWallet();
    const other = s.key({ wallet });
    const theirs = await create(freshV4Bytes(v4Example, controlledBy(wallet)), other);
    const myList = await call(`${base()}?limit=25`, { headers: auth(key) });
    const ids = myList.json.launches.map((l: { launchId: string }) => l.launchId);
    expect(ids).toContain(mine.json.launchId);
    expect(ids).not.toContain(theirs.json.launchId);
    expect((await call(`${base()}/${mine.json.launchId}`, { headers: auth(key) })).json.launchId).toBe(
      mine.json.launchId,
    );
    const foreign = await call(`${base()}/${theirs.json.launchId}`, { headers: auth(key) });
    const missing = await call(`${base()}/00000000-0000-4000-8000-000000000000`, { headers: auth(key) });
    expectApiError(foreign, 404, 'NOT_FOUND');
    expectApiError(missing, 404, 'NOT_FOUND');
    expect(foreign.json.error.message).toBe(
      missing.json.error.message.replace('00000000-0000-4000-8000-000000000000', theirs.json.launchId),
    );
  });

  it('lists newest first', async () => {
    const wallet = freshWallet();
    const fresh = s.key({ wallet });
    const a = await create(freshV4Bytes(v4Example, controlledBy(wallet)), fresh);
    const b = await create(freshV4Bytes(v4Example, controlledBy(wallet)), fresh);
    const list = await call(base(), { headers: auth(fresh) });
    expect(list.json.launches.map((l: { launchId: string }) => l.launchId)).toEqual([b.json.launchId, a.json.launchId]);
    expect(list.json.nextCursor).toBeNull();
  });

  it('rejects a cursor issued for another credential', async () => {
    const wallet = freshWallet();
    const fresh = s.key({ wallet });
    await create(freshV4Bytes(v4Example, controlledBy(wallet)), fresh);
    await create(freshV4Bytes(v4Example, controlledBy(wallet)), fresh);
    const page = await call(`${base()}?limit=1`, { headers: auth(fresh) });
    expect(page.json.nextCursor).toEqual(expect.any(String));
    expectApiError(
      await call(`${base()}?cursor=${page.json.nextCursor}`, { headers: auth(key) }),
      400,
      'INVALID_REQUEST',
    );
  });
});
