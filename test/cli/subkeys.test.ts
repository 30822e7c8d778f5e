import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodes } from '../../src/cli/exit-codes.ts';
import { type CliRun, runCli } from '../support/cli.ts';
import { auth, call, closeLoopback, listenLoopback } from '../support/http.ts';
import { type LoopbackProxy, startProxy } from '../support/proxy.ts';
import { startServer, type TestServer } from '../support/server.ts';

/**
 * `custom-launch subkeys …` run as a user runs it (the package bin, a child process) against a real server over real
 * HTTP with a partner root, through the recording loopback proxy that injects answers and proves what was or was not
 * sent (spec/openapi/paths/partner-subkeys.yaml, partner-subkey.yaml, partner-subkey-rotate.yaml). Exit codes: usage 2,
 * refused 5, unresolved 6.
 */
const subkeysPath = '/v1/partner/subkeys';
const launchesPath = '/v4/chains/4663/custom-launches';
/** The support line: requestId (common.schema.json $defs.RequestId), HTTP status, UTC time, code; never a key. */
const requestIdIn =
  /support: requestId req_[0-9a-f]{32}, HTTP [1-5][0-9]{2}, [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z, [A-Z_]+/;
const injectedRequestId = 'req_0000000000000000000000000000abcd';
const injectedSupport = (status: number, code: string) =>
  new RegExp(
    `support: requestId ${injectedRequestId}, HTTP ${status}, [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{12}Z, ${code}`,
  );

let s: TestServer;
let proxy: LoopbackProxy;
let root: { apiKey: string; partnerId: string; keyId: string };
let env: Record<string, string>;
let serial = 0;
const runs: CliRun[] = [];
/** Every subkey secret a run printed: none may ever reach stderr. */
const secrets: string[] = [];

beforeAll(async () => {
  s = await startServer();
  root = s.partnerRoot();
  proxy = await startProxy(() => s.url);
  env = { PLATFORM_API_KEY: root.apiKey, CUSTOM_LAUNCH_ORIGIN: proxy.url };
});
afterAll(async () => {
  await proxy?.close();
  await s?.close();
});

const cli = async (args: string[], environment: Record<string, string> = env) => {
  const run = await runCli(['subkeys', ...args], environment);
  runs.push(run);
  for (const m of run.stdout.matchAll(/clk_[A-Za-z0-9_-]{43}/g)) secrets.push(m[0]);
  return run;
};
const expectExit = (run: CliRun, exit: keyof typeof exitCodes, code?: string) => {
  expect(run.code, run.stderr).toBe(exitCodes[exit].code);
  if (code) expect(run.stderr).toContain(code);
};
/** A fresh idempotency key the test names. */
const idem = () => `subkeys-test.${Date.now()}.${++serial}`;
const flags = (edit: Partial<Record<string, string>> = {}) => {
  const v = {
    name: `Shop ${serial}`,
    scopes: 'custom-launch:create,custom-launch:read',
    prepare: '10',
    read: '20',
    expires: '2030-01-01T00:00:00.000Z',
    ...edit,
  };
  return [
    '--name',
    v.name,
    '--scopes',
    v.scopes,
    '--prepare-per-hour',
    v.prepare,
    '--read-per-minute',
    v.read,
    '--expires-at',
    v.expires,
  ] as string[];
};
const seenFrom = (start: number) => proxy.seen.slice(start);
const posts = (start: number) => seenFrom(start).filter((r) => r.method === 'POST');
const apiError = (status: number, code: string, retryable: boolean, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    error: {
      code,
      message: `injected ${status}`,
      requestId: injectedRequestId,
      retryable,
      ...extra,
    },
  });
const launchesWith = (key: string) => call(`${s.url}${launchesPath}`, { headers: auth(key) });

async function issue(edit: Partial<Record<string, string>> = {}): Promise<Record<string, any>> {
  const run = await cli(['issue', ...flags(edit), '--idempotency-key', idem(), '--json']);
  expectExit(run, 'ok');
  expect(run.json.outcome).toBe('issued');
  return run.json.subkey;
}

