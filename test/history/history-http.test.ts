import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importHistory } from '../../src/domain/history/import.ts';
import { historyLaunchId, historySamplePath, historyWallets, jsonl, sampleLines, v2Line } from '../support/history.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { exampleBytes, startServer, type TestServer } from '../support/server.ts';

// The V2/V1 history routes over real HTTP and a real SQLite file, seeded by the import (responses are validated
// against the spec by the server).
let s: TestServer;
let first: string;
let second: string;
let partner: string;
let subkey: string;
const extra = 26;

beforeAll(async () => {
  s = await startServer();
  importHistory(s.db, readFileSync(historySamplePath));
  // A third wallet with more records than the largest page.
  importHistory(
    s.db,
    jsonl(Array.from({ length: extra }, (_, i) => v2Line(i, '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'))),
  );
  const read = { scopes: ['custom-launch:read'], chains: ['1'] };
  first = s.key({ wallet: historyWallets.first, ...read });
  second = s.key({ wallet: historyWallets.second, ...read });
  const root = s.partnerRoot({ wallet: historyWallets.first, chains: ['1'] });
  partner = root.apiKey;
  const issued = await call(`${s.url}/v1/partner/subkeys`, {
    method: 'POST',
    headers: auth(partner, { 'Idempotency-Key': 'history-subkey-0001' }),
    body: exampleBytes('partner-subkey-request.v1.json'),
  });
  expect(issued.status, issued.text).toBe(201);
  subkey = issued.json.apiKey;
});
afterAll(() => s.close());

const get = (path: string, key: string) => call(s.url + path, { headers: auth(key) });
const ids = (r: Reply) => r.json.items.map((i: { launchId: string }) => i.launchId);
function expectError(r: Reply, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.json?.error?.code, r.text).toBe(code);
}

