import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/auth/keys.ts';
import type { OperationHandler } from '../../src/http/operation.ts';
import { logRequest } from '../../src/http/request-log.ts';
import { buildOperations } from '../../src/http/routes/index.ts';
import { captureLogs } from '../../src/observability/logger.ts';
import { runAdmin } from '../support/admin.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { startServerProcess } from '../support/process.ts';
import {
  exampleBytes,
  exampleWallet,
  freshV4Bytes,
  startServer,
  type TestServer,
  v4Example,
} from '../support/server.ts';

/*
 * Secrets never leave (every error includes a correlation requestId; a bounded 500 never contains secrets; the subkey
 * secret exists in its one 201 answer only; spec/openapi/components/responses.yaml). The last part is an end-to-end
 * scan: a real server process over a real SQLite file, every key it ever delivered, and its logs and database bytes
 * searched for them.
 */

/** common.schema.json $defs.RequestId: req_ and 32 lowercase hex digits, never a UUID. */
const requestIdPattern = /^req_[0-9a-f]{32}$/;
let seq = 0;
const idem = (tag = 'secret') => `${tag}-${Date.now()}-${++seq}`.padEnd(16, 'x');

const subkeyBody = (name = 'secret test', prepare = 50) =>
  JSON.stringify({
    displayName: name,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    prepareRequestsPerHour: prepare,
    readRequestsPerMinute: 50,
    expiresAt: '2030-12-31T23:59:59.000Z',
  });