describe('usage: refused before anything is sent (exit 2)', () => {
  // Nothing here reaches the service, so the cases run side by side.
  it.concurrent.for([
    ['no PLATFORM_API_KEY (list)', ['list'], 'PLATFORM_API_KEY', true],
    ['no PLATFORM_API_KEY (issue)', ['issue', ...flags()], 'PLATFORM_API_KEY', true],
    ['no PLATFORM_API_KEY (revoke)', ['revoke', '00000000-0000-4000-8000-000000000000'], 'PLATFORM_API_KEY', true],
    ['--api-key on the command line', ['list', '--api-key', 'clk_x'], 'never from a command-line flag', false],
    ['--key= on the command line', ['issue', ...flags(), '--key=clk_x'], 'never from a command-line flag', false],
    ['--token on the command line', ['revoke', '--token', 'x'], 'never from a command-line flag', false],
    ['no subkeys command', [], 'list, issue, rotate or revoke', false],
    ['an unknown subkeys command', ['delete'], 'unknown subkeys command', false],
    ['issue without --expires-at', ['issue', ...flags().slice(0, 8)], '--expires-at', false],
    [
      'issue with a scope a child never holds',
      ['issue', ...flags({ scopes: 'partner-subkeys:manage' })],
      '--scopes',
      false,
    ],
    [
      'issue with an expiry without milliseconds',
      ['issue', ...flags({ expires: '2030-01-01T00:00:00Z' })],
      '--expires-at',
      false,
    ],
    ['issue with --prepare-per-hour 0', ['issue', ...flags({ prepare: '0' })], '--prepare-per-hour', false],
    // The contract's bounds, checked against its schema before anything is sent.
    [
      'issue with --prepare-per-hour 100001',
      ['issue', ...flags({ prepare: '100001' })],
      '/prepareRequestsPerHour',
      false,
    ],
    ['issue with --read-per-minute 10001', ['issue', ...flags({ read: '10001' })], '/readRequestsPerMinute', false],
    ['issue with a 65-character --name', ['issue', ...flags({ name: 'x'.repeat(65) })], '/displayName', false],
    [
      'issue with an expiry on no calendar day',
      ['issue', ...flags({ expires: '2030-02-30T00:00:00.000Z' })],
      '/expiresAt',
      false,
    ],
    [
      'issue with a short --idempotency-key',
      ['issue', ...flags(), '--idempotency-key', 'short'],
      '--idempotency-key',
      false,
    ],
    ['issue with an argument', ['issue', 'extra', ...flags()], 'takes no argument', false],
    ['rotate without a subkeyId', ['rotate', ...flags()], 'one subkeyId', false],
    ['rotate with a subkeyId that is no UUID', ['rotate', 'abc', ...flags()], 'not a subkeyId', false],
    ['revoke without a subkeyId', ['revoke'], 'one subkeyId', false],
    ['list with an issue flag', ['list', '--name', 'x'], 'belongs to subkeys issue and rotate', false],
    ['an option of another command', ['list', '--journal', 'j.json'], '--journal', false],
    ['--max-wait 0', ['list', '--max-wait', '0'], '--max-wait', false],
  ] as Array<[string, string[], string, boolean]>)('%s', async ([, args, message, noKey], { expect }) => {
    const start = proxy.seen.length;
    // runCli passes only the environment it is given: without PLATFORM_API_KEY here, none at all.
    const run = await cli(args, noKey ? { CUSTOM_LAUNCH_ORIGIN: proxy.url } : env);
    expect(run.code, run.stderr).toBe(exitCodes.usage.code);
    expect(run.stderr).toContain(message);
    expect(seenFrom(start)).toEqual([]);
  });

  it('an issue flag outside the subkeys group is refused', async () => {
    const run = await runCli(['status', '00000000-0000-4000-8000-000000000000', '--name', 'x'], env);
    runs.push(run);
    expectExit(run, 'usage', '--name');
  });

  it('--help names the subkeys group', async () => {
    const run = await runCli(['--help'], {});
    expect(run.code).toBe(0);
    for (const text of [
      'custom-launch subkeys list',
      'subkeys issue --name',
      'subkeys rotate <subkeyId>',
      'subkeys revoke',
    ]) {
      expect(run.stdout).toContain(text);
    }
  });
});

