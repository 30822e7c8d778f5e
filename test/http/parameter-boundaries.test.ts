import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSchemaRegistry, schemaIdBase } from '../../src/spec/schema-registry.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { controlledBy, freshV4Bytes, freshWallet, startServer, type TestServer, v4Example } from '../support/server.ts';

// Boundaries of every parameter shape of spec/openapi/components/parameters.yaml and its limits,
// against the real server over real HTTP on a fresh SQLite file.

const { ajv } = loadSchemaRegistry();
const validateApiError = ajv.getSchema(`${schemaIdBase}api-error.schema.json`);

const base = '/v4/chains/4663';
let s: TestServer;
/** Holds create + read; owns exactly the 11 launches created in beforeAll (each key is its own lineage). */
let owner: string;
/** Holds only custom-launch:read, in a lineage with no launches. */
let reader: string;
/** Holds create + read; used only by the Idempotency-Key rows so the owner's list stays at 11. */
let creator: string;
/** launchIds of the owner's launches, in creation order. */
const created: string[] = [];

beforeAll(async () => {
  s = await startServer();
  // Each key its own wallet: a wallet key reads every launch of its wallet, whichever key created it.
  const ownerWallet = freshWallet();
  owner = s.key({ wallet: ownerWallet, scopes: ['custom-launch:create', 'custom-launch:read'] });
  reader = s.key({ wallet: freshWallet(), scopes: ['custom-launch:read'] });
  creator = s.key({ scopes: ['custom-launch:create', 'custom-launch:read'] });
  for (let i = 0; i < 11; i++) {
    // Each a new intent under its own Idempotency-Key.
    const r = await call(`${s.url}${base}/custom-launches`, {
      method: 'POST',
      headers: auth(owner, { 'Idempotency-Key': `boundary-page-${String(i).padStart(4, '0')}` }),
      body: freshV4Bytes(v4Example, controlledBy(ownerWallet)),
    });
    expect(r.status, r.text).toBe(202);
    created.push(r.json.launchId);
  }
  expect(new Set(created).size).toBe(11);
});

afterAll(async () => {
  await s?.close();
});

/** Every error: the expected status and code, not retryable, the request id echoed, and an ApiError body. */
function expectApiError(r: Reply, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.json?.error?.code, r.text).toBe(code);
  expect(r.json.error.retryable, r.text).toBe(false);
  expect(r.json.error.requestId, r.text).toBe(r.headers.get('x-request-id'));
  expect(validateApiError?.(r.json), ajv.errorsText(validateApiError?.errors)).toBe(true);
}

/** A 400 raised by the parameter validator: one issue names the parameter, and it is not the unknown-cursor answer. */
function expectShapeFailure(r: Reply, parameter: string): void {
  expectApiError(r, 400, 'INVALID_REQUEST');
  const issues: Array<{ location: string; message: string }> = r.json.error.issues ?? [];
  expect(
    issues.some((i) => i.location.includes(parameter)),
    r.text,
  ).toBe(true);
  expect(r.json.error.message, r.text).not.toMatch(/not issued by this service/);
}

type Lane = 'list' | 'finalized';
const laneUrl = (lane: Lane, query: Record<string, string>) => {
  const path = lane === 'list' ? `${base}/custom-launches` : `${base}/finalized-custom-launches`;
  const qs = new URLSearchParams(query).toString();
  return `${s.url}${path}${qs ? `?${qs}` : ''}`;
};
const laneHeaders = (lane: Lane) => (lane === 'list' ? auth(owner) : {});

