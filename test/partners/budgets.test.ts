import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { auth, call, type Reply } from '../support/http.ts';
import { example, exampleBytes, freshV4Bytes, startServer, type TestServer, v4Example } from '../support/server.ts';

/**
 * Partner budgets (spec/schemas/partner-subkey-request.v1.schema.json; the 429s of preflightCustomLaunchV4,
 * createCustomLaunchV4 and the subkey operations; src/http/rate-limit.ts PartnerBudgets): preflight and create spend
 * prepareRequestsPerHour, list and detail readRequestsPerMinute (both per lineage), every subkey-admin operation the
 * root's subkeyAdminRequestsPerHour. Fixed windows of 1 h / 1 min / 1 h opened by the first request. The clock is
 * injected, so every boundary is met on both sides; the route budget and the admission quota are set far out of the
 * way.
 */

const t0 = Date.parse('2027-03-01T00:00:00.000Z');
let t = t0;
let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});
async function server(): Promise<TestServer> {
  t = t0;
  s = await startServer(
    { routeBudgetPerMinute: 1_000_000, admissionPerHour: 1_000_000, admissionPerDay: 1_000_000 },
    () => t,
  );
  return s;
}

/** common.schema.json $defs.RequestId: req_ and 32 lowercase hex digits, never a UUID. */
const requestIdPattern = /^req_[0-9a-f]{32}$/;
let seq = 0;
const idem = (tag = 'budget') => `${tag}-${++seq}`.padEnd(16, 'x');
/** The running server of the current test. */
function current(): TestServer {
  if (!s) throw new Error('no server started');
  return s;
}
const launchesUrl = () => `${current().url}/v4/chains/4663/custom-launches`;
const launchCount = () => (current().db.prepare('SELECT count(*) AS n FROM launches').get() as { n: number }).n;
const subkeyCount = () =>
  (current().db.prepare(`SELECT count(*) AS n FROM api_keys WHERE kind = 'subkey'`).get() as { n: number }).n;

const subkeyRequest = (budgets: { prepare: number; read: number }, name = 'budgeted') =>
  JSON.stringify({
    displayName: name,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    prepareRequestsPerHour: budgets.prepare,
    readRequestsPerMinute: budgets.read,
    expiresAt: '2030-12-31T23:59:59.000Z',
  });

const issueCall = (root: string, body: string, key = idem('issue')) =>
  call(`${current().url}/v1/partner/subkeys`, {
    method: 'POST',
    headers: auth(root, { 'Idempotency-Key': key }),
    body,
  });
const rotateCall = (root: string, id: string, body: string, key = idem('rotate')) =>
  call(`${current().url}/v1/partner/subkeys/${id}/rotate`, {
    method: 'POST',
    headers: auth(root, { 'Idempotency-Key': key }),
    body,
  });
const revokeCall = (root: string, id: string) =>
  call(`${current().url}/v1/partner/subkeys/${id}`, { method: 'DELETE', headers: auth(root) });
const listSubkeysCall = (root: string) => call(`${current().url}/v1/partner/subkeys`, { headers: auth(root) });

async function issue(root: string, budgets: { prepare: number; read: number }) {
  const r = await issueCall(root, subkeyRequest(budgets));
  expect(r.status, r.text).toBe(201);
  return r.json as { apiKey: string; subkeyId: string; lineageId: string };
}

const preflight = (key: string, body = exampleBytes(v4Example)) =>
  call(`${launchesUrl()}/preflight`, { method: 'POST', headers: auth(key), body });
const create = (key: string, body = freshV4Bytes()) =>
  call(launchesUrl(), { method: 'POST', headers: auth(key, { 'Idempotency-Key': idem('create') }), body });
const list = (key: string) => call(launchesUrl(), { headers: auth(key) });
const detail = (key: string, id: string) => call(`${launchesUrl()}/${id}`, { headers: auth(key) });

/** Served: any answer but 429. */
function expectServed(r: Reply): void {
  expect(r.status, r.text).not.toBe(429);
}

