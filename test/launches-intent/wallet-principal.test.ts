import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPrincipal, type Principal, revokeWalletKey } from '../../src/auth/keys.ts';
import { baseLayerRequest, baseLayerRequestBytes, defaultBaseLaunchWallet } from '../support/base-layer-request.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { multiRoleRequest, multiRoleRequestBytes } from '../support/multi-role-request.ts';
import { expirePermit, handOffBySql, reissueDecisionBody } from '../support/permit-reissue.ts';
import {
  exampleWallet,
  freshV4Bytes,
  freshWallet,
  issueSubkey,
  startServer,
  type TestServer,
} from '../support/server.ts';

/**
 * The wallet as the principal of wallet keys, over real HTTP and a fresh SQLite file (spec/openapi/service.openapi.yaml
 * bearerAuth; getCustomLaunchV4, listCustomLaunchesV4, getCustomLaunchV3, listCustomLaunchesV3,
 * getMultiRoleCustomLaunch, listMultiRoleCustomLaunches, decidePermitReissueV4): every active key of a wallet reads
 * the launches any key of that wallet created, a revoked key's included; partner launches naming the wallet stay
 * apart both ways. No chain is bound: the V4 launch is moved to the wallet handoff (awaiting_wallet_signature) and its
 * permit expired through the store, as the lifecycle worker and the tracker would.
 */

const baseFixture = new URL('../fixtures/base-deployment.json', import.meta.url).pathname;
const multiRoleFixture = new URL('../fixtures/multi-role-deployment.json', import.meta.url).pathname;

const clock = Date.now();
let s: TestServer;
beforeAll(async () => {
  s = await startServer({ baseDeploymentPath: baseFixture, multiRoleDeploymentPath: multiRoleFixture }, () => clock);
}, 60_000);
afterAll(async () => {
  await s?.close();
});

interface Lane {
  name: string;
  path: string;
  wallet: string;
  chains: string[];
  /** A new intent of this lane naming `wallet` as its controller. */
  bytes: () => string;
}

let nonceSeq = 0;
const lanes: Lane[] = [
  {
    name: 'V4',
    path: '/v4/chains/4663/custom-launches',
    wallet: exampleWallet,
    chains: ['4663'],
    bytes: () => freshV4Bytes(),
  },
  {
    name: 'base-layer V3',
    path: '/v3/custom-launches',
    wallet: defaultBaseLaunchWallet,
    chains: ['1'],
    bytes: () => baseLayerRequestBytes(baseLayerRequest({ nonce: String(5000 + ++nonceSeq) })).toString('utf8'),
  },
  {
    name: 'shared lane',
    path: '/v4/chains/4663/multi-role-custom-launches',
    wallet: exampleWallet,
    chains: ['4663'],
    bytes: () => multiRoleRequestBytes(multiRoleRequest()).toString('utf8'),
  },
];

let idem = 0;
const create = async (lane: Lane, apiKey: string): Promise<{ launchId: string; requestDigest: string }> => {
  const r = await call(`${s.url}${lane.path}`, {
    method: 'POST',
    headers: auth(apiKey, { 'Idempotency-Key': `wallet-principal-${String(++idem).padStart(6, '0')}` }),
    body: lane.bytes(),
  });
  expect(r.status, r.text).toBe(202);
  return r.json;
};
const read = (lane: Lane, apiKey: string, launchId: string) =>
  call(`${s.url}${lane.path}/${launchId}`, { headers: auth(apiKey) });
const list = (lane: Lane, apiKey: string, query = '') =>
  call(`${s.url}${lane.path}${query}`, { headers: auth(apiKey) });
/** Every launchId the key lists, following nextCursor to the end. */
const listed = async (lane: Lane, apiKey: string): Promise<string[]> => {
  const ids: string[] = [];
  let query = '?limit=25';
  for (;;) {
    const r = await list(lane, apiKey, query);
    expect(r.status, r.text).toBe(200);
    ids.push(...r.json.launches.map((l: { launchId: string }) => l.launchId));
    if (r.json.nextCursor === null) return ids;
    query = `?limit=25&cursor=${r.json.nextCursor}`;
  }
};
/** The operator's revocation of a wallet key (`npm run admin -- keys revoke <keyId>`). */
const revoke = (apiKey: string) =>
  revokeWalletKey(s.db, (findPrincipal(s.db, apiKey, clock) as Principal).keyId, clock);
const walletKey = (lane: Lane, wallet = lane.wallet, scopes = ['custom-launch:create', 'custom-launch:read']) =>
  s.key({ wallet, chains: lane.chains, scopes });