describe('GET /v2/custom-launches and /v1/custom-launches', () => {
  it('a wallet key reads its own records, newest first, and no other wallet sees them', async () => {
    const mine = await get('/v2/custom-launches?limit=25', first);
    expect(mine.status, mine.text).toBe(200);
    expect(ids(mine)).toEqual([4, 3, 2, 1].map(historyLaunchId));
    expect(mine.json.nextCursor).toBeNull();
    const theirs = await get('/v2/custom-launches', second);
    expect(ids(theirs)).toEqual([historyLaunchId(5)]);
    expect(ids(await get('/v1/custom-launches', first))).toEqual([12, 11].map(historyLaunchId));
    expect(ids(await get('/v1/custom-launches', second))).toEqual([historyLaunchId(13)]);
  });

  it('a partner root and its subkey read no history: an empty page', async () => {
    for (const key of [partner, subkey]) {
      for (const lane of ['v2', 'v1']) {
        const r = await get(`/${lane}/custom-launches`, key);
        expect(r.status, r.text).toBe(200);
        expect(r.json).toEqual({ items: [], nextCursor: null });
      }
    }
  });

  const third = () =>
    s.key({ wallet: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', scopes: ['custom-launch:read'], chains: ['1'] });
  it.each([
    ['0', 400, null],
    ['1', 200, 1],
    ['25', 200, 25],
    ['26', 400, null],
  ])('limit=%s answers %i', async (limit, status, size) => {
    const r = await get(`/v2/custom-launches?limit=${limit}`, third());
    expect(r.status, r.text).toBe(status);
    if (size === null) expect(r.json.error.code).toBe('INVALID_REQUEST');
    else {
      expect(r.json.items).toHaveLength(size);
      expect(r.json.nextCursor).toEqual(expect.any(String));
    }
  });

  it('pages through every record with nextCursor: 25, then the last one', async () => {
    const key = third();
    const page1 = await get('/v2/custom-launches?limit=25', key);
    const page2 = await get(`/v2/custom-launches?limit=25&cursor=${page1.json.nextCursor}`, key);
    expect(page2.status, page2.text).toBe(200);
    expect(page2.json.nextCursor).toBeNull();
    const all = [...ids(page1), ...ids(page2)];
    expect(all).toEqual(Array.from({ length: extra }, (_, i) => historyLaunchId(1000 + extra - 1 - i)));
  });

  it('refuses a cursor it did not issue for this list and wallet (400 INVALID_REQUEST)', async () => {
    const key = third();
    const v2Cursor = (await get('/v2/custom-launches?limit=1', key)).json.nextCursor;
    expectError(await get(`/v1/custom-launches?cursor=${v2Cursor}`, key), 400, 'INVALID_REQUEST');
    expectError(await get(`/v2/custom-launches?cursor=${v2Cursor}`, first), 400, 'INVALID_REQUEST');
    expectError(await get(`/v2/custom-launches?cursor=${v2Cursor}`, partner), 400, 'INVALID_REQUEST');
    expectError(await get(`/v2/custom-launches?cursor=${'A'.repeat(16)}`, key), 400, 'INVALID_REQUEST');
  });
});

describe('GET /v2/custom-launches/{launchId} and /v1/custom-launches/{launchId}', () => {
  it('returns the imported record exactly, observation-only', async () => {
    const [line] = sampleLines();
    const r = await get(`/v2/custom-launches/${historyLaunchId(1)}`, first);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual(line?.kind === 'v2' ? line.record : undefined);
    expect(r.json).toMatchObject({ status: 'finalized', observationOnly: true });
    const v1 = await get(`/v1/custom-launches/${historyLaunchId(11)}`, first);
    expect(v1.json).toMatchObject({ schemaVersion: 'platform.custom-launch-history.v1', status: 'finalized' });
  });

  it.each([
    [2, 'prepared', null],
    [3, 'simulating', null],
  ])('a V2 record in %s shows no wallet transaction', async (n, status, publicOutput) => {
    const r = await get(`/v2/custom-launches/${historyLaunchId(n as number)}`, first);
    expect(r.status, r.text).toBe(200);
    expect(r.json.status).toBe(status);
    expect(r.json.publicOutput).toBe(publicOutput);
    expect(Object.keys(r.json)).not.toContain('walletTransaction');
    expect(r.text).not.toMatch(/walletTransaction|"data"|"to"/);
  });

  it.each([
    ['another wallet reads a record', '/v2/custom-launches/', 1, () => second],
    ['the V1 route reads a V2 record', '/v1/custom-launches/', 1, () => first],
    ['an unknown launchId', '/v2/custom-launches/', 99, () => first],
    ['a partner root', '/v2/custom-launches/', 1, () => partner],
    ['a partner subkey', '/v1/custom-launches/', 11, () => subkey],
  ])('404 NOT_FOUND when %s', async (_name, path, n, key) => {
    expectError(await get(path + historyLaunchId(n), key()), 404, 'NOT_FOUND');
  });
});

describe('history authentication and the refused POSTs', () => {
  it.each([
    ['no key', null, 401, 'UNAUTHENTICATED'],
    ['a key without a chain 1 grant', { chains: ['4663'] }, 403, 'CHAIN_NOT_ALLOWED'],
    [
      'a key without custom-launch:read',
      { scopes: ['custom-launch:create'], chains: ['1'] },
      403,
      'INSUFFICIENT_SCOPE',
    ],
  ])('%s: %i %s', async (_name, input, status, code) => {
    for (const path of ['/v2/custom-launches', `/v1/custom-launches/${historyLaunchId(11)}`]) {
      const headers = input === null ? {} : auth(s.key({ wallet: historyWallets.first, ...input }));
      expectError(await call(s.url + path, { headers }), status, code);
    }
  });

  it.each([
    ['v2', 'CUSTOM_LAUNCH_V2_READ_ONLY'],
    ['v1', 'CUSTOM_LAUNCH_V1_READ_ONLY'],
  ])('POST /%s/custom-launches still answers 409 %s with history stored', async (lane, code) => {
    const r = await call(`${s.url}/${lane}/custom-launches`, { method: 'POST', headers: auth(first), body: '{}' });
    expectError(r, 409, code);
    expect(r.json.error.retryable).toBe(false);
  });
});

describe('imported V3 rows in GET /v3/finalized-custom-launches', () => {
  it('serves a row of each profile 2.0.0 to 3.4.0, and quarantines one corrupted after import', async () => {
    const feed = await call(`${s.url}/v3/finalized-custom-launches?limit=25`);
    expect(feed.status, feed.text).toBe(200);
    const items = sampleLines().flatMap((l) => (l.kind === 'v3-finalized' ? [l.item] : []));
    // Oldest finalized first in the file; the feed serves newest first.
    expect(feed.json.launches).toEqual([...items].reverse());
    expect(feed.json.quality).toMatchObject({ status: 'complete', publishedRowCount: 6 });

    const corrupted = items[2]?.launchId;
    s.db
      .prepare(
        "UPDATE v3_finalized_feed SET item_json = json_set(item_json, '$.launchProfileVersion', '9.9.9') WHERE launch_id = ?",
      )
      .run(corrupted);
    const after = await call(`${s.url}/v3/finalized-custom-launches?limit=25`);
    expect(after.json.launches.map((l: { launchId: string }) => l.launchId)).not.toContain(corrupted);
    expect(after.json.quality).toEqual({
      status: 'partial',
      sourceRowCount: 6,
      publishedRowCount: 5,
      quarantinedRowCount: 1,
      diagnostics: [
        { rowIndex: 3, code: 'FINALIZED_ROW_QUARANTINED', message: expect.stringContaining('not a valid') },
      ],
    });
  });
});
