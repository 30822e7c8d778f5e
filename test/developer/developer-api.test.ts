import { createHash } from 'node:crypto';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/domain/cursor.ts';
import { type PublicLaunchEntry, recordPublicLaunch } from '../../src/domain/public/public-launches.ts';
import { type DeveloperServer, startDeveloperServer, validateTokenList } from '../support/developer.ts';
import { call } from '../support/http.ts';
import { startServer, type TestServer } from '../support/server.ts';

const paths = ['/api/v2/status', '/api/v2/manifest', '/api/v2/launches', '/api/v2/token-list'];

let seq = 0;
/** A registry row: a fresh launch id and token address, finalized at `finalizedAt`. */
function entry(edit: Partial<PublicLaunchEntry> = {}): PublicLaunchEntry {
  seq++;
  const hex = seq.toString(16).padStart(4, '0');
  return {
    lane: 'v4',
    launchId: `0b0c0d0e-0000-4000-8000-00000000${hex}`,
    chainId: '4663',
    tokenAddress: getAddress(`0x${'ab'.repeat(18)}${hex}`),
    tokenName: `Token ${seq}`,
    tokenSymbol: `TK${seq}`,
    tokenDecimals: 18,
    transactionHash: `0x${hex.repeat(16)}`,
    blockNumber: String(100 + seq),
    finalizedAt: '2026-01-01T00:00:00.000Z',
    listedAt: '2026-01-01T00:00:01.000Z',
    ...edit,
  };
}

/** A test server and the developer API beside it, for one describe block. */
function developerPair(overrides: Parameters<typeof startServer>[0] = {}) {
  const pair = {} as { service: TestServer; dev: DeveloperServer };
  beforeAll(async () => {
    pair.service = await startServer(overrides);
    pair.dev = await startDeveloperServer(pair.service);
  });
  afterAll(async () => {
    await pair.dev.close();
    await pair.service.close();
  });
  return pair;
}