describe('issue', () => {
  it('prints the subkey with its one-time key on stdout, the generated idempotency key first on stderr; the key works', async () => {
    const start = proxy.seen.length;
    const run = await cli(['issue', ...flags({ name: 'Shop issue' })]);
    expectExit(run, 'ok');
    const subkey = JSON.parse(run.stdout);
    expect(subkey).toMatchObject({
      schemaVersion: 'platform.partner-subkey.v1',
      displayName: 'Shop issue',
      scopes: ['custom-launch:create', 'custom-launch:read'],
      budgets: { prepareRequestsPerHour: 10, readRequestsPerMinute: 20 },
      expiresAt: '2030-01-01T00:00:00.000Z',
      status: 'active',
      rotatedFromSubkeyId: null,
      secretState: 'delivered-once',
    });
    expect(subkey.apiKey).toMatch(/^clk_/);
    expect(run.stdout.split(subkey.apiKey)).toHaveLength(2);
    const printed =
      /idempotency key (\S+): if the answer is lost, rerun with --idempotency-key \1 and the same flags/.exec(
        run.stderr,
      );
    expect(printed, run.stderr).not.toBeNull();
    expect(run.stderr).toContain('shown only now');
    // The one request: the root key, the printed Idempotency-Key, and the body in its fixed field order.
    const sent = posts(start);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.path).toBe(subkeysPath);
    expect(sent[0]?.headers.authorization).toBe(`Bearer ${root.apiKey}`);
    expect(sent[0]?.headers['idempotency-key']).toBe(printed?.[1]);
    expect(sent[0]?.body.toString()).toBe(
      '{"displayName":"Shop issue","scopes":["custom-launch:create","custom-launch:read"],"prepareRequestsPerHour":10,"readRequestsPerMinute":20,"expiresAt":"2030-01-01T00:00:00.000Z"}',
    );
    expect((await launchesWith(subkey.apiKey)).status).toBe(200);
  });

  it('--json prints one object: outcome, httpStatus, idempotencyKey and the subkey', async () => {
    const key = idem();
    const run = await cli(['issue', ...flags(), '--idempotency-key', key, '--json']);
    expectExit(run, 'ok');
    expect(Object.keys(run.json).sort()).toEqual(['httpStatus', 'idempotencyKey', 'outcome', 'subkey']);
    expect(run.json).toMatchObject({ outcome: 'issued', httpStatus: 201, idempotencyKey: key });
    expect(run.json.subkey.secretState).toBe('delivered-once');
    // A given key is not announced again.
    expect(run.stderr).not.toContain('if the answer is lost');
  });

  it('a replay with the same key and flags (in any order) says already-delivered and shows no key', async () => {
    const key = idem();
    const start = proxy.seen.length;
    const first = await cli(['issue', ...flags({ name: 'Shop replay' }), '--idempotency-key', key, '--json']);
    expectExit(first, 'ok');
    const secret = first.json.subkey.apiKey as string;
    // The same values in another flag order, the scopes reversed: the same bytes.
    const replay = await cli([
      'issue',
      '--idempotency-key',
      key,
      '--expires-at',
      '2030-01-01T00:00:00.000Z',
      '--scopes',
      'custom-launch:read,custom-launch:create',
      '--read-per-minute',
      '20',
      '--prepare-per-hour',
      '10',
      '--name',
      'Shop replay',
    ]);
    expectExit(replay, 'ok');
    const subkey = JSON.parse(replay.stdout);
    expect(subkey.subkeyId).toBe(first.json.subkey.subkeyId);
    expect(subkey.secretState).toBe('already-delivered');
    expect(subkey.apiKey).toBeNull();
    expect(replay.stdout).not.toContain(secret);
    expect(replay.stderr).toContain('delivered by the first answer and is not shown again');
    expect(replay.stderr).toContain('rotate the subkey');
    const [a, b] = posts(start);
    expect(b?.body.equals(a?.body as Buffer)).toBe(true);
    const json = await cli(['issue', ...flags({ name: 'Shop replay' }), '--idempotency-key', key, '--json']);
    expect(json.json).toMatchObject({ outcome: 'replayed', httpStatus: 200, idempotencyKey: key });
    expect(json.json.subkey.apiKey).toBeNull();
  });

  it('the same key with other flags is IDEMPOTENCY_CONFLICT (exit 5), with the requestId', async () => {
    const key = idem();
    expectExit(await cli(['issue', ...flags({ name: 'Shop conflict' }), '--idempotency-key', key]), 'ok');
    const run = await cli(['issue', ...flags({ name: 'Shop conflict', read: '21' }), '--idempotency-key', key]);
    expectExit(run, 'refused', 'IDEMPOTENCY_CONFLICT');
    expect(run.stderr).toMatch(requestIdIn);
    expect(run.stderr).toContain('409');
    expect(run.stdout).toBe('');
    const json = await cli([
      'issue',
      ...flags({ name: 'Shop conflict', read: '22' }),
      '--idempotency-key',
      key,
      '--json',
    ]);
    expect(json.json.error.exit).toBe(exitCodes.refused.code);
    expect(json.json.error.message).toMatch(requestIdIn);
  });

  it('the service bounds are refusals (exit 5) with the code and the requestId', async () => {
    const above = await cli(['issue', ...flags({ prepare: '5000' }), '--idempotency-key', idem()]);
    expectExit(above, 'refused', 'SUBKEY_BOUNDS_EXCEEDED');
    expect(above.stderr).toMatch(requestIdIn);
    const past = await cli(['issue', ...flags({ expires: '2020-01-01T00:00:00.000Z' }), '--idempotency-key', idem()]);
    expectExit(past, 'refused', 'INVALID_REQUEST');
    expect(past.stderr).toMatch(requestIdIn);
  });

  it('a subkey without custom-launch:read cannot read launches', async () => {
    const subkey = await issue({ scopes: 'custom-launch:create' });
    expect(subkey.scopes).toEqual(['custom-launch:create']);
    expect((await launchesWith(subkey.apiKey)).status).toBe(403);
  });
});

