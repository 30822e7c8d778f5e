import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { startServer, type TestServer } from '../support/server.ts';

/**
 * The base-layer finalized feed carries the `quality` block and quarantines bad rows with
 * FINALIZED_ROW_QUARANTINED (spec/openapi/paths/v3-finalized-custom-launches.yaml).
 */
const feed = '/v3/finalized-custom-launches';
const item = (n: number) => ({
  launchId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  launchProfileVersion: '3.3.0',
  chainId: '1',
  tokenAddress: `0x${String(n).padStart(40, '1')}`,
  hookAddress: null,
  transactionHash: `0x${String(n).padStart(64, 'a')}`,
  blockNumber: String(1000 + n),
  finalizedAt: `2026-11-0${n}T00:00:00.000Z`,
});

describe('listFinalizedCustomLaunchesV3', () => {
  let s: TestServer;
  const insert = (launchId: string, json: string) =>
    s.db
      .prepare('INSERT INTO v3_finalized_feed (launch_id, item_json, finalized_at) VALUES (?, ?, ?)')
      .run(launchId, json, '2026-11-01T00:00:00.000Z');

  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it('an empty feed is a complete page', async () => {
    const r = await call(s.url + feed);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      launches: [],
      quality: { status: 'complete', sourceRowCount: 0, publishedRowCount: 0, quarantinedRowCount: 0, diagnostics: [] },
      nextCursor: null,
    });
  });

  it('publishes valid rows newest first and quarantines the others by their index among the page rows', async () => {
    for (const n of [1, 2, 3]) insert(item(n).launchId, JSON.stringify(item(n)));
    insert('bad-json', '{"launchId": ');
    insert('bad-item', JSON.stringify({ ...item(5), launchProfileVersion: '9.9.9' }));

    const all = await call(`${s.url}${feed}?limit=25`);
    expect(all.status).toBe(200);
    expect(all.json.launches.map((l: { launchId: string }) => l.launchId)).toEqual(
      [3, 2, 1].map((n) => item(n).launchId),
    );
    expect(all.json.quality).toEqual({
      status: 'partial',
      sourceRowCount: 5,
      publishedRowCount: 3,
      quarantinedRowCount: 2,
      diagnostics: [
        { rowIndex: 0, code: 'FINALIZED_ROW_QUARANTINED', message: expect.stringContaining('not a valid') },
        { rowIndex: 1, code: 'FINALIZED_ROW_QUARANTINED', message: expect.stringContaining('not JSON') },
      ],
    });
    expect(JSON.stringify(all.json)).not.toContain('9.9.9');

    // Pages of two stored rows: the quarantined pair, then two valid rows, then the last one.
    const first = await call(`${s.url}${feed}?limit=2`);
    expect(first.json.launches).toEqual([]);
    expect(first.json.quality).toMatchObject({ status: 'partial', sourceRowCount: 2, quarantinedRowCount: 2 });
    const second = await call(`${s.url}${feed}?limit=2&cursor=${first.json.nextCursor}`);
    expect(second.json.quality).toMatchObject({ status: 'complete', sourceRowCount: 2, publishedRowCount: 2 });
    const third = await call(`${s.url}${feed}?limit=2&cursor=${second.json.nextCursor}`);
    expect(third.json.launches.map((l: { launchId: string }) => l.launchId)).toEqual([item(1).launchId]);
    expect(third.json.nextCursor).toBeNull();
  });

  it.each([
    [0, 400],
    [1, 200],
    [25, 200],
    [26, 400],
  ])('limit=%i answers %i', async (limit, status) => {
    expect((await call(`${s.url}${feed}?limit=${limit}`)).status).toBe(status);
  });

  it('refuses a cursor of the V4 feed', async () => {
    const v4 = Buffer.from(JSON.stringify({ v: 1, l: 'v4-finalized:4663', s: 5 })).toString('base64url');
    const r = await call(`${s.url}${feed}?cursor=${v4}`);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('INVALID_REQUEST');
  });
});

/** The shared lane's finalized feed stays separate from the V4 feed (spec/openapi/paths/multi-role-finalized.yaml). */
describe('listMultiRoleFinalizedCustomLaunches', () => {
  let s: TestServer;
  const shared = '/v4/chains/4663/multi-role-custom-launches/finalized';
  const sharedItem = (n: number) => ({
    launchId: `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`,
    chainId: '4663',
    launchWallet: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    tokenHookAddress: `0x${String(n).padStart(40, '2')}`,
    poolId: `0x${String(n).padStart(64, 'c')}`,
    transactionHash: `0x${String(n).padStart(64, 'b')}`,
    blockNumber: String(2000 + n),
    finalizedAt: `2026-11-1${n}T00:00:00.000Z`,
  });

  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it('serves its own rows newest first, never the V4 feed, with cursors of its own', async () => {
    for (const n of [1, 2, 3]) {
      s.db
        .prepare(
          'INSERT INTO multi_role_finalized_feed (chain_id, launch_id, item_json, finalized_at) VALUES (?, ?, ?, ?)',
        )
        .run('4663', sharedItem(n).launchId, JSON.stringify(sharedItem(n)), sharedItem(n).finalizedAt);
    }
    const first = await call(`${s.url}${shared}?limit=2`);
    expect(first.status, first.text).toBe(200);
    expect(first.json.launches).toEqual([sharedItem(3), sharedItem(2)]);
    const second = await call(`${s.url}${shared}?limit=2&cursor=${first.json.nextCursor}`);
    expect(second.json).toEqual({ launches: [sharedItem(1)], nextCursor: null });

    const v4 = await call(`${s.url}/v4/chains/4663/finalized-custom-launches?limit=25`);
    expect(v4.json.launches).toEqual([]);
    const crossed = await call(`${s.url}/v4/chains/4663/finalized-custom-launches?cursor=${first.json.nextCursor}`);
    expect(crossed.status).toBe(400);
  });
});
