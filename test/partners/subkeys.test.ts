import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPrincipal, hashKey, mintWalletKey, type Principal, walletScopes } from '../../src/auth/keys.ts';
import { maxSubkeysPerRoot, SubkeyService } from '../../src/domain/partners/subkeys.ts';
import { loadSchemaRegistry, schemaIdBase } from '../../src/spec/schema-registry.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { exampleBytes, exampleWallet, startServer, type TestServer, v4Example } from '../support/server.ts';

// Partner subkey administration (spec/openapi/paths/partner-subkey*.yaml; only a partner root holds
// partner-subkeys:manage; a rotation keeps the lineage, a new subkey starts its own) against the real server over
// real HTTP on its own SQLite file. The server runs on an injected clock `t`, which only the expiry tests move
// forward; every other subkey expires in 2030, so moving it never changes their outcome.

const { ajv } = loadSchemaRegistry();
const validateApiError = ajv.getSchema(`${schemaIdBase}api-error.schema.json`);
const validateSubkey = ajv.getSchema(`${schemaIdBase}partner-subkey.v1.schema.json`);
const validateList = ajv.getSchema(`${schemaIdBase}partner-subkey-list.v1.schema.json`);

let t = Date.parse('2026-06-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

let s: TestServer;
/** The main partner root: budgets at the design maxima, so every child budget boundary can be issued under it. */
let root: { apiKey: string; partnerId: string; keyId: string };
/** Another partner's root: its subkeys are foreign to `root`. */
let foreign: { apiKey: string; partnerId: string; keyId: string };

const subkeysUrl = () => `${s.url}/v1/partner/subkeys`;
const launchesUrl = () => `${s.url}/v4/chains/4663/custom-launches`;

let seq = 0;
/** A fresh Idempotency-Key of at least 16 characters. */
const idem = () => `subkey-test-${String(++seq).padStart(6, '0')}`;

interface SubkeyRequest {
  displayName: string;
  scopes: string[];
  prepareRequestsPerHour: number;
  readRequestsPerMinute: number;
  expiresAt: string;
}
/** The spec example body (spec/examples/partner-subkey-request.v1.json) with overrides. */
const request = (overrides: Partial<SubkeyRequest> = {}): SubkeyRequest => ({
  ...(JSON.parse(exampleBytes('partner-subkey-request.v1.json')) as SubkeyRequest),
  ...overrides,
});
const bytes = (overrides: Partial<SubkeyRequest> = {}) => JSON.stringify(request(overrides));

const issue = (rootKey: string, body: string, key: string | null = idem()) =>
  call(subkeysUrl(), {
    method: 'POST',
    headers: auth(rootKey, key === null ? {} : { 'Idempotency-Key': key }),
    body,
  });
const rotate = (rootKey: string, subkeyId: string, body: string, key: string | null = idem()) =>
  call(`${subkeysUrl()}/${subkeyId}/rotate`, {
    method: 'POST',
    headers: auth(rootKey, key === null ? {} : { 'Idempotency-Key': key }),
    body,
  });
const revoke = (rootKey: string, subkeyId: string) =>
  call(`${subkeysUrl()}/${subkeyId}`, { method: 'DELETE', headers: auth(rootKey) });
const list = (rootKey: string) => call(subkeysUrl(), { headers: auth(rootKey) });
/** A read route a child with custom-launch:read may call. */
const readLaunches = (key: string) => call(launchesUrl(), { headers: auth(key) });
const preflight = (key: string) =>
  call(`${launchesUrl()}/preflight`, { method: 'POST', headers: auth(key), body: exampleBytes(v4Example) });

/** Issues a subkey under `rootKey` and returns its 201 body (apiKey included). */
async function issued(rootKey: string, overrides: Partial<SubkeyRequest> = {}) {
  const r = await issue(rootKey, bytes(overrides));
  expect(r.status, r.text).toBe(201);
  return r.json as { subkeyId: string; lineageId: string; apiKey: string; [k: string]: unknown };
}

/** The list items of `rootKey`, checked against the list schema. */
async function items(rootKey: string): Promise<Array<Record<string, any>>> {
  const r = await list(rootKey);
  expect(r.status, r.text).toBe(200);
  expect(validateList?.(r.json), ajv.errorsText(validateList?.errors)).toBe(true);
  return r.json.items;
}
const statusOf = async (rootKey: string, subkeyId: string) =>
  (await items(rootKey)).find((i) => i.subkeyId === subkeyId)?.status;

/** Every error: the status and code, an ApiError body with the request id echoed. */
function expectApiError(r: Reply, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.json?.error?.code, r.text).toBe(code);
  expect(typeof r.json.error.retryable).toBe('boolean');
  expect(r.json.error.requestId, r.text).toBe(r.headers.get('x-request-id'));
  expect(validateApiError?.(r.json), ajv.errorsText(validateApiError?.errors)).toBe(true);
}

/** A 2xx subkey answer: valid against partner-subkey.v1 and never cached. */
function expectSubkey(r: Reply, status: 200 | 201): void {
  expect(r.status, r.text).toBe(status);
  expect(validateSubkey?.(r.json), ajv.errorsText(validateSubkey?.errors)).toBe(true);
  expect(r.headers.get('cache-control')).toBe('no-store');
  if (status === 201) {
    expect(r.json.secretState).toBe('delivered-once');
    expect(r.json.apiKey).toMatch(/^clk_[A-Za-z0-9_-]{43}$/);
  } else {
    expect(r.json.secretState).toBe('already-delivered');
    expect(r.json.apiKey).toBeNull();
  }
}