/** 429 RATE_LIMITED with an integer Retry-After (1..max) equal to error.retryAfterSeconds, retryable, requestId. */
function expectRateLimited(r: Reply, maxSeconds: number, exactSeconds?: number): void {
  expect(r.status, r.text).toBe(429);
  expect(r.json.error.code).toBe('RATE_LIMITED');
  expect(r.json.error.retryable).toBe(true);
  expect(r.json.error.requestId).toMatch(requestIdPattern);
  expect(r.json.error.requestId).toBe(r.headers.get('x-request-id'));
  const header = r.headers.get('retry-after') ?? '';
  expect(header).toMatch(/^[0-9]+$/);
  const seconds = Number(header);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(maxSeconds);
  expect(r.json.error.retryAfterSeconds).toBe(seconds);
  if (exactSeconds !== undefined) expect(seconds).toBe(exactSeconds);
}

describe('prepareRequestsPerHour (per lineage; preflight and create)', () => {
  it('serves N mixed preflight/create requests, refuses N+1 with Retry-After, and serves again after the hour', async () => {
    const srv = await server();
    const root = srv.partnerRoot({ now: t });
    const sub = await issue(root.apiKey, { prepare: 3, read: 100 });
    expectServed(await preflight(sub.apiKey)); // the window opens at t0
    t += 1_000;
    const first = await create(sub.apiKey);
    expect(first.status, first.text).toBe(202);
    t += 9_000;
    expectServed(await preflight(sub.apiKey));
    const before = launchCount();
    const refused = await create(sub.apiKey);
    // The window opened at t0 and it is now t0 + 10 s: 3590 s remain.
    expectRateLimited(refused, 3600, 3590);
    expect(launchCount()).toBe(before);
    expectRateLimited(await preflight(sub.apiKey), 3600, 3590);
    // One millisecond before the window ends: still refused, with the smallest Retry-After.
    t = t0 + 3_600_000 - 1;
    expectRateLimited(await create(sub.apiKey), 3600, 1);
    // At the window's end a new window opens.
    t = t0 + 3_600_000;
    const again = await create(sub.apiKey);
    expect(again.status, again.text).toBe(202);
    expectServed(await preflight(sub.apiKey));
    expectServed(await preflight(sub.apiKey));
    expectRateLimited(await preflight(sub.apiKey), 3600, 3600);
  });

  it('counts requests whose body fails validation (the budget is taken before validation)', async () => {
    const srv = await server();
    const root = srv.partnerRoot({ now: t });
    const sub = await issue(root.apiKey, { prepare: 3, read: 100 });
    const invalidSchema = await preflight(sub.apiKey, '{}');
    expect(invalidSchema.status, invalidSchema.text).toBe(400);
    expect((await create(sub.apiKey, JSON.stringify({ chainId: '4663' }))).status).toBe(400);
    // A body bound to another chain: 409 CHAIN_MISMATCH, also after the budget was taken.
    const otherChain = example(v4Example);
    otherChain.chainId = '1';
    expect((await create(sub.apiKey, JSON.stringify(otherChain))).status).toBe(409);
    // The budget is gone: a valid request is refused.
    expectRateLimited(await create(sub.apiKey), 3600);
    expectRateLimited(await preflight(sub.apiKey, '{}'), 3600);
  });

  it('reads do not spend the prepare budget', async () => {
    const srv = await server();
    const root = srv.partnerRoot({ now: t });
    const sub = await issue(root.apiKey, { prepare: 2, read: 100 });
    for (let i = 0; i < 10; i++) expect((await list(sub.apiKey)).status).toBe(200);
    const launch = await create(sub.apiKey);
    expect(launch.status, launch.text).toBe(202);
    for (let i = 0; i < 10; i++) expect((await detail(sub.apiKey, launch.json.launchId)).status).toBe(200);
    expectServed(await preflight(sub.apiKey));
    expectRateLimited(await preflight(sub.apiKey), 3600);
    // And with the prepare budget used up, reads still serve.
    expect((await list(sub.apiKey)).status).toBe(200);
    expect((await detail(sub.apiKey, launch.json.launchId)).status).toBe(200);
  });
});