describe('limit (page size)', () => {
  type Want = { status: 200; items: number } | { status: 400 };
  // The owner's list holds exactly 11 launches; the finalized feed of a fresh database is empty.
  const rows: Array<[string, { lane: Lane; limit?: string }, Want]> = [];
  for (const lane of ['list', 'finalized'] as const) {
    const n = (k: number) => (lane === 'list' ? Math.min(k, 11) : 0);
    rows.push(
      [`Limits page size: ${lane} limit=0 is below the range`, { lane, limit: '0' }, { status: 400 }],
      [`Limits page size: ${lane} limit=1 is the lower bound`, { lane, limit: '1' }, { status: 200, items: n(1) }],
      [`Limits page size: ${lane} limit=25 is the upper bound`, { lane, limit: '25' }, { status: 200, items: n(25) }],
      [`Limits page size: ${lane} limit=26 is above the range`, { lane, limit: '26' }, { status: 400 }],
      [`Limits page size: ${lane} limit absent defaults to 10`, { lane }, { status: 200, items: n(10) }],
      [`Parameter shapes: ${lane} limit=abc is not an integer`, { lane, limit: 'abc' }, { status: 400 }],
      [`Parameter shapes: ${lane} limit=1.5 is not an integer`, { lane, limit: '1.5' }, { status: 400 }],
    );
  }

  it.each(rows)('%s', async (_name, given, want) => {
    const query: Record<string, string> = given.limit === undefined ? {} : { limit: given.limit };
    const r = await call(laneUrl(given.lane, query), { headers: laneHeaders(given.lane) });
    if (want.status === 400) {
      expectShapeFailure(r, 'limit');
      return;
    }
    expect(r.status, r.text).toBe(200);
    expect(r.json.launches).toHaveLength(want.items);
  });

  it('Limits page size: the default page of 11 launches is 10 items, and nextCursor yields the rest once', async () => {
    const first = await call(laneUrl('list', {}), { headers: auth(owner) });
    expect(first.status, first.text).toBe(200);
    expect(first.json.launches).toHaveLength(10);
    expect(first.json.nextCursor).toEqual(expect.any(String));
    const second = await call(laneUrl('list', { cursor: first.json.nextCursor }), { headers: auth(owner) });
    expect(second.status, second.text).toBe(200);
    expect(second.json.launches).toHaveLength(1);
    expect(second.json.nextCursor).toBeNull();
    const ids = [...first.json.launches, ...second.json.launches].map((l: { launchId: string }) => l.launchId);
    expect(new Set(ids).size).toBe(11);
    expect([...ids].sort()).toEqual([...created].sort());
  });

  it('Endpoints: a key holding only custom-launch:read lists its (empty) lineage', async () => {
    const r = await call(laneUrl('list', { limit: '25' }), { headers: auth(reader) });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ launches: [], nextCursor: null });
  });
});

describe('cursor (shape and length)', () => {
  type Want = 'shape' | 'unknown';
  const rows: Array<[string, { lane: Lane; cursor: string }, Want]> = [];
  for (const lane of ['list', 'finalized'] as const) {
    rows.push(
      [`Limits cursor length: ${lane} 15 characters is too short`, { lane, cursor: 'a'.repeat(15) }, 'shape'],
      [`Limits cursor length: ${lane} 16 characters passes the shape`, { lane, cursor: 'abcdefghijklmnop' }, 'unknown'],
      [`Limits cursor length: ${lane} 512 characters passes the shape`, { lane, cursor: 'A'.repeat(512) }, 'unknown'],
      [`Limits cursor length: ${lane} 513 characters is too long`, { lane, cursor: 'A'.repeat(513) }, 'shape'],
      [
        `Parameter shapes: ${lane} cursor with + is outside the alphabet`,
        { lane, cursor: 'abcdefghijklmnop+' },
        'shape',
      ],
      [
        `Parameter shapes: ${lane} cursor with = is outside the alphabet`,
        { lane, cursor: 'abcdefghijklmnop=' },
        'shape',
      ],
      [
        `Parameter shapes: ${lane} cursor with / is outside the alphabet`,
        { lane, cursor: 'abcdefgh/ijklmnop' },
        'shape',
      ],
    );
  }

  it.each(rows)('%s', async (_name, given, want) => {
    const r = await call(laneUrl(given.lane, { cursor: given.cursor }), { headers: laneHeaders(given.lane) });
    if (want === 'shape') {
      expectShapeFailure(r, 'cursor');
    } else {
      expectApiError(r, 400, 'INVALID_REQUEST');
      expect(r.json.error.message, r.text).toMatch(/cursor was not issued by this service/);
    }
  });

  it('Parameter shapes: the nextCursor value round-trips unchanged and answers 200', async () => {
    const first = await call(laneUrl('list', { limit: '1' }), { headers: auth(owner) });
    expect(first.status, first.text).toBe(200);
    const cursor: string = first.json.nextCursor;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]{16,512}$/);
    const next = await call(laneUrl('list', { limit: '1', cursor }), { headers: auth(owner) });
    expect(next.status, next.text).toBe(200);
    expect(next.json.launches).toHaveLength(1);
    expect(next.json.launches[0].launchId).not.toBe(first.json.launches[0].launchId);
  });

  it("Parameter shapes: one list's cursor is not accepted by another credential's list", async () => {
    const first = await call(laneUrl('list', { limit: '1' }), { headers: auth(owner) });
    const r = await call(laneUrl('list', { cursor: first.json.nextCursor }), { headers: auth(reader) });
    expectApiError(r, 400, 'INVALID_REQUEST');
    expect(r.json.error.message, r.text).toMatch(/cursor was not issued by this service/);
  });
});