describe('list, rotate and revoke', () => {
  it('list shows every subkey of the root, newest first, without secrets', async () => {
    const a = await issue({ name: 'Shop list a' });
    const b = await issue({ name: 'Shop list b' });
    const run = await cli(['list', '--json']);
    expectExit(run, 'ok');
    const ids = run.json.items.map((i: { subkeyId: string }) => i.subkeyId);
    expect(ids.indexOf(b.subkeyId)).toBeLessThan(ids.indexOf(a.subkeyId));
    expect(ids.indexOf(a.subkeyId)).toBeGreaterThanOrEqual(0);
    expect(run.stdout).not.toMatch(/clk_/);
    const human = await cli(['list']);
    expectExit(human, 'ok');
    expect(human.stdout).toContain(`${b.subkeyId}  active   "Shop list b"`);
  });

  it('rotate issues the replacement in the same lineage; the old key stops, the new works', async () => {
    const old = await issue({ name: 'Shop rotate', scopes: 'custom-launch:read' });
    expect((await launchesWith(old.apiKey)).status).toBe(200);
    const run = await cli(['rotate', old.subkeyId, ...flags({ name: 'Shop rotate 2', scopes: 'custom-launch:read' })]);
    expectExit(run, 'ok');
    const next = JSON.parse(run.stdout);
    expect(next).toMatchObject({
      lineageId: old.lineageId,
      rotatedFromSubkeyId: old.subkeyId,
      secretState: 'delivered-once',
      displayName: 'Shop rotate 2',
    });
    expect(run.stderr).toContain('if the answer is lost');
    expect(run.stderr).toContain(`subkey ${old.subkeyId} is rotated`);
    expect((await launchesWith(old.apiKey)).status).toBe(401);
    expect((await launchesWith(next.apiKey)).status).toBe(200);
    const list = await cli(['list', '--json']);
    const status = (id: string) => list.json.items.find((i: { subkeyId: string }) => i.subkeyId === id)?.status;
    expect([status(old.subkeyId), status(next.subkeyId)]).toEqual(['rotated', 'active']);
    // The rotated one cannot rotate again.
    const again = await cli(['rotate', old.subkeyId, ...flags(), '--idempotency-key', idem()]);
    expectExit(again, 'refused', 'SUBKEY_REVOKED');
    expect(again.stderr).toMatch(requestIdIn);
  });

  it('revoke stops the key at once and is idempotent; an unknown subkey is NOT_FOUND', async () => {
    const subkey = await issue({ name: 'Shop revoke' });
    const run = await cli(['revoke', subkey.subkeyId]);
    expectExit(run, 'ok');
    expect(run.stdout).toContain(`subkey ${subkey.subkeyId}: revoked`);
    expect((await launchesWith(subkey.apiKey)).status).toBe(401);
    const again = await cli(['revoke', subkey.subkeyId, '--json']);
    expectExit(again, 'ok');
    expect(again.json).toMatchObject({ subkeyId: subkey.subkeyId, status: 'revoked', apiKey: null });
    const unknown = await cli(['revoke', '00000000-0000-4000-8000-000000000000']);
    expectExit(unknown, 'refused', 'NOT_FOUND');
    expect(unknown.stderr).toMatch(requestIdIn);
  });

  it('a wallet key (no partner-subkeys:manage) is refused with INSUFFICIENT_SCOPE', async () => {
    const run = await cli(['list'], { ...env, PLATFORM_API_KEY: s.key() });
    expectExit(run, 'refused', 'INSUFFICIENT_SCOPE');
    expect(run.stderr).toMatch(requestIdIn);
  });
});

