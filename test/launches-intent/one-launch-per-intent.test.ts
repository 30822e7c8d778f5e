import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPrincipal, type Principal } from '../../src/auth/keys.ts';
import { insertClaimingIntent } from '../../src/domain/lanes/launch-intent.ts';
import { baseLayerRequest, baseLayerRequestBytes, defaultBaseLaunchWallet } from '../support/base-layer-request.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { multiRoleRequest, multiRoleRequestBytes } from '../support/multi-role-request.ts';
import { exampleWallet, freshV4Bytes, startServer, type TestServer } from '../support/server.ts';

/**
 * One launch per intent on every lane, over real HTTP and a fresh SQLite file (createCustomLaunchV4,
 * createCustomLaunchV3, createMultiRoleCustomLaunch; spec/openapi/components/responses.yaml LaunchCreateConflict):
 * a second create of a stored launch's intent, the same launchIntentHash or the same launchWallet and nonce, under
 * another Idempotency-Key or credential is 409 LAUNCH_INTENT_CONFLICT and stores nothing; existingLaunchId names
 * the launch only to a credential that may read it. No lifecycle worker runs and no chain is bound.
 */

const baseFixture = new URL('../fixtures/base-deployment.json', import.meta.url).pathname;
const multiRoleFixture = new URL('../fixtures/multi-role-deployment.json', import.meta.url).pathname;

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ baseDeploymentPath: baseFixture, multiRoleDeploymentPath: multiRoleFixture });
}, 60_000);
afterAll(async () => {
  await s?.close();
});

/** The same address with its hex digits upper-cased: the same wallet to the server. */
const shouted = (wallet: string) => `0x${wallet.slice(2).toUpperCase()}`;
/** A variant of the request's content that leaves its nonce alone (so only the wallet-and-nonce form can match). */
type Variant = { nonce?: string; wallet?: string; note?: string };

interface Lane {
  name: string;
  path: string;
  table: string;
  wallet: string;
  chains: string[];
  /** A request of this lane; a fresh nonce unless `v.nonce` names one. */
  bytes: (v?: Variant) => string;
}

let nonceSeq = 0;
const lanes: Lane[] = [
  {
    name: 'V4',
    path: '/v4/chains/4663/custom-launches',
    table: 'launches',
    wallet: exampleWallet,
    chains: ['4663'],
    bytes: (v = {}) =>
      freshV4Bytes(undefined, (r) => {
        if (v.nonce) r.nonce = v.nonce;
        // The initial buy's recipient stays as it is: the 4.1.0 funding nonce derives from the plan, not the case.
        if (v.wallet) r.launchWallet = v.wallet;
        if (v.note) r.projectMetadata.description = v.note;
      }),
  },
  {
    name: 'base-layer V3',
    path: '/v3/custom-launches',
    table: 'v3_launches',
    wallet: defaultBaseLaunchWallet,
    chains: ['1'],
    bytes: (v = {}) =>
      baseLayerRequestBytes(
        baseLayerRequest({
          nonce: v.nonce ?? String(++nonceSeq),
          launchWallet: v.wallet ?? defaultBaseLaunchWallet,
          ...(v.note ? { tokenSupply: '2000000000000000000000000' } : {}),
        }),
      ).toString('utf8'),
  },
  {
    name: 'shared lane',
    path: '/v4/chains/4663/multi-role-custom-launches',
    table: 'multi_role_launches',
    wallet: exampleWallet,
    chains: ['4663'],
    bytes: (v = {}) =>
      multiRoleRequestBytes(
        multiRoleRequest((r) => {
          if (v.wallet) r.launchWallet = v.wallet;
          if (v.note) r.projectMetadata.description = v.note;
        }, v.nonce),
      ).toString('utf8'),
  },
];

let idem = 0;
const newKey = () => `intent-${String(++idem).padStart(6, '0')}-${Date.now()}`;
const create = (lane: Lane, apiKey: string, body: string, idempotencyKey = newKey()): Promise<Reply> =>
  call(`${s.url}${lane.path}`, { method: 'POST', headers: auth(apiKey, { 'Idempotency-Key': idempotencyKey }), body });
const walletKey = (lane: Lane) => s.key({ wallet: lane.wallet, chains: lane.chains });
const partnerKey = (lane: Lane) => s.partnerRoot({ wallet: lane.wallet, chains: lane.chains }).apiKey;
const stored = () =>
  s.db
    .prepare(
      `SELECT (SELECT count(*) FROM launches) + (SELECT count(*) FROM v3_launches)
         + (SELECT count(*) FROM multi_role_launches) AS launches,
       (SELECT count(*) FROM idempotency_records) AS records, (SELECT count(*) FROM admissions) AS admissions`,
    )
    .get();
const nonceOf = (bytes: string) => (JSON.parse(bytes) as { nonce: string }).nonce;
const intentOf = (bytes: string) => (JSON.parse(bytes) as { launchIntentHash: string }).launchIntentHash;