/** What a refused write must leave unchanged: the keys and idempotency records in the database. */
const stored = () => ({
  keys: (s.db.prepare('SELECT count(*) AS n FROM api_keys').get() as { n: number }).n,
  idempotency: (s.db.prepare('SELECT count(*) AS n FROM idempotency_records').get() as { n: number }).n,
});
const subkeyCount = (rootKeyId: string) =>
  (s.db.prepare('SELECT count(*) AS n FROM api_keys WHERE issuer_key_id = ?').get(rootKeyId) as { n: number }).n;

const maxBudgets = {
  prepareRequestsPerHour: 100_000,
  readRequestsPerMinute: 10_000,
  subkeyAdminRequestsPerHour: 100_000,
};

beforeAll(async () => {
  s = await startServer({}, () => t);
  root = s.partnerRoot({ name: 'Acme launches', budgets: maxBudgets });
  foreign = s.partnerRoot({
    name: 'Other partner',
    wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    budgets: maxBudgets,
  });
});
afterAll(() => s?.close());

describe('access: only a partner root administers subkeys', () => {
  let target: { subkeyId: string; apiKey: string };
  const routes = () => [
    { name: 'list', send: (k: Record<string, string>) => call(subkeysUrl(), { headers: k }) },
    {
      name: 'issue',
      send: (k: Record<string, string>) =>
        call(subkeysUrl(), { method: 'POST', headers: { ...k, 'Idempotency-Key': idem() }, body: bytes() }),
    },
    {
      name: 'rotate',
      send: (k: Record<string, string>) =>
        call(`${subkeysUrl()}/${target.subkeyId}/rotate`, {
          method: 'POST',
          headers: { ...k, 'Idempotency-Key': idem() },
          body: bytes(),
        }),
    },
    {
      name: 'revoke',
      send: (k: Record<string, string>) => call(`${subkeysUrl()}/${target.subkeyId}`, { method: 'DELETE', headers: k }),
    },
  ];

  beforeAll(async () => {
    target = await issued(root.apiKey);
  });

  it('401 UNAUTHENTICATED on all four routes without a key, with an unknown key, or a malformed header', async () => {
    const before = stored();
    for (const route of routes()) {
      for (const headers of [
        { 'Content-Type': 'application/json' },
        auth('clk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
        { 'Content-Type': 'application/json', Authorization: root.apiKey },
      ]) {
        const r = await route.send(headers);
        expectApiError(r, 401, 'UNAUTHENTICATED');
        expect(r.text).not.toContain(root.apiKey);
      }
    }
    expect(stored()).toEqual(before);
    expect(await statusOf(root.apiKey, target.subkeyId)).toBe('active');
  });

  it('403 INSUFFICIENT_SCOPE on all four routes for a wallet key holding every wallet scope', async () => {
    expect(walletScopes).not.toContain('partner-subkeys:manage');
    const wallet = s.key({ scopes: [...walletScopes] });
    const before = stored();
    for (const route of routes()) expectApiError(await route.send(auth(wallet)), 403, 'INSUFFICIENT_SCOPE');
    expect(stored()).toEqual(before);
    expect(await statusOf(root.apiKey, target.subkeyId)).toBe('active');
  });

  it("403 INSUFFICIENT_SCOPE on all four routes for a subkey's own key (a child never holds manage)", async () => {
    const before = stored();
    for (const route of routes()) expectApiError(await route.send(auth(target.apiKey)), 403, 'INSUFFICIENT_SCOPE');
    expect(stored()).toEqual(before);
    expect(await statusOf(root.apiKey, target.subkeyId)).toBe('active');
    // The child's key still works where its scopes reach.
    expect((await readLaunches(target.apiKey)).status).toBe(200);
  });

  it('mintWalletKey refuses partner-subkeys:manage and stores nothing', () => {
    const before = stored();
    expect(() =>
      mintWalletKey(s.db, { wallet: exampleWallet, scopes: ['partner-subkeys:manage'], chains: ['4663'] }),
    ).toThrow(/partner-subkeys:manage/);
    expect(() =>
      mintWalletKey(s.db, {
        wallet: exampleWallet,
        scopes: ['custom-launch:read', 'partner-subkeys:manage'],
        chains: ['4663'],
      }),
    ).toThrow(/partner-subkeys:manage/);
    expect(stored()).toEqual(before);
  });
});

describe('the request body is closed (partner-subkey-request.v1): 400 INVALID_REQUEST, nothing stored', () => {
  const { displayName: _d, ...withoutDisplayName } = request();
  const { scopes: _s, ...withoutScopes } = request();
  const { prepareRequestsPerHour: _p, ...withoutPrepare } = request();
  const { readRequestsPerMinute: _r, ...withoutRead } = request();
  const { expiresAt: _e, ...withoutExpiresAt } = request();
  const refused: Array<[string, string]> = [
    [
      'an unknown field schemaVersion',
      JSON.stringify({ ...request(), schemaVersion: 'platform.partner-subkey-request.v1' }),
    ],
    ['an unknown field partnerAttribution', JSON.stringify({ ...request(), partnerAttribution: { partnerId: 'x' } })],
    ['scope partner-subkeys:manage', bytes({ scopes: ['custom-launch:read', 'partner-subkeys:manage'] })],
    ['scope partner-subkeys:manage alone', bytes({ scopes: ['partner-subkeys:manage'] })],
    ['a scope outside the launch scopes (modules:read)', bytes({ scopes: ['modules:read'] })],
    ['no scope', bytes({ scopes: [] })],
    ['a repeated scope', bytes({ scopes: ['custom-launch:read', 'custom-launch:read'] })],
    ['three scopes', bytes({ scopes: ['custom-launch:read', 'custom-launch:create', 'custom-launch:read'] })],
    ['displayName missing', JSON.stringify(withoutDisplayName)],
    ['scopes missing', JSON.stringify(withoutScopes)],
    ['prepareRequestsPerHour missing', JSON.stringify(withoutPrepare)],
    ['readRequestsPerMinute missing', JSON.stringify(withoutRead)],
    ['expiresAt missing', JSON.stringify(withoutExpiresAt)],
    ['prepareRequestsPerHour 0', bytes({ prepareRequestsPerHour: 0 })],
    ['prepareRequestsPerHour 100001', bytes({ prepareRequestsPerHour: 100_001 })],
    ['prepareRequestsPerHour 1.5', bytes({ prepareRequestsPerHour: 1.5 })],
    ['readRequestsPerMinute 0', bytes({ readRequestsPerMinute: 0 })],
    ['readRequestsPerMinute 10001', bytes({ readRequestsPerMinute: 10_001 })],
    ['expiresAt without milliseconds', bytes({ expiresAt: '2030-12-31T23:59:59Z' })],
    ['expiresAt with an offset', bytes({ expiresAt: '2030-12-31T23:59:59.000+00:00' })],
    ['expiresAt with microseconds', bytes({ expiresAt: '2030-12-31T23:59:59.000000Z' })],
    ['expiresAt that is no calendar time', bytes({ expiresAt: '2030-02-30T00:00:00.000Z' })],
    ['an empty displayName', bytes({ displayName: '' })],
    ['a displayName of 65 characters', bytes({ displayName: 'x'.repeat(65) })],
    ['a displayName with a newline', bytes({ displayName: 'Acme\nbot' })],
    ['a displayName with a tab', bytes({ displayName: 'Acme\tbot' })],
    ['a displayName with DEL', bytes({ displayName: 'Acme\u007fbot' })],
    ['a body that is an array', JSON.stringify([request()])],
  ];

  it.each(refused)('refuses %s', async (_name, body) => {
    const before = stored();
    const listed = (await items(root.apiKey)).length;
    const r = await issue(root.apiKey, body);
    expectApiError(r, 400, 'INVALID_REQUEST');
    expect(stored()).toEqual(before);
    expect((await items(root.apiKey)).length).toBe(listed);
  });

  it('accepts each bound at its edge: budgets 1 and the design maxima, displayName 1 and 64 characters, one scope', async () => {
    for (const overrides of [
      { prepareRequestsPerHour: 1, readRequestsPerMinute: 1 },
      { prepareRequestsPerHour: 100_000, readRequestsPerMinute: 10_000 },
      { displayName: 'A' },
      { displayName: 'é'.repeat(64) },
      { scopes: ['custom-launch:read'] },
      { scopes: ['custom-launch:create'] },
      { scopes: ['custom-launch:read', 'custom-launch:create'] },
    ]) {
      const r = await issue(root.apiKey, bytes(overrides));
      expectSubkey(r, 201);
      const sent = request(overrides);
      expect(r.json).toMatchObject({
        displayName: sent.displayName,
        scopes: sent.scopes,
        budgets: {
          prepareRequestsPerHour: sent.prepareRequestsPerHour,
          readRequestsPerMinute: sent.readRequestsPerMinute,
        },
        expiresAt: sent.expiresAt,
      });
    }
  });
});

describe('server rules no schema states: expiry in the future, within the root (400)', () => {
  it('refuses expiresAt == now and now - 1 ms with INVALID_REQUEST at /expiresAt; accepts now + 1 ms', async () => {
    for (const at of [t, t - 1]) {
      const before = stored();
      const r = await issue(root.apiKey, bytes({ expiresAt: iso(at) }));
      expectApiError(r, 400, 'INVALID_REQUEST');
      expect(r.json.error.issues).toEqual([expect.objectContaining({ location: '/expiresAt' })]);
      expect(stored()).toEqual(before);
    }
    const ok = await issue(root.apiKey, bytes({ expiresAt: iso(t + 1) }));
    expectSubkey(ok, 201);
    expect(ok.json.expiresAt).toBe(iso(t + 1));
    expect(ok.json.status).toBe('active');
  });

  describe("bounds of the root's budgets and expiry: 400 SUBKEY_BOUNDS_EXCEEDED", () => {
    const rootExpiry = '2029-06-30T12:00:00.000Z';
    let bounded: { apiKey: string; keyId: string };
    beforeAll(() => {
      bounded = s.partnerRoot({
        name: 'Bounded partner',
        expiresAt: rootExpiry,
        budgets: { prepareRequestsPerHour: 500, readRequestsPerMinute: 300, subkeyAdminRequestsPerHour: 100_000 },
      });
    });
    const within = { prepareRequestsPerHour: 10, readRequestsPerMinute: 10, expiresAt: '2029-01-01T00:00:00.000Z' };

    it.each([
      ['prepareRequestsPerHour', { prepareRequestsPerHour: 500 }, { prepareRequestsPerHour: 501 }],
      ['readRequestsPerMinute', { readRequestsPerMinute: 300 }, { readRequestsPerMinute: 301 }],
      ['expiresAt', { expiresAt: rootExpiry }, { expiresAt: iso(Date.parse(rootExpiry) + 1) }],
    ] as const)("%s equal to the root's is issued; one more is refused and stores nothing", async (field, ok, over) => {
      const accepted = await issue(bounded.apiKey, bytes({ ...within, ...ok }));
      expectSubkey(accepted, 201);
      const before = stored();
      const listed = (await items(bounded.apiKey)).length;
      const refused = await issue(bounded.apiKey, bytes({ ...within, ...over }));
      expectApiError(refused, 400, 'SUBKEY_BOUNDS_EXCEEDED');
      expect(refused.json.error.issues).toEqual([expect.objectContaining({ location: `/${field}` })]);
      expect(stored()).toEqual(before);
      expect((await items(bounded.apiKey)).length).toBe(listed);
    });

    it('lists every excess at once', async () => {
      const before = stored();
      const r = await issue(
        bounded.apiKey,
        bytes({ prepareRequestsPerHour: 501, readRequestsPerMinute: 301, expiresAt: '2030-01-01T00:00:00.000Z' }),
      );
      expectApiError(r, 400, 'SUBKEY_BOUNDS_EXCEEDED');
      expect((r.json.error.issues as Array<{ location: string }>).map((i) => i.location).sort()).toEqual([
        '/expiresAt',
        '/prepareRequestsPerHour',
        '/readRequestsPerMinute',
      ]);
      expect(stored()).toEqual(before);
    });
  });
});

describe('issue: Idempotency-Key and the one-time secret', () => {
  it('201 delivered-once with a working apiKey, no-store, a new lineage and rotatedFromSubkeyId null; only a hash is stored', async () => {
    const r = await issue(root.apiKey, bytes());
    expectSubkey(r, 201);
    expect(r.json).toMatchObject({
      schemaVersion: 'platform.partner-subkey.v1',
      displayName: request().displayName,
      scopes: request().scopes,
      budgets: { prepareRequestsPerHour: 120, readRequestsPerMinute: 60 },
      expiresAt: request().expiresAt,
      createdAt: iso(t),
      status: 'active',
      rotatedFromSubkeyId: null,
    });
    // A new isolated lineage: not the root's.
    expect(r.json.lineageId).not.toBe(root.keyId);
    const read = await readLaunches(r.json.apiKey);
    expect(read.status, read.text).toBe(200);
    // The secret is stored only as its hash, and the replay record does not carry it.
    const row = s.db.prepare('SELECT * FROM api_keys WHERE key_id = ?').get(r.json.subkeyId) as Record<string, unknown>;
    expect(row.key_hash).toBe(hashKey(r.json.apiKey));
    expect(JSON.stringify(row)).not.toContain(r.json.apiKey);
    const records = s.db.prepare('SELECT response_body FROM idempotency_records').all() as { response_body: string }[];
    expect(records.some((x) => x.response_body.includes(r.json.apiKey))).toBe(false);
  });

  it('two issues start two distinct lineages', async () => {
    const a = await issued(root.apiKey);
    const b = await issued(root.apiKey);
    expect(a.subkeyId).not.toBe(b.subkeyId);
    expect(a.lineageId).not.toBe(b.lineageId);
    expect(a.rotatedFromSubkeyId).toBeNull();
    expect(b.rotatedFromSubkeyId).toBeNull();
  });

  it('replays the same key and bytes as 200 already-delivered, apiKey null, the same subkeyId, and no second subkey', async () => {
    const key = idem();
    const body = bytes({ displayName: 'replayed' });
    const first = await issue(root.apiKey, body, key);
    expectSubkey(first, 201);
    const before = stored();
    const listed = (await items(root.apiKey)).length;
    const replay = await issue(root.apiKey, body, key);
    expectSubkey(replay, 200);
    const { apiKey: _a, secretState: _s, ...firstView } = first.json;
    const { apiKey: _b, secretState: _t, ...replayView } = replay.json;
    expect(replayView).toEqual(firstView);
    expect(stored()).toEqual(before);
    const after = await items(root.apiKey);
    expect(after.length).toBe(listed);
    expect(after.filter((i) => i.subkeyId === first.json.subkeyId)).toHaveLength(1);
    // The first secret still works; the replay did not mint another.
    expect((await readLaunches(first.json.apiKey)).status).toBe(200);
  });

  it('409 IDEMPOTENCY_CONFLICT for the same key with other bytes (whitespace included), storing nothing', async () => {
    const key = idem();
    expectSubkey(await issue(root.apiKey, bytes(), key), 201);
    const before = stored();
    expectApiError(await issue(root.apiKey, bytes({ displayName: 'other' }), key), 409, 'IDEMPOTENCY_CONFLICT');
    expectApiError(await issue(root.apiKey, JSON.stringify(request(), null, 1), key), 409, 'IDEMPOTENCY_CONFLICT');
    expect(stored()).toEqual(before);
  });

  it('Idempotency-Key: missing, 15 characters, 129 characters or a foreign character -> 400; 16 and 128 accepted', async () => {
    const before = stored();
    expectApiError(await issue(root.apiKey, bytes(), null), 400, 'INVALID_REQUEST');
    expectApiError(await issue(root.apiKey, bytes(), 'a'.repeat(15)), 400, 'INVALID_REQUEST');
    expectApiError(await issue(root.apiKey, bytes(), `k${'b'.repeat(128)}`), 400, 'INVALID_REQUEST');
    expectApiError(await issue(root.apiKey, bytes(), 'subkey/test/0000001'), 400, 'INVALID_REQUEST');
    expectApiError(await issue(root.apiKey, bytes(), 'subkey test 0000001'), 400, 'INVALID_REQUEST');
    expect(stored()).toEqual(before);
    expectSubkey(await issue(root.apiKey, bytes(), 'Ab1.Cd2_Ef3:Gh4-'), 201);
    expectSubkey(await issue(root.apiKey, bytes(), `len128-${seq}`.padEnd(128, 'z')), 201);
  });
});

describe("a child's scopes are enforced on the launch routes", () => {
  it('a read-only subkey gets 403 INSUFFICIENT_SCOPE on preflight and 200 on list', async () => {
    const reader = await issued(root.apiKey, { scopes: ['custom-launch:read'] });
    expectApiError(await preflight(reader.apiKey), 403, 'INSUFFICIENT_SCOPE');
    expect((await readLaunches(reader.apiKey)).status).toBe(200);
  });

  it('a create-only subkey gets 403 INSUFFICIENT_SCOPE on list, and 200 on preflight', async () => {
    const creator = await issued(root.apiKey, { scopes: ['custom-launch:create'] });
    expectApiError(await readLaunches(creator.apiKey), 403, 'INSUFFICIENT_SCOPE');
    const r = await preflight(creator.apiKey);
    expect(r.status, r.text).toBe(200);
    expect(r.json.schemaVersion).toBe('platform.custom-launch-preflight.v2');
  });
});

describe("a child's own budgets (Partner subkey: prepareRequestsPerHour, readRequestsPerMinute)", () => {
  it('serves readRequestsPerMinute reads, answers 429 past it, and a rotation does not reset the lineage window', async () => {
    const sub = await issued(root.apiKey, { scopes: ['custom-launch:read'], readRequestsPerMinute: 2 });
    const start = t;
    expect((await readLaunches(sub.apiKey)).status).toBe(200);
    expect((await readLaunches(sub.apiKey)).status).toBe(200);
    const limited = await readLaunches(sub.apiKey);
    expectApiError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const next = await rotate(
      root.apiKey,
      sub.subkeyId,
      bytes({ scopes: ['custom-launch:read'], readRequestsPerMinute: 2 }),
    );
    expectSubkey(next, 201);
    expectApiError(await readLaunches(next.json.apiKey), 429, 'RATE_LIMITED');
    t = start + 60_000;
    expect((await readLaunches(next.json.apiKey)).status).toBe(200);
  });
});

describe('rotation (rotatePartnerSubkey)', () => {
  it('201 with a new subkeyId in the same lineage; the old key answers 401 at once, the new key works; list shows rotated and active', async () => {
    const old = await issued(root.apiKey, { displayName: 'to rotate' });
    expect((await readLaunches(old.apiKey)).status).toBe(200);
    const r = await rotate(root.apiKey, old.subkeyId, bytes({ displayName: 'rotated in', readRequestsPerMinute: 30 }));
    expectSubkey(r, 201);
    expect(r.json).toMatchObject({
      lineageId: old.lineageId,
      rotatedFromSubkeyId: old.subkeyId,
      displayName: 'rotated in',
      budgets: { prepareRequestsPerHour: 120, readRequestsPerMinute: 30 },
      status: 'active',
    });
    expect(r.json.subkeyId).not.toBe(old.subkeyId);
    expect(r.json.apiKey).not.toBe(old.apiKey);
    expectApiError(await readLaunches(old.apiKey), 401, 'UNAUTHENTICATED');
    expect((await readLaunches(r.json.apiKey)).status).toBe(200);
    const listed = await items(root.apiKey);
    expect(listed.find((i) => i.subkeyId === old.subkeyId)?.status).toBe('rotated');
    expect(listed.find((i) => i.subkeyId === r.json.subkeyId)?.status).toBe('active');
    expect(
      listed
        .filter((i) => i.lineageId === old.lineageId)
        .map((i) => i.status)
        .sort(),
    ).toEqual(['active', 'rotated']);
  });

  it("the replacement reads the lineage's history; a sibling lineage does not", async () => {
    const old = await issued(root.apiKey);
    const sibling = await issued(root.apiKey);
    const created = await call(launchesUrl(), {
      method: 'POST',
      headers: auth(old.apiKey, { 'Idempotency-Key': idem() }),
      body: exampleBytes(v4Example),
    });
    expect(created.status, created.text).toBe(202);
    const launchId = created.json.launchId as string;
    const r = await rotate(root.apiKey, old.subkeyId, bytes());
    expectSubkey(r, 201);
    const ids = async (key: string) =>
      ((await readLaunches(key)).json.launches as Array<{ launchId: string }>).map((i) => i.launchId);
    expect(await ids(r.json.apiKey)).toContain(launchId);
    expect(await ids(sibling.apiKey)).not.toContain(launchId);
    expect(await ids(root.apiKey)).toContain(launchId);
  });

  it('replays the same key, subkeyId and bytes as 200 already-delivered with apiKey null; another subkeyId or other bytes -> 409', async () => {
    const old = await issued(root.apiKey);
    const other = await issued(root.apiKey);
    const key = idem();
    const body = bytes({ displayName: 'rotation replay' });
    const first = await rotate(root.apiKey, old.subkeyId, body, key);
    expectSubkey(first, 201);
    const before = stored();
    const replay = await rotate(root.apiKey, old.subkeyId, body, key);
    expectSubkey(replay, 200);
    expect(replay.json.subkeyId).toBe(first.json.subkeyId);
    expect(replay.json.lineageId).toBe(old.lineageId);
    expect(replay.json.rotatedFromSubkeyId).toBe(old.subkeyId);
    expect(stored()).toEqual(before);
    expectApiError(await rotate(root.apiKey, other.subkeyId, body, key), 409, 'IDEMPOTENCY_CONFLICT');
    expectApiError(
      await rotate(root.apiKey, old.subkeyId, bytes({ displayName: 'x' }), key),
      409,
      'IDEMPOTENCY_CONFLICT',
    );
    expect(stored()).toEqual(before);
    // The other subkey was untouched by the conflicting call.
    expect(await statusOf(root.apiKey, other.subkeyId)).toBe('active');
    expect((await readLaunches(other.apiKey)).status).toBe(200);
    // The replacement's secret from the 201 is the live one.
    expect((await readLaunches(first.json.apiKey)).status).toBe(200);
  });

  it('409 SUBKEY_REVOKED for an already-rotated or a revoked subkey, storing nothing', async () => {
    const a = await issued(root.apiKey);
    const replacement = await rotate(root.apiKey, a.subkeyId, bytes());
    expectSubkey(replacement, 201);
    const b = await issued(root.apiKey);
    expectSubkey(await revoke(root.apiKey, b.subkeyId), 200);
    const before = stored();
    expectApiError(await rotate(root.apiKey, a.subkeyId, bytes()), 409, 'SUBKEY_REVOKED');
    expectApiError(await rotate(root.apiKey, b.subkeyId, bytes()), 409, 'SUBKEY_REVOKED');
    expect(stored()).toEqual(before);
    expect(await statusOf(root.apiKey, a.subkeyId)).toBe('rotated');
    expect(await statusOf(root.apiKey, b.subkeyId)).toBe('revoked');
    // The current replacement still rotates.
    expectSubkey(await rotate(root.apiKey, replacement.json.subkeyId, bytes()), 201);
  });

  it("404 NOT_FOUND for an unknown subkeyId or another partner root's subkey, which stays active; 400 for a non-UUID", async () => {
    const theirs = await issued(foreign.apiKey);
    const before = stored();
    expectApiError(await rotate(root.apiKey, '00000000-0000-4000-8000-000000000000', bytes()), 404, 'NOT_FOUND');
    expectApiError(await rotate(root.apiKey, theirs.subkeyId, bytes()), 404, 'NOT_FOUND');
    expectApiError(await rotate(root.apiKey, 'not-a-uuid', bytes()), 400, 'INVALID_REQUEST');
    // Nor may a root rotate itself as if it were a subkey.
    expectApiError(await rotate(root.apiKey, root.keyId, bytes()), 404, 'NOT_FOUND');
    expect(stored()).toEqual(before);
    expect(await statusOf(foreign.apiKey, theirs.subkeyId)).toBe('active');
    expect((await readLaunches(theirs.apiKey)).status).toBe(200);
  });

  it('checks the request like issue: bounds (SUBKEY_BOUNDS_EXCEEDED), the future expiry, the schema, Idempotency-Key; the old subkey stays active', async () => {
    const rootExpiry = '2029-06-30T12:00:00.000Z';
    const bounded = s.partnerRoot({
      name: 'Bounded rotation partner',
      expiresAt: rootExpiry,
      budgets: { prepareRequestsPerHour: 500, readRequestsPerMinute: 300, subkeyAdminRequestsPerHour: 100_000 },
    });
    const within = { prepareRequestsPerHour: 10, readRequestsPerMinute: 10, expiresAt: '2029-01-01T00:00:00.000Z' };
    let current = await issued(bounded.apiKey, within);
    for (const [field, ok, over] of [
      ['prepareRequestsPerHour', { prepareRequestsPerHour: 500 }, { prepareRequestsPerHour: 501 }],
      ['readRequestsPerMinute', { readRequestsPerMinute: 300 }, { readRequestsPerMinute: 301 }],
      ['expiresAt', { expiresAt: rootExpiry }, { expiresAt: iso(Date.parse(rootExpiry) + 1) }],
    ] as const) {
      const before = stored();
      const refused = await rotate(bounded.apiKey, current.subkeyId, bytes({ ...within, ...over }));
      expectApiError(refused, 400, 'SUBKEY_BOUNDS_EXCEEDED');
      expect(refused.json.error.issues).toEqual([expect.objectContaining({ location: `/${field}` })]);
      expect(stored()).toEqual(before);
      expect(await statusOf(bounded.apiKey, current.subkeyId)).toBe('active');
      expect((await readLaunches(current.apiKey)).status).toBe(200);
      const accepted = await rotate(bounded.apiKey, current.subkeyId, bytes({ ...within, ...ok }));
      expectSubkey(accepted, 201);
      current = accepted.json;
    }
    const before = stored();
    const past = await rotate(bounded.apiKey, current.subkeyId, bytes({ ...within, expiresAt: iso(t) }));
    expectApiError(past, 400, 'INVALID_REQUEST');
    expect(past.json.error.issues).toEqual([expect.objectContaining({ location: '/expiresAt' })]);
    expectApiError(
      await rotate(bounded.apiKey, current.subkeyId, JSON.stringify({ ...request(within), schemaVersion: 'x' })),
      400,
      'INVALID_REQUEST',
    );
    expectApiError(
      await rotate(bounded.apiKey, current.subkeyId, bytes({ ...within, scopes: ['partner-subkeys:manage'] })),
      400,
      'INVALID_REQUEST',
    );
    expectApiError(await rotate(bounded.apiKey, current.subkeyId, bytes(within), null), 400, 'INVALID_REQUEST');
    expectApiError(
      await rotate(bounded.apiKey, current.subkeyId, bytes(within), 'a'.repeat(15)),
      400,
      'INVALID_REQUEST',
    );
    expect(stored()).toEqual(before);
    expect(await statusOf(bounded.apiKey, current.subkeyId)).toBe('active');
  });

  it('renews an expired subkey: status expired, its key 401, and a rotation issues a live replacement in the lineage', async () => {
    const old = await issued(root.apiKey, { expiresAt: iso(t + 60_000) });
    t += 60_000;
    expect(await statusOf(root.apiKey, old.subkeyId)).toBe('expired');
    expectApiError(await readLaunches(old.apiKey), 401, 'UNAUTHENTICATED');
    const r = await rotate(root.apiKey, old.subkeyId, bytes());
    expectSubkey(r, 201);
    expect(r.json).toMatchObject({ lineageId: old.lineageId, rotatedFromSubkeyId: old.subkeyId, status: 'active' });
    expect((await readLaunches(r.json.apiKey)).status).toBe(200);
    expectApiError(await readLaunches(old.apiKey), 401, 'UNAUTHENTICATED');
    expect(await statusOf(root.apiKey, old.subkeyId)).toBe('rotated');
    expect(await statusOf(root.apiKey, r.json.subkeyId)).toBe('active');
  });
});

describe('revocation (revokePartnerSubkey)', () => {
  it('200 revoked, already-delivered, apiKey null; the key answers 401 at once; revoking again answers the same 200', async () => {
    const sub = await issued(root.apiKey);
    expect((await readLaunches(sub.apiKey)).status).toBe(200);
    const r = await revoke(root.apiKey, sub.subkeyId);
    expectSubkey(r, 200);
    expect(r.json).toMatchObject({ subkeyId: sub.subkeyId, lineageId: sub.lineageId, status: 'revoked' });
    expectApiError(await readLaunches(sub.apiKey), 401, 'UNAUTHENTICATED');
    // A revoked subkey's key is unknown to the admin routes too: 401, not 403.
    expectApiError(await list(sub.apiKey), 401, 'UNAUTHENTICATED');
    const before = stored();
    const again = await revoke(root.apiKey, sub.subkeyId);
    expectSubkey(again, 200);
    expect(again.json).toEqual(r.json);
    expect(stored()).toEqual(before);
    expect(await statusOf(root.apiKey, sub.subkeyId)).toBe('revoked');
  });

  it('revoking a rotated subkey answers 200 with its status rotated, and leaves the replacement live', async () => {
    const old = await issued(root.apiKey);
    const next = await rotate(root.apiKey, old.subkeyId, bytes());
    expectSubkey(next, 201);
    const r = await revoke(root.apiKey, old.subkeyId);
    expectSubkey(r, 200);
    expect(r.json.status).toBe('rotated');
    expect(await statusOf(root.apiKey, old.subkeyId)).toBe('rotated');
    expect(await statusOf(root.apiKey, next.json.subkeyId)).toBe('active');
    expect((await readLaunches(next.json.apiKey)).status).toBe(200);
  });

  it("404 NOT_FOUND for an unknown subkeyId or another partner root's subkey, which stays active", async () => {
    const theirs = await issued(foreign.apiKey);
    const before = stored();
    expectApiError(await revoke(root.apiKey, '00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    expectApiError(await revoke(root.apiKey, theirs.subkeyId), 404, 'NOT_FOUND');
    expectApiError(await revoke(root.apiKey, root.keyId), 404, 'NOT_FOUND');
    expect(stored()).toEqual(before);
    expect(await statusOf(foreign.apiKey, theirs.subkeyId)).toBe('active');
    expect((await readLaunches(theirs.apiKey)).status).toBe(200);
    // The root itself was not revoked by naming its own id.
    expect((await list(root.apiKey)).status).toBe(200);
  });
});

describe('expiry (injected clock)', () => {
  it('a subkey key works until its expiresAt and answers 401 from expiresAt on', async () => {
    const expiresAt = t + 10 * 60_000;
    const sub = await issued(root.apiKey, { expiresAt: iso(expiresAt) });
    t = expiresAt - 1;
    expect((await readLaunches(sub.apiKey)).status).toBe(200);
    expect(await statusOf(root.apiKey, sub.subkeyId)).toBe('active');
    t = expiresAt;
    expectApiError(await readLaunches(sub.apiKey), 401, 'UNAUTHENTICATED');
    expect(await statusOf(root.apiKey, sub.subkeyId)).toBe('expired');
    t += 1;
    expectApiError(await readLaunches(sub.apiKey), 401, 'UNAUTHENTICATED');
  });

  it('a partner root works until its own expiry and answers 401 from it on', async () => {
    const expiresAt = t + 10 * 60_000;
    const shortRoot = s.partnerRoot({ name: 'Short-lived partner', expiresAt: iso(expiresAt), budgets: maxBudgets });
    t = expiresAt - 1;
    expect((await list(shortRoot.apiKey)).status).toBe(200);
    expect((await readLaunches(shortRoot.apiKey)).status).toBe(200);
    t = expiresAt;
    expectApiError(await list(shortRoot.apiKey), 401, 'UNAUTHENTICATED');
    expectApiError(await issue(shortRoot.apiKey, bytes({ expiresAt: iso(expiresAt) })), 401, 'UNAUTHENTICATED');
    expectApiError(await readLaunches(shortRoot.apiKey), 401, 'UNAUTHENTICATED');
  });
});

describe(`the lifetime limit: ${maxSubkeysPerRoot} subkeys per root, rotations included (409 SUBKEY_LIMIT_REACHED)`, () => {
  let limited: { apiKey: string; keyId: string };
  let principal: Principal;
  beforeAll(() => {
    expect(maxSubkeysPerRoot).toBe(1000);
    limited = s.partnerRoot({ name: 'Busy partner', budgets: maxBudgets });
    const p = findPrincipal(s.db, limited.apiKey, t);
    if (!p) throw new Error('the fresh root must authenticate');
    principal = p;
    // Seed 998 subkeys straight through the service, in one enclosing transaction so it stays fast.
    const service = new SubkeyService(s.db, () => t);
    s.db.transaction(() => {
      for (let i = 0; i < maxSubkeysPerRoot - 2; i++) {
        const body = bytes({ displayName: `seeded ${i}` });
        const answer = service.issue(principal, {
          idempotencyKey: `seed-${String(i).padStart(12, '0')}`,
          request: JSON.parse(body),
          rawBody: Buffer.from(body),
        });
        if (answer.status !== 201) throw new Error(`seeding ${i} answered ${answer.status}`);
      }
    })();
    expect(subkeyCount(limited.keyId)).toBe(maxSubkeysPerRoot - 2);
  });

  it('counts rotations: at 998, a rotation (999th) and an issue (1000th) succeed; the 1001st issue is refused and stores nothing', async () => {
    const first = (await items(limited.apiKey)).at(-1);
    if (!first) throw new Error('seeded subkeys must be listed');
    const rotated = await rotate(limited.apiKey, first.subkeyId, bytes({ displayName: 'rotation 999' }));
    expectSubkey(rotated, 201);
    expect(subkeyCount(limited.keyId)).toBe(maxSubkeysPerRoot - 1);
    const thousandth = await issue(limited.apiKey, bytes({ displayName: 'issue 1000' }));
    expectSubkey(thousandth, 201);
    expect(subkeyCount(limited.keyId)).toBe(maxSubkeysPerRoot);
    expect((await readLaunches(thousandth.json.apiKey)).status).toBe(200);

    const listed = await items(limited.apiKey);
    expect(listed).toHaveLength(maxSubkeysPerRoot);
    const before = stored();
    expectApiError(await issue(limited.apiKey, bytes({ displayName: 'issue 1001' })), 409, 'SUBKEY_LIMIT_REACHED');
    expect(stored()).toEqual(before);
    expect(await items(limited.apiKey)).toHaveLength(maxSubkeysPerRoot);
  });

  it('a rotation at the limit is refused with 409 SUBKEY_LIMIT_REACHED and leaves the old subkey active and working', async () => {
    const sub = (await items(limited.apiKey)).find((i) => i.displayName === 'issue 1000');
    expect(sub?.status).toBe('active');
    const before = stored();
    const r = await rotate(limited.apiKey, sub?.subkeyId ?? '', bytes({ displayName: 'rotation 1001' }));
    expectApiError(r, 409, 'SUBKEY_LIMIT_REACHED');
    expect(stored()).toEqual(before);
    expect(await statusOf(limited.apiKey, sub?.subkeyId ?? '')).toBe('active');
    const row = s.db.prepare('SELECT revoked_at FROM api_keys WHERE key_id = ?').get(sub?.subkeyId) as {
      revoked_at: string | null;
    };
    expect(row.revoked_at).toBeNull();
    // Revocation adds nothing, so it still works at the limit; the limit is per root.
    expectSubkey(await revoke(limited.apiKey, sub?.subkeyId ?? ''), 200);
    expectApiError(await issue(limited.apiKey, bytes()), 409, 'SUBKEY_LIMIT_REACHED');
    expectSubkey(await issue(root.apiKey, bytes()), 201);
  });
});

describe('list (listPartnerSubkeys)', () => {
  it('a fresh root lists no subkeys', async () => {
    const fresh = s.partnerRoot({ name: 'Fresh partner', budgets: maxBudgets });
    expect(await items(fresh.apiKey)).toEqual([]);
  });

  it("lists newest first, without apiKey or secretState, each of active, expired, revoked and rotated, and only the root's own", async () => {
    const own = s.partnerRoot({ name: 'Listing partner', budgets: maxBudgets });
    await issued(foreign.apiKey);
    const a = await issued(own.apiKey, { displayName: 'a (stays active)' });
    t += 1;
    const b = await issued(own.apiKey, { displayName: 'b (revoked)' });
    t += 1;
    const c = await issued(own.apiKey, { displayName: 'c (rotated)' });
    t += 1;
    const d = await issued(own.apiKey, { displayName: 'd (expires)', expiresAt: iso(t + 1000) });
    t += 1;
    const c2 = await rotate(own.apiKey, c.subkeyId, bytes({ displayName: "c' (replacement)" }));
    expectSubkey(c2, 201);
    expectSubkey(await revoke(own.apiKey, b.subkeyId), 200);
    t += 1000;

    const listed = await items(own.apiKey);
    expect(listed.map((i) => i.subkeyId)).toEqual([c2.json.subkeyId, d.subkeyId, c.subkeyId, b.subkeyId, a.subkeyId]);
    expect(listed.map((i) => i.status)).toEqual(['active', 'expired', 'rotated', 'revoked', 'active']);
    const createdAts = listed.map((i) => Date.parse(i.createdAt));
    expect([...createdAts].sort((x, y) => y - x)).toEqual(createdAts);
    for (const item of listed) {
      expect(item).not.toHaveProperty('apiKey');
      expect(item).not.toHaveProperty('secretState');
    }
    const r = await list(own.apiKey);
    expect(r.headers.get('cache-control')).toBe('no-store');
    for (const key of [a.apiKey, b.apiKey, c.apiKey, d.apiKey, c2.json.apiKey]) expect(r.text).not.toContain(key);
    expect(listed.find((i) => i.subkeyId === c2.json.subkeyId)).toMatchObject({
      lineageId: c.lineageId,
      rotatedFromSubkeyId: c.subkeyId,
    });
  });
});

describe("the root's subkeyAdminRequestsPerHour budget (every admin call, list included, counted before validation)", () => {
  it('serves the budget, answers 429 RATE_LIMITED with Retry-After past it, and opens again after the hour', async () => {
    const small = s.partnerRoot({
      name: 'Small admin budget',
      budgets: { ...maxBudgets, subkeyAdminRequestsPerHour: 3 },
    });
    const start = t;
    expect((await list(small.apiKey)).status).toBe(200);
    expectApiError(await issue(small.apiKey, bytes({ scopes: [] })), 400, 'INVALID_REQUEST');
    const sub = await issued(small.apiKey);
    const before = stored();
    const limited = await list(small.apiKey);
    expectApiError(limited, 429, 'RATE_LIMITED');
    expect(limited.json.error.retryable).toBe(true);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expectApiError(await rotate(small.apiKey, sub.subkeyId, bytes()), 429, 'RATE_LIMITED');
    expectApiError(await revoke(small.apiKey, sub.subkeyId), 429, 'RATE_LIMITED');
    expect(stored()).toEqual(before);
    t = start + 3_600_000 - 1;
    expectApiError(await list(small.apiKey), 429, 'RATE_LIMITED');
    t = start + 3_600_000;
    expect((await list(small.apiKey)).status).toBe(200);
  });
});