describe('readRequestsPerMinute (per lineage; list and detail)', () => {
  it('serves N list/detail reads, refuses N+1 with Retry-After <= 60, and resets after 60 s', async () => {
    const srv = await server();
    const root = srv.partnerRoot({ now: t });
    const sub = await issue(root.apiKey, { prepare: 100, read: 3 });
    const launch = await create(sub.apiKey);
    expect(launch.status, launch.text).toBe(202);
    const id = launch.json.launchId;
    expect((await list(sub.apiKey)).status).toBe(200); // the window opens at t0
    t += 15_000;
    expect((await detail(sub.apiKey, id)).status).toBe(200);
    // A detail read of a launch the credential cannot see spends the budget too.
    expect((await detail(sub.apiKey, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expectRateLimited(await list(sub.apiKey), 60, 45);
    expectRateLimited(await detail(sub.apiKey, id), 60, 45);
    t = t0 + 59_999;
    expectRateLimited(await list(sub.apiKey), 60, 1);
    t = t0 + 60_000;
    expect((await list(sub.apiKey)).status).toBe(200);
    expect((await detail(sub.apiKey, id)).status).toBe(200);
    expect((await list(sub.apiKey)).status).toBe(200);
    expectRateLimited(await detail(sub.apiKey, id), 60, 60);
  });

  it('preflight does not spend the read budget', async () => {
    const srv = await server();
    const root = srv.partnerRoot({ now: t });
    const sub = await issue(root.apiKey, { prepare: 100, read: 2 });
    for (let i = 0; i < 10; i++) expectServed(await preflight(sub.apiKey));
    expect((await list(sub.apiKey)).status).toBe(200);
    expect((await list(sub.apiKey)).status).toBe(200);
    expectRateLimited(await list(sub.apiKey), 60);
    // With the read budget used up, preflight still serves.
    const p = await preflight(sub.apiKey);
    expect(p.status, p.text).toBe(200);
  });
});

describe('delivering a source file spends neither budget (project design, rate-limit.ts)', () => {
  type Manifest = { files: Array<{ path: string; sha256: string }> };
  const manifest = example<{ sourceBundleManifest: Manifest }>(v4Example).sourceBundleManifest;
  const projectFile = (path: string) => readFileSync(new URL(`../../examples/example-launch/${path}`, import.meta.url));

  it('PUT source-files serves with both budgets used up', async () => {
    const srv = await server();
    const root = srv.partnerRoot({ now: t });
    const sub = await issue(root.apiKey, { prepare: 1, read: 1 });
    const launch = await create(sub.apiKey);
    expect(launch.status, launch.text).toBe(202);
    expect((await detail(sub.apiKey, launch.json.launchId)).status).toBe(200);
    expectRateLimited(await preflight(sub.apiKey), 3600);
    expectRateLimited(await list(sub.apiKey), 60);
    const statuses: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (const f of manifest.files) {
        const r = await call(`${launchesUrl()}/${launch.json.launchId}/source-files/${f.sha256}`, {
          method: 'PUT',
          headers: { Authorization: `Bearer ${sub.apiKey}`, 'Content-Type': 'application/octet-stream' },
          body: projectFile(f.path),
        });
        statuses.push(r.status);
      }
    }
    // First round stores (201), the second finds them held (200); never 429.
    expect(statuses).toEqual([...manifest.files.map(() => 201), ...manifest.files.map(() => 200)]);
    // Both budgets are still used up, untouched by the deliveries.
    expectRateLimited(await create(sub.apiKey), 3600);
    expectRateLimited(await list(sub.apiKey), 60);
  });
});

describe('budget owners: lineage across rotation, a new lineage per issue, the root on its own', () => {
  it('a rotation keeps the lineage counters: the replacement gets no fresh prepare or read budget', async () => {
    const srv = await server();
    const root = srv.partnerRoot({ now: t });
    const sub = await issue(root.apiKey, { prepare: 2, read: 2 });
    expectServed(await preflight(sub.apiKey));
    expectServed(await preflight(sub.apiKey));
    expect((await list(sub.apiKey)).status).toBe(200);
    expect((await list(sub.apiKey)).status).toBe(200);
    t += 5_000;
    const rotated = await rotateCall(root.apiKey, sub.subkeyId, subkeyRequest({ prepare: 2, read: 2 }));
    expect(rotated.status, rotated.text).toBe(201);
    expect(rotated.json.lineageId).toBe(sub.lineageId);
    const replacement = rotated.json.apiKey as string;
    expectRateLimited(await preflight(replacement), 3600, 3595);
    expectRateLimited(await create(replacement), 3600, 3595);
    expectRateLimited(await list(replacement), 60, 55);
    // The lineage's windows end when they would have for the old key.
    t = t0 + 60_000;
    expect((await list(replacement)).status).toBe(200);
    expectRateLimited(await preflight(replacement), 3600, 3540);
    t = t0 + 3_600_000;
    expectServed(await preflight(replacement));
  });

  it("a rotation to a larger budget leaves the lineage only the difference in the window (the replacement's limit applies)", async () => {
    const srv = await server();
    const root = srv.partnerRoot({ now: t });
    const sub = await issue(root.apiKey, { prepare: 2, read: 100 });
    expectServed(await preflight(sub.apiKey));
    expectServed(await preflight(sub.apiKey));
    const rotated = await rotateCall(root.apiKey, sub.subkeyId, subkeyRequest({ prepare: 4, read: 100 }));
    expect(rotated.status, rotated.text).toBe(201);
    expectServed(await preflight(rotated.json.apiKey));
    expectServed(await preflight(rotated.json.apiKey));
    expectRateLimited(await preflight(rotated.json.apiKey), 3600);
  });

  it('a newly issued subkey has its own counters', async () => {
    const srv = await server();
    const root = srv.partnerRoot({ now: t });
    const a = await issue(root.apiKey, { prepare: 1, read: 1 });
    expectServed(await preflight(a.apiKey));
    expect((await list(a.apiKey)).status).toBe(200);
    expectRateLimited(await preflight(a.apiKey), 3600);
    expectRateLimited(await list(a.apiKey), 60);
    const b = await issue(root.apiKey, { prepare: 1, read: 1 });
    expect(b.lineageId).not.toBe(a.lineageId);
    expectServed(await preflight(b.apiKey));
    expect((await list(b.apiKey)).status).toBe(200);
    expectRateLimited(await preflight(b.apiKey), 3600);
    expectRateLimited(await list(b.apiKey), 60);
  });

  it("the root's prepare and read budgets are its own: a subkey's spending does not consume them, nor the reverse", async () => {
    const srv = await server();
    const root = srv.partnerRoot({ now: t, budgets: { prepareRequestsPerHour: 2, readRequestsPerMinute: 2 } });
    const sub = await issue(root.apiKey, { prepare: 2, read: 2 });
    for (let i = 0; i < 2; i++) {
      expectServed(await preflight(sub.apiKey));
      expect((await list(sub.apiKey)).status).toBe(200);
    }
    expectRateLimited(await preflight(sub.apiKey), 3600);
    expectRateLimited(await list(sub.apiKey), 60);
    for (let i = 0; i < 2; i++) {
      expectServed(await preflight(root.apiKey));
      expect((await list(root.apiKey)).status).toBe(200);
    }
    expectRateLimited(await preflight(root.apiKey), 3600);
    expectRateLimited(await create(root.apiKey), 3600);
    expectRateLimited(await list(root.apiKey), 60);
    // A sibling issued now is untouched by both.
    const sibling = await issue(root.apiKey, { prepare: 1, read: 1 });
    expectServed(await preflight(sibling.apiKey));
    expect((await list(sibling.apiKey)).status).toBe(200);
  });
});

describe('subkeyAdminRequestsPerHour (per root; every admin operation)', () => {
  it('list, issue, rotate and revoke each spend it, valid or not; N+1 is 429; another root is unaffected; resets after the hour', async () => {
    const srv = await server();
    const root = srv.partnerRoot({ now: t, budgets: { subkeyAdminRequestsPerHour: 8 } });
    const other = srv.partnerRoot({ now: t, name: 'Other partner', budgets: { subkeyAdminRequestsPerHour: 8 } });
    const missing = '00000000-0000-4000-8000-000000000000';
    const body = subkeyRequest({ prepare: 10, read: 10 });

    expect((await listSubkeysCall(root.apiKey)).status).toBe(200); // 1, the window opens at t0
    const issued = await issueCall(root.apiKey, body); // 2
    expect(issued.status, issued.text).toBe(201);
    // 3: an invalid body (closed schema) fails validation after the budget was taken.
    const invalid = await issueCall(root.apiKey, JSON.stringify({ displayName: 'x' }));
    expect(invalid.status, invalid.text).toBe(400);
    // 4: a malformed Idempotency-Key fails validation too.
    expect((await issueCall(root.apiKey, body, 'short')).status).toBe(400);
    t += 30_000;
    // 5: rotating a subkey the root does not hold is 404.
    expect((await rotateCall(root.apiKey, missing, body)).status).toBe(404);
    // 6: a subkeyId that is no uuid fails path validation.
    expect((await revokeCall(root.apiKey, 'not-a-uuid')).status).toBe(400);
    // 7: revoking an unknown subkey is 404.
    expect((await revokeCall(root.apiKey, missing)).status).toBe(404);
    // 8: a real rotation.
    const rotated = await rotateCall(root.apiKey, issued.json.subkeyId, body);
    expect(rotated.status, rotated.text).toBe(201);

    // 9: every admin operation is now refused, before anything is written.
    const subkeysBefore = subkeyCount();
    expectRateLimited(await listSubkeysCall(root.apiKey), 3600, 3570);
    expectRateLimited(await issueCall(root.apiKey, body), 3600, 3570);
    expectRateLimited(await rotateCall(root.apiKey, rotated.json.subkeyId, body), 3600, 3570);
    expectRateLimited(await revokeCall(root.apiKey, rotated.json.subkeyId), 3600, 3570);
    expectRateLimited(await issueCall(root.apiKey, '{}'), 3600, 3570);
    expect(subkeyCount()).toBe(subkeysBefore);
    const stillActive = srv.db
      .prepare('SELECT revoked_at FROM api_keys WHERE key_id = ?')
      .get(rotated.json.subkeyId) as { revoked_at: string | null };
    expect(stillActive.revoked_at).toBeNull();

    // The admin budget is not the launch budgets: the root still reads and prepares.
    expect((await list(root.apiKey)).status).toBe(200);
    expectServed(await preflight(root.apiKey));
    // Another root has its own admin budget.
    expect((await listSubkeysCall(other.apiKey)).status).toBe(200);
    expect((await issueCall(other.apiKey, body)).status).toBe(201);

    t = t0 + 3_600_000 - 1;
    expectRateLimited(await listSubkeysCall(root.apiKey), 3600, 1);
    t = t0 + 3_600_000;
    const list2 = await listSubkeysCall(root.apiKey);
    expect(list2.status, list2.text).toBe(200);
    expect(list2.json.items).toHaveLength(2);
    expect((await revokeCall(root.apiKey, rotated.json.subkeyId)).status).toBe(200);
  });

  it('a subkey or wallet key calling an admin route is 403 before any budget is spent', async () => {
    const srv = await server();
    const root = srv.partnerRoot({ now: t, budgets: { subkeyAdminRequestsPerHour: 2 } });
    const sub = await issue(root.apiKey, { prepare: 10, read: 10 }); // 1
    const wallet = srv.key();
    for (const key of [sub.apiKey, wallet]) {
      for (let i = 0; i < 3; i++) {
        const r = await listSubkeysCall(key);
        expect(r.status, r.text).toBe(403);
        expect(r.json.error.code).toBe('INSUFFICIENT_SCOPE');
      }
    }
    expect((await listSubkeysCall(root.apiKey)).status).toBe(200); // 2
    expectRateLimited(await listSubkeysCall(root.apiKey), 3600);
  });
});

describe('wallet keys have no partner budgets (only the route budget)', () => {
  it('serves many prepare and read requests within the route budget', async () => {
    const srv = await server();
    const key = srv.key();
    const launch = await create(key);
    expect(launch.status, launch.text).toBe(202);
    for (let i = 0; i < 25; i++) {
      expectServed(await preflight(key));
      expect((await list(key)).status).toBe(200);
      expect((await detail(key, launch.json.launchId)).status).toBe(200);
    }
    for (let i = 0; i < 5; i++) expect((await create(key)).status).toBe(202);
  });

  it('the route budget is what limits a wallet key', async () => {
    t = t0;
    s = await startServer({ routeBudgetPerMinute: 3 }, () => t);
    const key = s.key();
    for (let i = 0; i < 3; i++) expect((await list(key)).status).toBe(200);
    expectRateLimited(await list(key), 60, 60);
    t += 60_000;
    expect((await list(key)).status).toBe(200);
  });
});