/** Every form in which a key could leak: the whole key, its 43-character random part, its raw 32 bytes. */
function keyForms(apiKey: string): Array<{ name: string; bytes: Buffer }> {
  const random = apiKey.slice('clk_'.length);
  expect(random).toHaveLength(43);
  return [
    { name: 'key', bytes: Buffer.from(apiKey, 'utf8') },
    { name: 'random part', bytes: Buffer.from(random, 'utf8') },
    { name: 'raw random bytes', bytes: Buffer.from(random, 'base64url') },
  ];
}
function expectNoKeyIn(haystack: string | Buffer, apiKey: string, where: string): void {
  const buf = Buffer.isBuffer(haystack) ? haystack : Buffer.from(haystack, 'utf8');
  for (const form of keyForms(apiKey))
    expect(buf.includes(form.bytes), `${form.name} of a key found in ${where}`).toBe(false);
}
function headersText(r: Reply): string {
  return [...r.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
}

/** The ApiError envelope every error carries: a requestId (req_…) equal to X-Request-Id, a code, retryable. */
function expectApiError(r: Reply, status: number, code?: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(typeof r.json?.error?.code).toBe('string');
  if (code) expect(r.json.error.code).toBe(code);
  expect(typeof r.json.error.retryable).toBe('boolean');
  expect(r.json.error.requestId).toMatch(requestIdPattern);
  expect(r.headers.get('x-request-id')).toBe(r.json.error.requestId);
}

describe('bounded 500', () => {
  let s: TestServer;
  let real: Record<string, OperationHandler> = {};
  const failing: Record<string, OperationHandler> = {};
  let logged: string[] = [];
  let capture: ReturnType<typeof captureLogs> | undefined;
  /** The key id the database holds for a key (by its hash, the only form in which a key is stored). */
  const keyIdOf = (apiKey: string) =>
    s.db.prepare('SELECT key_id FROM api_keys WHERE key_hash = ?').pluck().get(hashKey(apiKey)) as string;

  beforeAll(async () => {
    // Every handler is the real one unless a test puts a failing one in `failing`: the app takes its handler map at
    // creation, before the database exists, so it gets a map that looks each handler up at call time.
    const operations = new Proxy({} as Record<string, OperationHandler>, {
      get: (_target, name: string) => (ctx: Parameters<OperationHandler>[0]) => {
        const handler = failing[name] ?? real[name];
        if (!handler) throw new Error(`no handler ${name}`);
        return handler(ctx);
      },
    });
    s = await startServer({}, undefined, operations, undefined, logRequest);
    real = buildOperations({ db: s.db, config: s.config, now: Date.now });
  });
  afterAll(() => s?.close());
  afterEach(() => {
    capture?.restore();
    capture = undefined;
    for (const k of Object.keys(failing)) delete failing[k];
  });
  /** Every line the process's logger writes from here (the failure's line and the request log's line). */
  const captureLog = () => {
    capture?.restore();
    capture = captureLogs();
    logged = capture.lines;
  };

  /** The 500 of a failing handler: ApiError INTERNAL with requestId, no key in body or headers, one redacted log line. */
  async function expectBounded500(r: Reply, keys: string[]): Promise<void> {
    expectApiError(r, 500, 'INTERNAL');
    expect(r.json.error.retryable).toBe(false);
    expect(Object.keys(r.json.error).sort()).toEqual(['code', 'message', 'requestId', 'retryable']);
    expect(r.text).not.toContain('boom');
    for (const key of keys) {
      expectNoKeyIn(r.text, key, 'the 500 body');
      expectNoKeyIn(headersText(r), key, 'the 500 headers');
    }
    const lines = logged.filter((l) => l.includes(r.json.error.requestId)).map((l) => JSON.parse(l));
    const failure = lines.filter((l) => l.msg === 'unhandled failure');
    expect(failure, logged.join('\n')).toHaveLength(1);
    expect(failure[0]).toMatchObject({ level: 'error', requestId: r.json.error.requestId });
    expect(failure[0].detail).toContain('boom');
    expect(failure[0].detail).toContain('clk_[redacted]');
    // The request log's line of the same request: the credential's key id, never its key.
    const request = lines.filter((l) => l.msg === 'request');
    expect(request, logged.join('\n')).toHaveLength(1);
    expect(request[0]).toMatchObject({ level: 'error', requestId: r.json.error.requestId, status: 500 });
    expect(keys.map(keyIdOf)).toContain(request[0].keyId);
    for (const key of keys) for (const l of logged) expectNoKeyIn(l, key, 'the log');
  }

  it("a handler failing with the caller's key in its message: 500 INTERNAL, no key in body, headers or log", async () => {
    const walletKey = s.key();
    const root = s.partnerRoot();
    for (const key of [walletKey, root.apiKey]) {
      failing.listCustomLaunchesV4 = () => {
        throw new Error(`boom ${key}`);
      };
      captureLog();
      const r = await call(`${s.url}/v4/chains/4663/custom-launches`, { headers: auth(key) });
      await expectBounded500(r, [key]);
    }
  });

  it("a subkey route failing with the root's and a subkey's key in the message (and a thrown non-Error)", async () => {
    const root = s.partnerRoot();
    const issued = await call(`${s.url}/v1/partner/subkeys`, {
      method: 'POST',
      headers: auth(root.apiKey, { 'Idempotency-Key': idem() }),
      body: subkeyBody(),
    });
    expect(issued.status, issued.text).toBe(201);
    const subkey = issued.json.apiKey as string;
    const keys = [root.apiKey, subkey];

    failing.listPartnerSubkeys = () => {
      throw new Error(`boom: root ${root.apiKey} issued ${subkey}; Authorization: Bearer ${root.apiKey}`);
    };
    captureLog();
    await expectBounded500(await call(`${s.url}/v1/partner/subkeys`, { headers: auth(root.apiKey) }), keys);

    failing.rotatePartnerSubkey = () => {
      // Not an Error: logInternal stringifies it.
      throw `boom ${subkey}`;
    };
    captureLog();
    const rotate = await call(`${s.url}/v1/partner/subkeys/${issued.json.subkeyId}/rotate`, {
      method: 'POST',
      headers: auth(root.apiKey, { 'Idempotency-Key': idem() }),
      body: subkeyBody(),
    });
    await expectBounded500(rotate, keys);

    failing.getCustomLaunchV4 = async () => {
      throw new TypeError(`boom (async) ${subkey}`);
    };
    captureLog();
    const get = await call(`${s.url}/v4/chains/4663/custom-launches/00000000-0000-4000-8000-000000000000`, {
      headers: auth(subkey),
    });
    await expectBounded500(get, keys);
  });

  it('a failure inside authentication (a broken database) is a bounded 500, not a 401, and leaks no key', async () => {
    // Last test of this server: closing its database breaks every later request.
    const key = s.key();
    captureLog();
    s.db.close();
    const r = await call(`${s.url}/v4/chains/4663/custom-launches`, { headers: auth(key) });
    expectApiError(r, 500, 'INTERNAL');
    expectNoKeyIn(r.text, key, 'the 500 body');
    expectNoKeyIn(headersText(r), key, 'the 500 headers');
    expect(logged.some((l) => l.includes(r.json.error.requestId))).toBe(true);
    for (const l of logged) expectNoKeyIn(l, key, 'the log');
  });
});

describe('every error of the subkey routes carries requestId = X-Request-Id', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s?.close());

  it('400, 401, 403, 404, 405, 409, 413, 415 and 429, none echoing a key', async () => {
    const root = s.partnerRoot();
    const wallet = s.key();
    const subkeys = `${s.url}/v1/partner/subkeys`;
    const missing = '00000000-0000-4000-8000-000000000000';
    const firstIdem = idem();
    const issued = await call(subkeys, {
      method: 'POST',
      headers: auth(root.apiKey, { 'Idempotency-Key': firstIdem }),
      body: subkeyBody(),
    });
    expect(issued.status, issued.text).toBe(201);
    const sub = issued.json as { apiKey: string; subkeyId: string };
    const revokedIssue = await call(subkeys, {
      method: 'POST',
      headers: auth(root.apiKey, { 'Idempotency-Key': idem() }),
      body: subkeyBody('to revoke'),
    });
    const revoked = revokedIssue.json as { apiKey: string; subkeyId: string };
    expect(
      (await call(`${subkeys}/${revoked.subkeyId}`, { method: 'DELETE', headers: auth(root.apiKey) })).status,
    ).toBe(200);
    const limitedRoot = s.partnerRoot({ budgets: { subkeyAdminRequestsPerHour: 1 } });
    expect((await call(subkeys, { headers: auth(limitedRoot.apiKey) })).status).toBe(200);

    const cases: Array<[string, number, string | undefined, () => Promise<Reply>]> = [
      [
        'schema',
        400,
        'INVALID_REQUEST',
        () =>
          call(subkeys, {
            method: 'POST',
            headers: auth(root.apiKey, { 'Idempotency-Key': idem() }),
            body: '{"displayName":"x"}',
          }),
      ],
      [
        'bad Idempotency-Key',
        400,
        'INVALID_REQUEST',
        () =>
          call(subkeys, {
            method: 'POST',
            headers: auth(root.apiKey, { 'Idempotency-Key': 'short' }),
            body: subkeyBody(),
          }),
      ],
      [
        'missing Idempotency-Key',
        400,
        'INVALID_REQUEST',
        () => call(subkeys, { method: 'POST', headers: auth(root.apiKey), body: subkeyBody() }),
      ],
      [
        'malformed JSON',
        400,
        undefined,
        () =>
          call(subkeys, {
            method: 'POST',
            headers: auth(root.apiKey, { 'Idempotency-Key': idem() }),
            body: '{"displayName":',
          }),
      ],
      [
        'path id not a uuid',
        400,
        'INVALID_REQUEST',
        () => call(`${subkeys}/not-a-uuid`, { method: 'DELETE', headers: auth(root.apiKey) }),
      ],
      [
        'bounds exceeded',
        400,
        'SUBKEY_BOUNDS_EXCEEDED',
        () =>
          call(subkeys, {
            method: 'POST',
            headers: auth(root.apiKey, { 'Idempotency-Key': idem() }),
            body: subkeyBody('too much', 100_000),
          }),
      ],
      [
        'expiry in the past',
        400,
        'INVALID_REQUEST',
        () =>
          call(subkeys, {
            method: 'POST',
            headers: auth(root.apiKey, { 'Idempotency-Key': idem() }),
            body: subkeyBody().replace('2030-12-31', '2001-01-01'),
          }),
      ],
      ['no key', 401, 'UNAUTHENTICATED', () => call(subkeys)],
      ['unknown key', 401, 'UNAUTHENTICATED', () => call(subkeys, { headers: auth(`clk_${'A'.repeat(43)}`) })],
      ['revoked subkey', 401, 'UNAUTHENTICATED', () => call(subkeys, { headers: auth(revoked.apiKey) })],
      [
        'a root key as Basic',
        401,
        'UNAUTHENTICATED',
        () => call(subkeys, { headers: { Authorization: `Basic ${root.apiKey}` } }),
      ],
      ['a root key with a suffix', 401, 'UNAUTHENTICATED', () => call(subkeys, { headers: auth(`${root.apiKey}x`) })],
      ['subkey lists subkeys', 403, 'INSUFFICIENT_SCOPE', () => call(subkeys, { headers: auth(sub.apiKey) })],
      [
        'wallet key issues',
        403,
        'INSUFFICIENT_SCOPE',
        () =>
          call(subkeys, { method: 'POST', headers: auth(wallet, { 'Idempotency-Key': idem() }), body: subkeyBody() }),
      ],
      [
        'revoke unknown',
        404,
        'NOT_FOUND',
        () => call(`${subkeys}/${missing}`, { method: 'DELETE', headers: auth(root.apiKey) }),
      ],
      [
        'rotate unknown',
        404,
        'NOT_FOUND',
        () =>
          call(`${subkeys}/${missing}/rotate`, {
            method: 'POST',
            headers: auth(root.apiKey, { 'Idempotency-Key': idem() }),
            body: subkeyBody(),
          }),
      ],
      [
        'method',
        405,
        undefined,
        () => call(subkeys, { method: 'PUT', headers: auth(root.apiKey), body: subkeyBody() }),
      ],
      [
        'idempotency conflict',
        409,
        'IDEMPOTENCY_CONFLICT',
        () =>
          call(subkeys, {
            method: 'POST',
            headers: auth(root.apiKey, { 'Idempotency-Key': firstIdem }),
            body: subkeyBody('other bytes'),
          }),
      ],
      [
        'rotate revoked',
        409,
        'SUBKEY_REVOKED',
        () =>
          call(`${subkeys}/${revoked.subkeyId}/rotate`, {
            method: 'POST',
            headers: auth(root.apiKey, { 'Idempotency-Key': idem() }),
            body: subkeyBody(),
          }),
      ],
      [
        'too large',
        413,
        'PAYLOAD_TOO_LARGE',
        () =>
          call(subkeys, {
            method: 'POST',
            headers: auth(root.apiKey, { 'Idempotency-Key': idem() }),
            body: JSON.stringify({ displayName: 'x'.repeat(20_000) }),
          }),
      ],
      [
        'media type',
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        () =>
          call(subkeys, {
            method: 'POST',
            headers: { ...auth(root.apiKey, { 'Idempotency-Key': idem() }), 'Content-Type': 'text/plain' },
            body: subkeyBody(),
          }),
      ],
      ['admin budget', 429, 'RATE_LIMITED', () => call(subkeys, { headers: auth(limitedRoot.apiKey) })],
    ];
    const seen = new Set<string>();
    for (const [name, status, code, send] of cases) {
      const r = await send();
      expect(r.status, `${name}: ${r.text}`).toBe(status);
      expectApiError(r, status, code);
      expect(seen.has(r.json.error.requestId), 'request ids are fresh').toBe(false);
      seen.add(r.json.error.requestId);
      if (status === 429) {
        expect(r.headers.get('retry-after')).toMatch(/^[0-9]+$/);
        expect(Number(r.headers.get('retry-after'))).toBe(r.json.error.retryAfterSeconds);
      }
      for (const key of [root.apiKey, sub.apiKey, revoked.apiKey, wallet, limitedRoot.apiKey]) {
        expectNoKeyIn(r.text, key, `the ${name} body`);
        expectNoKeyIn(headersText(r), key, `the ${name} headers`);
      }
    }
  });
});