function expectIntentConflict(r: Reply, existingLaunchId: string | undefined): void {
  expect(r.status, r.text).toBe(409);
  expect(r.json.error.code).toBe('LAUNCH_INTENT_CONFLICT');
  expect(r.json.error.retryable).toBe(false);
  expect(r.json.error.existingLaunchId).toBe(existingLaunchId);
}

describe.each(lanes)('$name: one launch per intent', (lane) => {
  it('the same bytes under another Idempotency-Key: 409 naming the launch, nothing stored; the replay stays 200', async () => {
    const key = walletKey(lane);
    const bytes = lane.bytes();
    const k = newKey();
    const first = await create(lane, key, bytes, k);
    expect(first.status, first.text).toBe(202);
    const before = stored();
    expectIntentConflict(await create(lane, key, bytes), first.json.launchId);
    expectIntentConflict(await create(lane, walletKey(lane), bytes), first.json.launchId);
    expect(stored()).toEqual(before);
    const replay = await create(lane, key, bytes, k);
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
    expect(stored()).toEqual(before);
  });

  it.each([
    [
      'the same wallet and nonce, other content',
      (n: string, w: string) => ({ nonce: n, note: 'Another description of the same wallet and nonce.', wallet: w }),
      409,
    ],
    ['the same nonce, the wallet in other case', (n: string, w: string) => ({ nonce: n, wallet: shouted(w) }), 409],
    ['another nonce, otherwise the same', (_n: string, w: string) => ({ wallet: w }), 202],
  ])('%s', async (_name, variant, want) => {
    const key = walletKey(lane);
    const first = lane.bytes();
    const created = await create(lane, key, first);
    expect(created.status, created.text).toBe(202);
    const second = lane.bytes(variant(nonceOf(first), lane.wallet));
    expect(intentOf(second)).not.toBe(intentOf(first));
    const r = await create(lane, key, second);
    if (want === 202) expect(r.status, r.text).toBe(202);
    else expectIntentConflict(r, created.json.launchId);
  });

  it('the same launchIntentHash alone (its wallet-and-nonce claim gone): 409 by the intent hash index', async () => {
    const key = walletKey(lane);
    const bytes = lane.bytes();
    const first = await create(lane, key, bytes);
    expect(first.status, first.text).toBe(202);
    s.db.prepare(`UPDATE ${lane.table} SET wallet_nonce = NULL WHERE launch_id = ?`).run(first.json.launchId);
    expectIntentConflict(await create(lane, key, bytes), first.json.launchId);
  });

  it('names the existing launch only to a credential that may read it', async () => {
    const wallet = walletKey(lane);
    const partner = partnerKey(lane);
    const walletsLaunch = lane.bytes();
    const partnersLaunch = lane.bytes();
    const a = await create(lane, wallet, walletsLaunch);
    const b = await create(lane, partner, partnersLaunch);
    expect([a.status, b.status]).toEqual([202, 202]);
    expectIntentConflict(await create(lane, partner, walletsLaunch), undefined);
    expectIntentConflict(await create(lane, wallet, partnersLaunch), undefined);
    expectIntentConflict(await create(lane, partner, partnersLaunch), b.json.launchId);
    expectIntentConflict(await create(lane, partnerKey(lane), partnersLaunch), undefined);
  });

  it('a burst of 50 keys over one request in parallel: exactly one 202 and 49 409s, one launch', async () => {
    const key = walletKey(lane);
    const bytes = lane.bytes();
    const replies = await Promise.all(Array.from({ length: 50 }, () => create(lane, key, bytes)));
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses.filter((x) => x === 202)).toHaveLength(1);
    expect(statuses.filter((x) => x === 409)).toHaveLength(49);
    const winner = replies.find((r) => r.status === 202)?.json.launchId;
    for (const r of replies.filter((x) => x.status === 409)) expectIntentConflict(r, winner);
    const rows = s.db
      .prepare(`SELECT count(*) AS n FROM ${lane.table} WHERE launch_intent_hash = ?`)
      .get(intentOf(bytes)) as { n: number };
    expect(rows.n).toBe(1);
  });
});

describe('the unique claim indexes decide', () => {
  it('a write that meets a stored claim past the check becomes 409 LAUNCH_INTENT_CONFLICT, never a 500', async () => {
    const lane = lanes[0] as Lane;
    const key = walletKey(lane);
    const bytes = lane.bytes();
    const first = await create(lane, key, bytes);
    const second = await create(lane, key, lane.bytes());
    expect([first.status, second.status]).toEqual([202, 202]);
    const principal = findPrincipal(s.db, key, Date.now()) as Principal;
    // As if another process committed the same intent between the check and this write.
    const write = () =>
      insertClaimingIntent(s.db, { table: 'launches', chainId: '4663' }, principal, JSON.parse(bytes), () =>
        s.db
          .prepare('UPDATE launches SET intent_claim = ? WHERE launch_id = ?')
          .run(intentOf(bytes), second.json.launchId),
      );
    expect(write).toThrow(
      expect.objectContaining({ code: 'LAUNCH_INTENT_CONFLICT', existingLaunchId: first.json.launchId }),
    );
  });
});