function expectMissing(r: Reply): void {
  expect(r.status, r.text).toBe(404);
  expect(r.json.error.code).toBe('NOT_FOUND');
}

describe.each(lanes)('$name: every key of a wallet reads the wallet’s launches', (lane) => {
  it('a revoked key’s launch is listed and read by the replacement and a read-only key of the same wallet', async () => {
    const leaked = walletKey(lane);
    const launch = await create(lane, leaked);
    if (lane.name === 'V4') handOffBySql(s, launch.launchId, clock + 3_600_000);
    revoke(leaked);
    expect((await list(lane, leaked)).status).toBe(401);
    const replacement = walletKey(lane);
    const dashboard = walletKey(lane, lane.wallet, ['custom-launch:read']);
    for (const key of [replacement, dashboard]) {
      expect(await listed(lane, key)).toContain(launch.launchId);
      const r = await read(lane, key, launch.launchId);
      expect(r.status, r.text).toBe(200);
      expect(r.json.launchId).toBe(launch.launchId);
      if (lane.name === 'V4') expect(r.json.status).toBe('awaiting_wallet_signature');
    }
  });

  it('another wallet’s key gets 404 and an empty list', async () => {
    const launch = await create(lane, walletKey(lane));
    const stranger = walletKey(lane, freshWallet());
    expectMissing(await read(lane, stranger, launch.launchId));
    expect(await listed(lane, stranger)).toEqual([]);
  });

  it('a partner launch naming the wallet is not the wallet’s, and the wallet’s launch is not the partner’s', async () => {
    const root = s.partnerRoot({ wallet: lane.wallet, chains: lane.chains }).apiKey;
    const subkey = await issueSubkey(s, root);
    const byRoot = await create(lane, root);
    const bySubkey = await create(lane, subkey);
    const key = walletKey(lane);
    const walletsOwn = await create(lane, key);
    const partnerIds = [byRoot.launchId, bySubkey.launchId];
    for (const id of partnerIds) expectMissing(await read(lane, key, id));
    expect(await listed(lane, key)).not.toEqual(expect.arrayContaining([byRoot.launchId]));
    expect(await listed(lane, key)).not.toEqual(expect.arrayContaining([bySubkey.launchId]));
    for (const partner of [root, subkey]) {
      expectMissing(await read(lane, partner, walletsOwn.launchId));
      expect(await listed(lane, partner)).not.toContain(walletsOwn.launchId);
    }
    expect(await listed(lane, root)).toEqual(expect.arrayContaining(partnerIds));
  });

  it('a cursor serves every key of the wallet (one list) and no other wallet’s key', async () => {
    const wallet = lane.wallet;
    const first = walletKey(lane, wallet);
    await create(lane, first);
    await create(lane, first);
    const page = await list(lane, first, '?limit=1');
    expect(page.json.nextCursor).toEqual(expect.any(String));
    const second = await list(lane, walletKey(lane, wallet), `?limit=1&cursor=${page.json.nextCursor}`);
    expect(second.status, second.text).toBe(200);
    expect(second.json.launches).toHaveLength(1);
    const stranger = await list(lane, walletKey(lane, freshWallet()), `?cursor=${page.json.nextCursor}`);
    expect(stranger.status, stranger.text).toBe(400);
    expect(stranger.json.error.code).toBe('INVALID_REQUEST');
  });
});

describe('V4: the replacement key decides the permit reissue of a launch the revoked key created', () => {
  it('decidePermitReissueV4 by the replacement: 200 reissue; another wallet’s key: 404', async () => {
    const lane = lanes[0] as Lane;
    const leaked = walletKey(lane);
    const launch = await create(lane, leaked);
    handOffBySql(s, launch.launchId, clock);
    expect(expirePermit(s, launch.launchId, clock)).toBe(true);
    revoke(leaked);
    const decide = (apiKey: string, body: string) =>
      call(`${s.url}${lane.path}/${launch.launchId}/permit-reissue-disposition`, {
        method: 'POST',
        headers: auth(apiKey, { 'Idempotency-Key': `wallet-principal-decide-${++idem}`.padEnd(16, '0') }),
        body,
      });
    const stranger = freshWallet();
    expectMissing(await decide(walletKey(lane, stranger), reissueDecisionBody(launch, { launchWallet: stranger })));
    const r = await decide(walletKey(lane), reissueDecisionBody(launch));
    expect(r.status, r.text).toBe(200);
    expect(r.json.disposition).toBe('reissue_scheduled');
  });
});