describe('Idempotency-Key (shape and length)', () => {
  const launchCount = () => (s.db.prepare('SELECT count(*) AS n FROM launches').get() as { n: number }).n;
  const rows: Array<[string, { key: string | undefined }, 202 | 400]> = [
    ['Limits Idempotency-Key length: 15 characters is too short', { key: 'idem-15-0000000' }, 400],
    ['Limits Idempotency-Key length: 16 characters is the lower bound', { key: 'idem-16-00000000' }, 202],
    ['Limits Idempotency-Key length: 128 characters is the upper bound', { key: `idem-128-${'x'.repeat(119)}` }, 202],
    ['Limits Idempotency-Key length: 129 characters is too long', { key: `idem-129-${'x'.repeat(120)}` }, 400],
    [
      'Parameter shapes: Idempotency-Key of letters, digits, dot, underscore, colon, hyphen',
      { key: 'Ab9.under_co:l-n' },
      202,
    ],
    ['Parameter shapes: Idempotency-Key with a space', { key: 'idem-space 00000' }, 400],
    ['Parameter shapes: Idempotency-Key with a slash', { key: 'idem-slash/00000' }, 400],
    ['Parameter shapes: Idempotency-Key with a plus', { key: 'idem-plus+000000' }, 400],
    ['Endpoints: Idempotency-Key missing (required)', { key: undefined }, 400],
  ];

  it.each(rows)('%s', async (_name, given, want) => {
    const before = launchCount();
    const headers = given.key === undefined ? auth(creator) : auth(creator, { 'Idempotency-Key': given.key });
    const r = await call(`${s.url}${base}/custom-launches`, {
      method: 'POST',
      headers,
      body: freshV4Bytes(),
    });
    if (want === 202) {
      expect(r.status, r.text).toBe(202);
      expect(launchCount()).toBe(before + 1);
    } else {
      expectShapeFailure(r, 'idempotency-key');
      expect(launchCount(), 'a rejected create persists nothing').toBe(before);
    }
  });

  it('Parameter shapes: the boundary keys have the lengths their rows claim', () => {
    const lengths = Object.fromEntries(rows.map(([name, given]) => [name, given.key?.length]));
    expect(Object.values(lengths)).toEqual([15, 16, 128, 129, 16, 16, 16, 16, undefined]);
  });
});