describe('the developer API: methods, paths, CORS and caching', () => {
  const pair = developerPair();
  beforeAll(() => {
    recordPublicLaunch(pair.service.db, entry());
  });

  it.each(paths)('GET %s answers 200 with a strong ETag, public caching and ACAO *', async (path) => {
    const r = await call(`${pair.dev.url}${path}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('etag')).toBe(`"sha256-${createHash('sha256').update(r.text).digest('base64url')}"`);
    expect(r.headers.get('cache-control')).toBe('public, max-age=30');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-expose-headers')).toContain('ETag');
  });

  it.each(paths)('HEAD %s answers as GET without a body', async (path) => {
    const get = await call(`${pair.dev.url}${path}`);
    const head = await call(`${pair.dev.url}${path}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)));
  });

  it.each(paths.flatMap((path) => ['POST', 'PUT', 'PATCH', 'DELETE'].map((method) => [method, path] as const)))(
    '%s %s answers 405 METHOD_NOT_ALLOWED with Allow: GET, HEAD',
    async (method, path) => {
      const r = await call(`${pair.dev.url}${path}`, {
        method,
        headers: { 'Content-Type': 'application/json' },
        body: method === 'DELETE' ? undefined : '{}',
      });
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('GET, HEAD');
      expect(r.json.error.code).toBe('METHOD_NOT_ALLOWED');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('cache-control')).toBe('no-store');
    },
  );

  it.each(paths)('OPTIONS %s is a CORS preflight: 204 with the allowed methods', async (path) => {
    const r = await call(`${pair.dev.url}${path}`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://wallet.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-methods')).toBe('GET, HEAD');
    expect(r.headers.get('access-control-allow-headers')).toBe('If-None-Match');
    expect(r.headers.get('access-control-max-age')).toBe('600');
  });

  it.each([['/api/v2/unknown'], ['/api/v3/status'], ['/v4/chains/4663/capabilities'], ['/']])(
    'an unknown path %s is 404 NOT_FOUND',
    async (path) => {
      const r = await call(`${pair.dev.url}${path}`);
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe('NOT_FOUND');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    },
  );

  it.each([
    ['/api/v2/status?x=1'],
    ['/api/v2/manifest?limit=1'],
    ['/api/v2/token-list?cursor=abcdefghijklmnop'],
    ['/api/v2/launches?offset=1'],
  ])('an undeclared query parameter (%s) is 400 INVALID_REQUEST', async (path) => {
    const r = await call(`${pair.dev.url}${path}`);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('INVALID_REQUEST');
  });

  it.each(paths)('If-None-Match with the current ETag of %s answers 304 without a body', async (path) => {
    const first = await call(`${pair.dev.url}${path}`);
    const etag = first.headers.get('etag') as string;
    for (const given of [etag, `W/${etag}`, '*', `"sha256-other", ${etag}`]) {
      const r = await call(`${pair.dev.url}${path}`, { headers: { 'If-None-Match': given } });
      expect(r.status).toBe(304);
      expect(r.text).toBe('');
      expect(r.headers.get('etag')).toBe(etag);
      expect(r.headers.get('cache-control')).toBe('public, max-age=30');
    }
    const stale = await call(`${pair.dev.url}${path}`, { headers: { 'If-None-Match': '"sha256-stale"' } });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(first.text);
  });

  it('the service origin sends no Access-Control-Allow-Origin', async () => {
    for (const path of ['/readyz', '/v4/chains/4663/capabilities', '/api/v2/status']) {
      const r = await call(`${pair.service.url}${path}`);
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('reads through a read-only connection: a write fails with SQLITE_READONLY', () => {
    let code: string | undefined;
    try {
      pair.dev.db.prepare("UPDATE public_launches SET token_name = 'x'").run();
    } catch (err) {
      code = (err as { code?: string }).code;
    }
    expect(code).toBe('SQLITE_READONLY');
  });
});

describe('GET /api/v2/status and /api/v2/manifest', () => {
  const pair = developerPair();

  it('status: the service readiness and every lane, with no read time (a later read has the same bytes)', async () => {
    const r = await call(`${pair.dev.url}/api/v2/status`);
    expect(r.json).toEqual({
      schemaVersion: 'platform.developer-status.v2',
      status: 'ok',
      service: { readiness: 'ready' },
      lanes: [
        { lane: 'v4', chainId: '4663', caip2: 'eip155:4663', readiness: 'unavailable', publicWrites: false },
        { lane: 'multi-role', chainId: '4663', caip2: 'eip155:4663', readiness: 'unavailable', publicWrites: false },
        { lane: 'v3', chainId: '1', caip2: 'eip155:1', readiness: 'unavailable', publicWrites: false },
        { lane: 'v2', chainId: '1', caip2: 'eip155:1', readiness: 'read_only', publicWrites: false },
        { lane: 'v1', chainId: '1', caip2: 'eip155:1', readiness: 'read_only', publicWrites: false },
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = await call(`${pair.dev.url}/api/v2/status`);
    expect(again.text).toBe(r.text);
    expect(again.headers.get('etag')).toBe(r.headers.get('etag'));
  });

  it('manifest: no deployment bound is null; API versions; only the served client has a SHA-256, of the served bytes', async () => {
    const r = await call(`${pair.dev.url}/api/v2/manifest`);
    expect(r.json.deployments).toEqual({ chain4663: null, baseLayer: null, multiRole: null });
    expect(r.json.apiVersions.map((v: { api: string; access: string }) => `${v.api}:${v.access}`)).toEqual([
      'custom-launch-v4:read_write',
      'multi-role-custom-launch-v2:read_write',
      'custom-launch-v3:read_write',
      'custom-launch-v2:read_only',
      'custom-launch-v1:read_only',
      'developer-v2:read_only',
    ]);
    expect(r.json.apiVersions[0].profiles).toEqual(['4.1.0', '4.0.0']);
    expect(r.json.apiVersions[2].profiles).toEqual(['3.0.0', '3.1.0', '3.2.0', '3.3.0', '3.4.0']);
    const served = r.json.clientReleases.filter((c: { sha256: string | null }) => c.sha256 !== null);
    expect(served).toHaveLength(1);
    const bytes = Buffer.from(await (await fetch(`${pair.service.url}${served[0].path}`)).arrayBuffer());
    expect(served[0].sha256).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
    expect(r.json.clientReleases.filter((c: { lane: string }) => c.lane === 'v4')).toEqual([
      { lane: 'v4', profile: '4.1.0', release: '4.1.1', sha256: null, path: null },
      { lane: 'v4', profile: '4.0.0', release: '4.0.0', sha256: null, path: null },
    ]);
  });
});

describe('GET /api/v2/launches: newest first, limit and cursor', () => {
  const pair = developerPair();
  const stored: PublicLaunchEntry[] = [];
  beforeAll(() => {
    // 30 rows over 10 finalization times, three per time, inserted out of time order.
    for (let i = 0; i < 30; i++) {
      const minute = (i * 7) % 10;
      const e = entry({
        finalizedAt: `2026-02-01T00:${String(minute).padStart(2, '0')}:00.000Z`,
        lane: (['v4', 'multi-role', 'v3', 'v2', 'v1'] as const)[i % 5],
        chainId: i % 5 < 2 ? '4663' : '1',
        tokenDecimals: i === 3 ? null : 18,
      });
      recordPublicLaunch(pair.service.db, e);
      stored.push(e);
    }
  });

  const newestFirst = () =>
    stored
      .map((e, i) => ({ e, i }))
      .sort((a, b) => (a.e.finalizedAt === b.e.finalizedAt ? b.i - a.i : a.e.finalizedAt < b.e.finalizedAt ? 1 : -1))
      .map(({ e }) => e.launchId);

  it.each([
    ['limit 0 is below the bound', '?limit=0', 400, 0],
    ['limit 1 is the lower bound', '?limit=1', 200, 1],
    ['no limit is the default 10', '', 200, 10],
    ['limit 25 is the upper bound', '?limit=25', 200, 25],
    ['limit 26 is above the bound', '?limit=26', 400, 0],
  ])('%s', async (_name, query, status, count) => {
    const r = await call(`${pair.dev.url}/api/v2/launches${query}`);
    expect(r.status).toBe(status);
    if (status === 200) {
      expect(r.json.items).toHaveLength(count);
      expect(r.json.items.map((i: { launchId: string }) => i.launchId)).toEqual(newestFirst().slice(0, count));
    } else {
      expect(r.json.error.code).toBe('INVALID_REQUEST');
    }
  });

  it('pages through every launch with nextCursor, null at the end', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=25&cursor=${cursor}` : '?limit=25';
      const r = await call(`${pair.dev.url}/api/v2/launches${query}`);
      expect(r.status).toBe(200);
      seen.push(...r.json.items.map((i: { launchId: string }) => i.launchId));
      cursor = r.json.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(2);
    expect(seen).toEqual(newestFirst());
  });

  it('an item carries its lane, chain, token (decimals null when unknown) and chain evidence', async () => {
    const r = await call(`${pair.dev.url}/api/v2/launches?limit=25`);
    const unknownDecimals = stored[3] as PublicLaunchEntry;
    const items = [
      ...r.json.items,
      ...(await call(`${pair.dev.url}/api/v2/launches?limit=25&cursor=${r.json.nextCursor}`)).json.items,
    ];
    expect(items.find((i: { launchId: string }) => i.launchId === unknownDecimals.launchId)).toEqual({
      lane: unknownDecimals.lane,
      launchId: unknownDecimals.launchId,
      chainId: unknownDecimals.chainId,
      caip2: `eip155:${unknownDecimals.chainId}`,
      token: {
        address: unknownDecimals.tokenAddress,
        name: unknownDecimals.tokenName,
        symbol: unknownDecimals.tokenSymbol,
        decimals: null,
      },
      transactionHash: unknownDecimals.transactionHash,
      blockNumber: unknownDecimals.blockNumber,
      finalizedAt: unknownDecimals.finalizedAt,
    });
  });

  it.each([
    ['a cursor of another list', encodeCursor('custom-launches-v4', 1)],
    ['a cursor of a row this database does not hold', encodeCursor('developer-launches', 99_999)],
    ['a cursor that is not one of ours', 'AAAAAAAAAAAAAAAAAAAA'],
    ['a cursor shorter than 16 characters', 'abc'],
    ['a cursor with a character outside base64url', 'abcdefghijklmnop+'],
  ])('%s is 400 INVALID_REQUEST', async (_name, cursor) => {
    const r = await call(`${pair.dev.url}/api/v2/launches?cursor=${encodeURIComponent(cursor)}`);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('INVALID_REQUEST');
  });
});

describe('GET /api/v2/token-list: the token-lists format', () => {
  const pair = developerPair();

  it('no listable token yet is 404 TOKEN_LIST_EMPTY, not retryable and never cached', async () => {
    recordPublicLaunch(pair.service.db, entry({ tokenDecimals: null }));
    const r = await call(`${pair.dev.url}/api/v2/token-list`);
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe('TOKEN_LIST_EMPTY');
    expect(r.json.error.retryable).toBe(false);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('etag')).toBeNull();
  });

  it.each([
    ['decimals 0', true, { tokenDecimals: 0 }],
    ['decimals unknown', false, { tokenDecimals: null }],
    ['a name of 60 characters', true, { tokenName: 'N'.repeat(60) }],
    ['a name of 61 characters', false, { tokenName: 'N'.repeat(61) }],
    ['a tab in its name', false, { tokenName: 'Tab\tName' }],
    ['spaces in its name', true, { tokenName: 'A Fine Token' }],
    ['a symbol of 20 characters', true, { tokenSymbol: 'S'.repeat(20) }],
    ['a symbol of 21 characters', false, { tokenSymbol: 'S'.repeat(21) }],
    ['a space in its symbol', false, { tokenSymbol: 'TK N' }],
    ['chain 1', true, { chainId: '1' as const, lane: 'v3' as const }],
  ])('a token with %s is listed: %s', async (_name, listed, edit: Partial<PublicLaunchEntry>) => {
    const before = await call(`${pair.dev.url}/api/v2/token-list`);
    const e = entry({ ...edit, finalizedAt: new Date().toISOString(), listedAt: new Date().toISOString() });
    recordPublicLaunch(pair.service.db, e);
    const r = await call(`${pair.dev.url}/api/v2/token-list`);
    expect(r.status).toBe(200);
    expect(validateTokenList(r.json), JSON.stringify(validateTokenList.errors)).toBe(true);
    const found = r.json.tokens.find((t: { address: string }) => t.address === e.tokenAddress);
    if (listed) {
      expect(found).toEqual({
        chainId: Number(e.chainId),
        address: e.tokenAddress,
        name: e.tokenName,
        symbol: e.tokenSymbol,
        decimals: e.tokenDecimals,
      });
      expect(r.json.version).toEqual({ major: 1, minor: r.json.tokens.length, patch: 0 });
      expect(r.json.timestamp).toBe(e.listedAt);
      if (before.status === 200) expect(r.json.version.minor).toBe(before.json.version.minor + 1);
    } else {
      expect(found).toBeUndefined();
      if (before.status === 200) {
        expect(r.text).toBe(before.text);
        expect(r.headers.get('etag')).toBe(before.headers.get('etag'));
      }
    }
  });

  it('is the package format exactly: name, timestamp, version and tokens only, tokens oldest first', async () => {
    const r = await call(`${pair.dev.url}/api/v2/token-list`);
    expect(Object.keys(r.json).sort()).toEqual(['name', 'timestamp', 'tokens', 'version']);
    expect(r.json.name).toBe('Custom Launch Tokens');
    for (const t of r.json.tokens) {
      expect(Object.keys(t).sort()).toEqual(['address', 'chainId', 'decimals', 'name', 'symbol']);
      expect(t.address).toBe(getAddress(t.address));
    }
    const order = pair.service.db
      .prepare('SELECT token_address FROM public_launches ORDER BY finalized_at, seq')
      .all()
      .map((row) => (row as { token_address: string }).token_address);
    const listed = r.json.tokens.map((t: { address: string }) => t.address);
    expect(listed).toEqual(order.filter((a) => listed.includes(a)));
  });

  it('a later read with nothing added returns the same bytes and ETag', async () => {
    const first = await call(`${pair.dev.url}/api/v2/token-list`);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const later = await call(`${pair.dev.url}/api/v2/token-list`);
    expect(later.text).toBe(first.text);
    expect(later.headers.get('etag')).toBe(first.headers.get('etag'));
  });
});

describe('the developer API request budget', () => {
  const pair = developerPair({ routeBudgetPerMinute: 2 });

  it('counts per operation and client address: the budget-th read passes, the next is 429 with Retry-After', async () => {
    expect((await call(`${pair.dev.url}/api/v2/status`)).status).toBe(200);
    expect((await call(`${pair.dev.url}/api/v2/status`)).status).toBe(200);
    const over = await call(`${pair.dev.url}/api/v2/status`);
    expect(over.status).toBe(429);
    expect(over.json.error.code).toBe('RATE_LIMITED');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(over.headers.get('access-control-allow-origin')).toBe('*');
    expect((await call(`${pair.dev.url}/api/v2/manifest`)).status).toBe(200);
  });
});