describe('end-to-end scan: no key material in the log or the database (real process, admin CLI)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'custom-launch-secrets-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const runCli = (args: string[], databasePath: string) => runAdmin(args, { DATABASE_PATH: databasePath });

  it('issue, replay, rotate, revoke, list, launches, 401s: no key in stdout/stderr or the SQLite files; every key hash is there', async () => {
    const databasePath = join(dir, 'scan.sqlite');
    const partner = await runCli(
      [
        'partners',
        'create',
        '--name',
        'Scan partner',
        '--wallet',
        '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        '--chains',
        '4663',
        '--expires-at',
        '2031-12-31T23:59:59.999Z',
      ],
      databasePath,
    );
    expect(partner.code, partner.stderr).toBe(0);
    const rootKey = JSON.parse(partner.stdout.trim().split('\n').at(-1) ?? '{}').apiKey as string;
    expect(rootKey).toMatch(/^clk_[A-Za-z0-9_-]{43}$/);
    const walletCli = await runCli(
      [
        'keys',
        'create',
        '--wallet',
        exampleWallet,
        '--scopes',
        'custom-launch:create,custom-launch:read',
        '--chains',
        '4663',
      ],
      databasePath,
    );
    expect(walletCli.code, walletCli.stderr).toBe(0);
    const walletKey = JSON.parse(walletCli.stdout.trim().split('\n').at(-1) ?? '{}').apiKey as string;
    const keys: string[] = [rootKey, walletKey];

    const proc = await startServerProcess({
      DATABASE_PATH: databasePath,
      LIFECYCLE_POLL_MS: '50',
      MODULES_REVIEW_POLL_MS: '50',
    });
    // Everything the process writes from here on (its first line, the listening URL, carries no key).
    let logs = '';
    proc.child.stdout?.on('data', (c: Buffer) => {
      logs += c.toString('utf8');
    });
    proc.child.stderr?.on('data', (c: Buffer) => {
      logs += c.toString('utf8');
    });
    const answers: string[] = [];
    const send = async (path: string, init: Parameters<typeof call>[1] = {}) => {
      const r = await call(`${proc.url}${path}`, init);
      answers.push(`${r.status} ${r.text}`);
      return r;
    };
    try {
      // Issue, exact replay (no key), conflicting replay, bad Idempotency-Key.
      const k1 = idem('issue');
      const s1 = await send('/v1/partner/subkeys', {
        method: 'POST',
        headers: auth(rootKey, { 'Idempotency-Key': k1 }),
        body: subkeyBody('scan one'),
      });
      expect(s1.status, s1.text).toBe(201);
      keys.push(s1.json.apiKey);
      const replay = await send('/v1/partner/subkeys', {
        method: 'POST',
        headers: auth(rootKey, { 'Idempotency-Key': k1 }),
        body: subkeyBody('scan one'),
      });
      expect(replay.status).toBe(200);
      expect(replay.json).toMatchObject({ apiKey: null, secretState: 'already-delivered' });
      expect(
        (
          await send('/v1/partner/subkeys', {
            method: 'POST',
            headers: auth(rootKey, { 'Idempotency-Key': k1 }),
            body: subkeyBody('scan other'),
          })
        ).status,
      ).toBe(409);
      expect(
        (
          await send('/v1/partner/subkeys', {
            method: 'POST',
            headers: auth(rootKey, { 'Idempotency-Key': 'bad key!' }),
            body: subkeyBody(),
          })
        ).status,
      ).toBe(400);

      // Launches created and read with the subkey, the root and the wallet key.
      const launch = async (key: string) => {
        const r = await send('/v4/chains/4663/custom-launches', {
          method: 'POST',
          headers: auth(key, { 'Idempotency-Key': idem('launch') }),
          body: freshV4Bytes(),
        });
        expect(r.status, r.text).toBe(202);
        expect((await send(`/v4/chains/4663/custom-launches/${r.json.launchId}`, { headers: auth(key) })).status).toBe(
          200,
        );
        expect((await send('/v4/chains/4663/custom-launches', { headers: auth(key) })).status).toBe(200);
        return r.json.launchId as string;
      };
      await launch(s1.json.apiKey);
      await launch(rootKey);
      await launch(walletKey);
      const preflight = await send('/v4/chains/4663/custom-launches/preflight', {
        method: 'POST',
        headers: auth(s1.json.apiKey),
        body: exampleBytes(v4Example),
      });
      expect(preflight.status, preflight.text).toBe(200);

      // Rotate, replay the rotation, the old key is 401, the replacement reads the lineage.
      const kr = idem('rotate');
      const rotated = await send(`/v1/partner/subkeys/${s1.json.subkeyId}/rotate`, {
        method: 'POST',
        headers: auth(rootKey, { 'Idempotency-Key': kr }),
        body: subkeyBody('scan one, rotated'),
      });
      expect(rotated.status, rotated.text).toBe(201);
      keys.push(rotated.json.apiKey);
      const rotateReplay = await send(`/v1/partner/subkeys/${s1.json.subkeyId}/rotate`, {
        method: 'POST',
        headers: auth(rootKey, { 'Idempotency-Key': kr }),
        body: subkeyBody('scan one, rotated'),
      });
      expect(rotateReplay.status).toBe(200);
      expect(rotateReplay.json.apiKey).toBeNull();
      expect((await send('/v4/chains/4663/custom-launches', { headers: auth(s1.json.apiKey) })).status).toBe(401);
      await launch(rotated.json.apiKey);

      // A second subkey, revoked (twice), then 401 everywhere; rotating it is 409.
      const s2 = await send('/v1/partner/subkeys', {
        method: 'POST',
        headers: auth(rootKey, { 'Idempotency-Key': idem('issue') }),
        body: subkeyBody('scan two'),
      });
      expect(s2.status, s2.text).toBe(201);
      keys.push(s2.json.apiKey);
      await launch(s2.json.apiKey);
      for (let i = 0; i < 2; i++) {
        expect(
          (await send(`/v1/partner/subkeys/${s2.json.subkeyId}`, { method: 'DELETE', headers: auth(rootKey) })).status,
        ).toBe(200);
      }
      expect((await send('/v4/chains/4663/custom-launches', { headers: auth(s2.json.apiKey) })).status).toBe(401);
      expect(
        (
          await send('/v4/chains/4663/custom-launches', {
            method: 'POST',
            headers: auth(s2.json.apiKey, { 'Idempotency-Key': idem('launch') }),
            body: exampleBytes(v4Example),
          })
        ).status,
      ).toBe(401);
      expect(
        (
          await send(`/v1/partner/subkeys/${s2.json.subkeyId}/rotate`, {
            method: 'POST',
            headers: auth(rootKey, { 'Idempotency-Key': idem('rotate') }),
            body: subkeyBody(),
          })
        ).status,
      ).toBe(409);

      // Keys presented where they do not belong: Basic, suffixed, as a query parameter, to a subkey-admin route.
      expect((await send('/v1/partner/subkeys', { headers: { Authorization: `Basic ${rootKey}` } })).status).toBe(401);
      expect((await send('/v1/partner/subkeys', { headers: auth(`${rootKey}x`) })).status).toBe(401);
      expect((await send(`/v4/chains/4663/custom-launches?key=${rootKey}`, { headers: auth(rootKey) })).status).toBe(
        400,
      );
      expect((await send('/v1/partner/subkeys', { headers: auth(rotated.json.apiKey) })).status).toBe(403);

      const listed = await send('/v1/partner/subkeys', { headers: auth(rootKey) });
      expect(listed.status).toBe(200);
      expect(listed.json.items.map((i: { status: string }) => i.status).sort()).toEqual([
        'active',
        'revoked',
        'rotated',
      ]);

      // Let the lifecycle worker take the launches on, so its own log lines are part of the scan.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } finally {
      await proc.stop();
    }
    expect(keys).toHaveLength(5);
    expect(new Set(keys).size).toBe(5);
    expect(logs).toContain('stopping');

    // Only the 201 answers that delivered a key carry it; nothing else the server answered does.
    const delivering = answers.filter((a) => keys.some((k) => a.includes(k)));
    expect(delivering.length).toBe(3);
    for (const a of delivering) expect(a.startsWith('201 ')).toBe(true);

    for (const key of keys) expectNoKeyIn(logs, key, 'the server log');
    // The request log has a line per answered request, each naming its credential by key id alone.
    const requestLines = logs
      .split('\n')
      .filter((l) => l.includes('"msg":"request"'))
      .map((l) => JSON.parse(l) as { requestId: string; keyId: string | null; status: number });
    expect(requestLines.length).toBeGreaterThanOrEqual(answers.length);
    const db0 = new Database(databasePath, { readonly: true });
    const storedKeyIds = new Set(db0.prepare('SELECT key_id FROM api_keys').pluck().all() as string[]);
    db0.close();
    const named = requestLines.filter((l) => l.keyId !== null);
    expect(named.length).toBeGreaterThan(0);
    for (const l of named) expect(storedKeyIds.has(l.keyId as string), l.keyId as string).toBe(true);

    const files = readdirSync(dir).filter((f) => f.startsWith('scan.sqlite'));
    expect(files).toContain('scan.sqlite');
    const bytes = Buffer.concat(files.map((f) => readFileSync(join(dir, f))));
    for (const key of keys) {
      expectNoKeyIn(bytes, key, `the SQLite files (${files.join(', ')})`);
      // The scan reads the right bytes: the key's hash, its only stored form, is there.
      expect(bytes.includes(Buffer.from(hashKey(key), 'utf8')), 'a key hash in the database').toBe(true);
    }

    const db = new Database(databasePath, { readonly: true });
    try {
      const records = db
        .prepare(
          `SELECT operation, response_status, response_body FROM idempotency_records
             WHERE operation IN ('issuePartnerSubkey', 'rotatePartnerSubkey') ORDER BY operation`,
        )
        .all() as Array<{ operation: string; response_status: number; response_body: string }>;
      expect(records.map((r) => r.operation)).toEqual([
        'issuePartnerSubkey',
        'issuePartnerSubkey',
        'rotatePartnerSubkey',
      ]);
      for (const r of records) {
        expect(r.response_status).toBe(200);
        expect(r.response_body).toContain('"apiKey":null');
        expect(JSON.parse(r.response_body)).toMatchObject({ apiKey: null, secretState: 'already-delivered' });
      }
      const hashes = db.prepare('SELECT key_hash FROM api_keys').all() as Array<{ key_hash: string }>;
      expect(hashes.map((h) => h.key_hash).sort()).toEqual(keys.map(hashKey).sort());
    } finally {
      db.close();
    }
  }, 60_000);
});