describe('launchId (shape)', () => {
  const id = (version: string, variant: string) => `0badc0de-0000-${version}000-${variant}000-000000000000`;
  const rows: Array<[string, { launchId: string | 'existing' }, 200 | 400 | 404]> = [
    ['Parameter shapes: launchId version digit 0 is outside 1 to 8', { launchId: id('0', '8') }, 400],
    ['Parameter shapes: launchId version digit 1 is the lower bound (unknown id)', { launchId: id('1', '8') }, 404],
    ['Parameter shapes: launchId version digit 8 is the upper bound (unknown id)', { launchId: id('8', '8') }, 404],
    ['Parameter shapes: launchId version digit 9 is outside 1 to 8', { launchId: id('9', '8') }, 400],
    ['Parameter shapes: launchId variant digit 7 is outside 8, 9, a, b', { launchId: id('4', '7') }, 400],
    ['Parameter shapes: launchId variant digit 8 is allowed (unknown id)', { launchId: id('4', '8') }, 404],
    ['Parameter shapes: launchId variant digit b is allowed (unknown id)', { launchId: id('4', 'b') }, 404],
    ['Parameter shapes: launchId variant digit c is outside 8, 9, a, b', { launchId: id('4', 'c') }, 400],
    [
      'Parameter shapes: launchId in upper-case hex is not lowercase',
      { launchId: '0BADC0DE-0000-4000-8000-00000000000A' },
      400,
    ],
    [
      'Parameter shapes: launchId without hyphens is not 8-4-4-4-12',
      { launchId: '0badc0de000040008000000000000000' },
      400,
    ],
    ['Endpoints: an existing launchId of the credential answers 200', { launchId: 'existing' }, 200],
  ];

  it.each(rows)('%s', async (_name, given, want) => {
    const launchId = given.launchId === 'existing' ? (created[0] as string) : given.launchId;
    const r = await call(`${s.url}${base}/custom-launches/${launchId}`, { headers: auth(owner) });
    if (want === 200) {
      expect(r.status, r.text).toBe(200);
      expect(r.json.launchId).toBe(launchId);
    } else if (want === 404) {
      expectApiError(r, 404, 'NOT_FOUND');
    } else {
      expectShapeFailure(r, 'launchId');
    }
  });
});

describe('chainId (the string 4663)', () => {
  type Want = { status: 200 } | { status: 400 | 403; code: string };
  // Observed: on an authenticated route the key's chain grant is checked first (403 CHAIN_NOT_ALLOWED, the key's only
  // grant is 4663); on the public finalized feed the path shape refuses it (400 INVALID_REQUEST).
  const rows: Array<[string, { lane: Lane; chainId: string }, Want]> = [
    [
      'Endpoints: list chainId 1 is not the V4 chain',
      { lane: 'list', chainId: '1' },
      { status: 403, code: 'CHAIN_NOT_ALLOWED' },
    ],
    [
      'Endpoints: list chainId 4664 is not the V4 chain',
      { lane: 'list', chainId: '4664' },
      { status: 403, code: 'CHAIN_NOT_ALLOWED' },
    ],
    ['Endpoints: list chainId 4663 is the only allowed value', { lane: 'list', chainId: '4663' }, { status: 200 }],
    [
      'Endpoints: finalized chainId 1 is not the V4 chain',
      { lane: 'finalized', chainId: '1' },
      { status: 400, code: 'INVALID_REQUEST' },
    ],
    [
      'Endpoints: finalized chainId 4664 is not the V4 chain',
      { lane: 'finalized', chainId: '4664' },
      { status: 400, code: 'INVALID_REQUEST' },
    ],
    [
      'Endpoints: finalized chainId 4663 is the only allowed value',
      { lane: 'finalized', chainId: '4663' },
      { status: 200 },
    ],
  ];

  it.each(rows)('%s', async (_name, given, want) => {
    const path = given.lane === 'list' ? 'custom-launches' : 'finalized-custom-launches';
    const r = await call(`${s.url}/v4/chains/${given.chainId}/${path}`, { headers: laneHeaders(given.lane) });
    if (want.status === 200) {
      expect(r.status, r.text).toBe(200);
      return;
    }
    // The reference allows either refusal (403 chain grant or 400 shape); each must be a well-formed ApiError.
    expect([400, 403], r.text).toContain(r.status);
    expectApiError(r, want.status, want.code);
    if (want.status === 400) expectShapeFailure(r, 'chainId');
  });
});