describe('resends: only the same bytes with the same key, on no answer, 429 and retryable 503', () => {
  it('a 429 with Retry-After is waited out and the identical request resent', async () => {
    const start = proxy.seen.length;
    proxy.plan('POST', subkeysPath, {
      kind: 'answer',
      status: 429,
      headers: { 'Retry-After': '1' },
      body: apiError(429, 'RATE_LIMITED', true, { retryAfterSeconds: 1 }),
    });
    const run = await cli(['issue', ...flags({ name: 'Shop 429' })]);
    expectExit(run, 'ok');
    expect(JSON.parse(run.stdout).secretState).toBe('delivered-once');
    expect(run.stderr).toContain('429 RATE_LIMITED; resending the same request in 1 s');
    const [first, second] = posts(start);
    expect(posts(start)).toHaveLength(2);
    expect(second?.body.equals(first?.body as Buffer)).toBe(true);
    expect(second?.headers['idempotency-key']).toBe(first?.headers['idempotency-key']);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('a Retry-After past --max-wait ends at once: RATE_LIMITED (exit 5), nothing resent', async () => {
    const start = proxy.seen.length;
    proxy.plan('POST', subkeysPath, {
      kind: 'answer',
      status: 429,
      headers: { 'Retry-After': '3600' },
      body: apiError(429, 'RATE_LIMITED', true, { retryAfterSeconds: 3600 }),
    });
    const run = await cli(['issue', ...flags(), '--max-wait', '5']);
    expectExit(run, 'refused', 'RATE_LIMITED');
    expect(run.stderr).toMatch(injectedSupport(429, 'RATE_LIMITED'));
    expect(run.stderr).toContain('nothing was issued');
    expect(posts(start)).toHaveLength(1);
  });

  it("the root's own subkeyAdminRequestsPerHour budget answers 429 with Retry-After, every call counted", async () => {
    const small = s.partnerRoot({ budgets: { subkeyAdminRequestsPerHour: 1 } });
    const smallEnv = { PLATFORM_API_KEY: small.apiKey, CUSTOM_LAUNCH_ORIGIN: proxy.url };
    expectExit(await cli(['list'], smallEnv), 'ok');
    const start = proxy.seen.length;
    const run = await cli(['list', '--max-wait', '5'], smallEnv);
    expectExit(run, 'refused', 'RATE_LIMITED');
    expect(run.stderr).toMatch(requestIdIn);
    expect(run.stderr).toContain('passes the max wait');
    expect(seenFrom(start)).toHaveLength(1);
  });

  it('a retryable 503 is resent; a 503 that is not retryable is a refusal', async () => {
    let start = proxy.seen.length;
    proxy.plan('POST', subkeysPath, {
      kind: 'answer',
      status: 503,
      headers: { 'Retry-After': '1' },
      body: apiError(503, 'UNAVAILABLE', true),
    });
    expectExit(await cli(['issue', ...flags({ name: 'Shop 503' })]), 'ok');
    expect(posts(start)).toHaveLength(2);
    start = proxy.seen.length;
    proxy.plan('POST', subkeysPath, { kind: 'answer', status: 503, body: apiError(503, 'UNAVAILABLE', false) });
    expectExit(await cli(['issue', ...flags()]), 'refused', 'UNAVAILABLE');
    expect(posts(start)).toHaveLength(1);
  });

  it('a 500 is unresolved (exit 6) and not resent; the message says how to rerun', async () => {
    const start = proxy.seen.length;
    proxy.plan('POST', subkeysPath, { kind: 'answer', status: 500, body: apiError(500, 'INTERNAL', false) });
    const key = idem();
    const run = await cli(['issue', ...flags(), '--idempotency-key', key]);
    expectExit(run, 'unresolved', 'INTERNAL');
    expect(run.stderr).toMatch(injectedSupport(500, 'INTERNAL'));
    expect(run.stderr).toContain(`rerun with --idempotency-key ${key} and the same flags`);
    expect(posts(start)).toHaveLength(1);
  });

  it('a lost answer is resent with the same key: the replay answers, and only one subkey exists', async () => {
    const start = proxy.seen.length;
    let committed = 0;
    proxy.plan('POST', subkeysPath, { kind: 'forward-and-hold', onServerAnswer: (status) => (committed = status) });
    const run = await cli(['issue', ...flags({ name: 'Shop lost' }), '--timeout-ms', '1000', '--max-wait', '20']);
    expectExit(run, 'ok');
    expect(committed).toBe(201);
    expect(posts(start)).toHaveLength(2);
    expect(run.stderr).toContain('no answer within 1000 ms');
    const subkey = JSON.parse(run.stdout);
    expect(subkey.secretState).toBe('already-delivered');
    expect(run.stderr).toContain('rotate the subkey');
    const list = await cli(['list', '--json']);
    expect(list.json.items.filter((i: { displayName: string }) => i.displayName === 'Shop lost')).toHaveLength(1);
  });

  it('no answer within --max-wait is unresolved (exit 6), with the rerun line', async () => {
    const silent = await listenLoopback();
    try {
      const run = await cli(['issue', ...flags(), '--timeout-ms', '300', '--max-wait', '1'], {
        ...env,
        CUSTOM_LAUNCH_ORIGIN: silent.url,
      });
      expectExit(run, 'unresolved', 'no answer within 300 ms');
      const key = /idempotency key (\S+):/.exec(run.stderr)?.[1];
      expect(run.stderr).toContain(`rerun with --idempotency-key ${key} and the same flags`);
    } finally {
      await closeLoopback(silent.server);
    }
  });

  it('a stopped server is unresolved (exit 6) for every subcommand', async () => {
    const stopped = await listenLoopback();
    await closeLoopback(stopped.server);
    const stoppedEnv = { ...env, CUSTOM_LAUNCH_ORIGIN: stopped.url };
    const list = await cli(['list', '--max-wait', '1'], stoppedEnv);
    expectExit(list, 'unresolved', 'no answer');
    const revoke = await cli(['revoke', '00000000-0000-4000-8000-000000000000', '--max-wait', '1'], stoppedEnv);
    expectExit(revoke, 'unresolved', 'no answer');
  });
});

describe('answers the client refuses (exit 5)', () => {
  it('a 201 without its apiKey, or with secretState already-delivered, is refused; nothing on stdout', async () => {
    for (const edit of [
      (j: Record<string, unknown>) => ({ ...j, apiKey: null }),
      (j: Record<string, unknown>) => ({ ...j, secretState: 'already-delivered' }),
      (j: Record<string, unknown>) => ({ ...j, schemaVersion: 'platform.partner-subkey.v2' }),
    ]) {
      proxy.plan('POST', subkeysPath, { kind: 'rewrite', edit });
      const run = await cli(['issue', ...flags()]);
      expectExit(run, 'refused', 'SUBKEY_RESPONSE_INVALID');
      expect(run.stderr).toMatch(requestIdIn);
      expect(run.stderr).toContain('a subkey may have been issued');
      expect(run.stdout).toBe('');
    }
  });

  it('a 200 replay that carries a key is refused', async () => {
    const key = idem();
    expectExit(await cli(['issue', ...flags(), '--idempotency-key', key]), 'ok');
    proxy.plan('POST', subkeysPath, {
      kind: 'rewrite',
      edit: (j) => ({ ...j, apiKey: `clk_${'A'.repeat(43)}` }),
    });
    expectExit(await cli(['issue', ...flags(), '--idempotency-key', key]), 'refused', 'SUBKEY_RESPONSE_INVALID');
  });

  it('a list of another schema is refused', async () => {
    proxy.plan('GET', subkeysPath, {
      kind: 'rewrite',
      edit: (j) => ({ items: j.items.map((i: object) => ({ ...i, schemaVersion: 'other' })) }),
    });
    expectExit(await cli(['list']), 'refused', 'SUBKEY_RESPONSE_INVALID');
  });

  it('a redirect is refused and not followed; the key goes nowhere else', async () => {
    const start = proxy.seen.length;
    proxy.plan('GET', subkeysPath, {
      kind: 'answer',
      status: 307,
      headers: { Location: 'https://elsewhere.example/v1/partner/subkeys' },
    });
    const run = await cli(['list']);
    expectExit(run, 'refused', 'REDIRECT_REFUSED');
    expect(seenFrom(start)).toHaveLength(1);
  });
});

describe('the keys stay out of stderr', () => {
  it('no run printed the root key anywhere, nor a subkey secret on stderr', () => {
    expect(runs.length).toBeGreaterThan(30);
    expect(secrets.length).toBeGreaterThan(5);
    for (const run of runs) {
      expect(run.stdout).not.toContain(root.apiKey);
      expect(run.stderr).not.toContain(root.apiKey);
      expect(run.stderr).not.toMatch(/clk_/);
      for (const secret of secrets) expect(run.stderr).not.toContain(secret);
    }
  });
});
