import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, call, type Reply } from '../support/http.ts';
import {
  controlledBy,
  example,
  exampleWallet,
  freshV4Bytes,
  startServer,
  type TestServer,
  v4Example,
} from '../support/server.ts';

/**
 * Partner lineage reads and partnerAttribution (spec/openapi/paths/v4-custom-launches.yaml listCustomLaunchesV4,
 * v4-custom-launch.yaml getCustomLaunchV4; custom-launch-resource.v4.schema.json partnerAttribution): a root reads its
 * whole partner, a subkey only its lineage (kept across rotations), a new subkey starts an isolated lineage, and a
 * partner credential never gets the authority of the launchWallet it names. The server is the in-process test server
 * (no lifecycle worker), so every launch stays `received`.
 */

let s: TestServer;
let seq = 0;
const idem = (tag = 'lineage') => `${tag}-${Date.now()}-${++seq}`.padEnd(16, 'x');
const launches = () => `${s.url}/v4/chains/4663/custom-launches`;
const launchCount = () => (s.db.prepare('SELECT count(*) AS n FROM launches').get() as { n: number }).n;

/** The partner root's wallet: not the example's launchWallet, so a root launch names a wallet it is not bound to. */
const partnerWallet = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
/** A third wallet with a wallet key of its own. */
const otherWallet = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

const subkeyBody = (name: string) =>
  JSON.stringify({
    displayName: name,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    prepareRequestsPerHour: 100,
    readRequestsPerMinute: 100,
    expiresAt: '2030-12-31T23:59:59.000Z',
  });

interface Issued {
  apiKey: string;
  subkeyId: string;
  lineageId: string;
}

async function issue(root: string, name: string): Promise<Issued> {
  const r = await call(`${s.url}/v1/partner/subkeys`, {
    method: 'POST',
    headers: auth(root, { 'Idempotency-Key': idem('issue') }),
    body: subkeyBody(name),
  });
  expect(r.status, r.text).toBe(201);
  return { apiKey: r.json.apiKey, subkeyId: r.json.subkeyId, lineageId: r.json.lineageId };
}

async function rotate(root: string, subkeyId: string, name: string): Promise<Issued> {
  const r = await call(`${s.url}/v1/partner/subkeys/${subkeyId}/rotate`, {
    method: 'POST',
    headers: auth(root, { 'Idempotency-Key': idem('rotate') }),
    body: subkeyBody(name),
  });
  expect(r.status, r.text).toBe(201);
  expect(r.json.rotatedFromSubkeyId).toBe(subkeyId);
  return { apiKey: r.json.apiKey, subkeyId: r.json.subkeyId, lineageId: r.json.lineageId };
}

async function revoke(root: string, subkeyId: string): Promise<void> {
  const r = await call(`${s.url}/v1/partner/subkeys/${subkeyId}`, { method: 'DELETE', headers: auth(root) });
  expect(r.status, r.text).toBe(200);
  expect(r.json.status).toBe('revoked');
}

/** Creates a launch and returns the 202 answer's body. */
async function create(key: string, body = freshV4Bytes()): Promise<any> {
  const r = await call(launches(), { method: 'POST', headers: auth(key, { 'Idempotency-Key': idem('create') }), body });
  expect(r.status, r.text).toBe(202);
  return r.json;
}

/** Every launch the credential lists, following nextCursor to the end. */
async function listAll(key: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const url: string = `${launches()}?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const r = await call(url, { headers: auth(key) });
    expect(r.status, r.text).toBe(200);
    out.push(...r.json.launches);
    cursor = r.json.nextCursor;
    if (!cursor) return out;
  }
  throw new Error('list did not end within 50 pages');
}
const idsOf = (items: any[]) => items.map((l) => l.launchId).sort();

const detail = (key: string, launchId: string) => call(`${launches()}/${launchId}`, { headers: auth(key) });

/**
 * A 404 on a foreign launch must be indistinguishable from a 404 on a launch id that does not exist: same status,
 * same code, same body apart from the request id and the launch id itself, same header names.
 */
function normalized404(r: Reply, launchId: string) {
  const body = JSON.parse(r.text.split(launchId).join('<launchId>'));
  expect(body.error.requestId).toBe(r.headers.get('x-request-id'));
  body.error.requestId = '<requestId>';
  const headerNames = [...r.headers.keys()].filter((h) => !['date', 'x-request-id'].includes(h)).sort();
  const contentLength = r.headers.get('content-length');
  return { status: r.status, body, headerNames, contentLength };
}
async function expectLooksMissing(key: string, launchId: string): Promise<void> {
  const foreign = await detail(key, launchId);
  expect(foreign.status, foreign.text).toBe(404);
  expect(foreign.json.error.code).toBe('NOT_FOUND');
  expect(foreign.json.error.retryable).toBe(false);
  const missingId = randomUUID();
  const missing = await detail(key, missingId);
  expect(missing.status).toBe(404);
  expect(normalized404(foreign, launchId)).toEqual(normalized404(missing, missingId));
}

// The world: partner A (root, subkeys s1 -> s1b -> s1c rotated, sibling s2, s3 revoked, s4 issued after), partner B,
// a wallet key of the example launchWallet, and a wallet key of another wallet.
let rootA: { apiKey: string; partnerId: string; keyId: string };
let rootB: { apiKey: string; partnerId: string; keyId: string };
let walletKey: string;
let otherWalletKey: string;
let s1: Issued;
let s1b: Issued;
let s1c: Issued;
let s2: Issued;
let s3: Issued;
let s4: Issued;
const created: Record<string, any> = {};

beforeAll(async () => {
  s = await startServer({ admissionPerHour: 10_000, admissionPerDay: 10_000, routeBudgetPerMinute: 100_000 });
  rootA = s.partnerRoot({ name: 'Partner A', wallet: partnerWallet });
  rootB = s.partnerRoot({ name: 'Partner B', wallet: partnerWallet });
  walletKey = s.key({ wallet: exampleWallet });
  otherWalletKey = s.key({ wallet: otherWallet });

  created.rootA = await create(rootA.apiKey);
  created.rootB = await create(rootB.apiKey);
  created.wallet = await create(walletKey);

  s1 = await issue(rootA.apiKey, 'first');
  created.s1 = await create(s1.apiKey);
  s1b = await rotate(rootA.apiKey, s1.subkeyId, 'first, rotated once');
  created.s1b = await create(s1b.apiKey);
  s1c = await rotate(rootA.apiKey, s1b.subkeyId, 'first, rotated twice');

  s2 = await issue(rootA.apiKey, 'sibling');
  created.s2 = await create(s2.apiKey);

  s3 = await issue(rootA.apiKey, 'revoked later');
  created.s3 = await create(s3.apiKey);
  await revoke(rootA.apiKey, s3.subkeyId);
  s4 = await issue(rootA.apiKey, 'issued after the revocation');
});
afterAll(() => s?.close());

describe('partner root reads', () => {
  it('lists every launch attributed to its partner: its own, current, rotated and revoked subkeys', async () => {
    const expected = idsOf([created.rootA, created.s1, created.s1b, created.s2, created.s3]);
    expect(idsOf(await listAll(rootA.apiKey))).toEqual(expected);
    for (const id of expected) {
      const r = await detail(rootA.apiKey, id);
      expect(r.status, r.text).toBe(200);
      expect(r.json.launchId).toBe(id);
    }
  });

  it("never reads a wallet key's or another partner's launch", async () => {
    await expectLooksMissing(rootA.apiKey, created.wallet.launchId);
    await expectLooksMissing(rootA.apiKey, created.rootB.launchId);
  });

  it("another partner's root sees none of this partner's launches", async () => {
    expect(idsOf(await listAll(rootB.apiKey))).toEqual([created.rootB.launchId]);
    for (const l of [created.rootA, created.s1, created.s1b, created.s2, created.s3]) {
      await expectLooksMissing(rootB.apiKey, l.launchId);
    }
  });
});

describe('subkey lineage reads', () => {
  it('rotation keeps the lineage id; issue starts a new one', () => {
    expect(s1b.lineageId).toBe(s1.lineageId);
    expect(s1c.lineageId).toBe(s1.lineageId);
    const lineages = [s1.lineageId, s2.lineageId, s3.lineageId, s4.lineageId, rootA.keyId];
    expect(new Set(lineages).size).toBe(lineages.length);
  });

  it('the replacement reads its lineage history, created by the keys it was rotated from', async () => {
    const own = idsOf([created.s1, created.s1b]);
    expect(idsOf(await listAll(s1c.apiKey))).toEqual(own);
    for (const id of own) expect((await detail(s1c.apiKey, id)).status).toBe(200);
  });

  it("never reads the root's, a sibling's, another partner's or a wallet key's launch: 404 like a missing id, absent from the list", async () => {
    const listed = idsOf(await listAll(s1c.apiKey));
    for (const foreign of [created.rootA, created.s2, created.s3, created.rootB, created.wallet]) {
      expect(listed).not.toContain(foreign.launchId);
      await expectLooksMissing(s1c.apiKey, foreign.launchId);
    }
  });

  it('a sibling reads only its own launch', async () => {
    expect(idsOf(await listAll(s2.apiKey))).toEqual([created.s2.launchId]);
    for (const foreign of [created.s1, created.s1b, created.rootA, created.s3]) {
      await expectLooksMissing(s2.apiKey, foreign.launchId);
    }
  });

  it('a newly issued subkey starts an isolated lineage: it does not see the revoked subkey before it', async () => {
    expect(await listAll(s4.apiKey)).toEqual([]);
    await expectLooksMissing(s4.apiKey, created.s3.launchId);
    const mine = await create(s4.apiKey);
    expect(idsOf(await listAll(s4.apiKey))).toEqual([mine.launchId]);
    // The root sees the new one too.
    expect(idsOf(await listAll(rootA.apiKey))).toContain(mine.launchId);
  });

  it('the rotated-away and revoked keys answer 401', async () => {
    for (const key of [s1.apiKey, s1b.apiKey, s3.apiKey]) {
      const r = await call(launches(), { headers: auth(key) });
      expect(r.status, r.text).toBe(401);
      expect(r.json.error.code).toBe('UNAUTHENTICATED');
    }
  });
});

describe('partnerAttribution ($defs.PartnerAttribution)', () => {
  const expectedFor = () => ({
    wallet: null,
    rootA: { partnerId: rootA.partnerId, credentialKind: 'partner_root', subkeyId: null, lineageId: rootA.keyId },
    rootB: { partnerId: rootB.partnerId, credentialKind: 'partner_root', subkeyId: null, lineageId: rootB.keyId },
    // s1's launch still names s1 after two rotations; s1b's names s1b.
    s1: {
      partnerId: rootA.partnerId,
      credentialKind: 'partner_subkey',
      subkeyId: s1.subkeyId,
      lineageId: s1.lineageId,
    },
    s1b: {
      partnerId: rootA.partnerId,
      credentialKind: 'partner_subkey',
      subkeyId: s1b.subkeyId,
      lineageId: s1.lineageId,
    },
    s2: {
      partnerId: rootA.partnerId,
      credentialKind: 'partner_subkey',
      subkeyId: s2.subkeyId,
      lineageId: s2.lineageId,
    },
    // Unchanged after s3's revocation.
    s3: {
      partnerId: rootA.partnerId,
      credentialKind: 'partner_subkey',
      subkeyId: s3.subkeyId,
      lineageId: s3.lineageId,
    },
  });
  const readerOf = (name: string) =>
    name === 'wallet' ? walletKey : name === 'rootB' ? rootB.apiKey : name.startsWith('s1') ? s1c.apiKey : rootA.apiKey;

  it('the 202 create answer carries the server-derived attribution', () => {
    for (const [name, attribution] of Object.entries(expectedFor())) {
      expect(created[name].partnerAttribution, name).toEqual(attribution);
    }
  });

  it('detail and list carry the same attribution, unchanged after rotation and revocation', async () => {
    for (const [name, attribution] of Object.entries(expectedFor())) {
      const reader = readerOf(name);
      const d = await detail(reader, created[name].launchId);
      expect(d.status, d.text).toBe(200);
      expect(d.json.partnerAttribution, name).toEqual(attribution);
      const listed = (await listAll(reader)).find((l) => l.launchId === created[name].launchId);
      expect(listed?.partnerAttribution, name).toEqual(attribution);
      // The whole resource reads the same everywhere (nothing moved it on: no worker runs here).
      expect(listed).toEqual(d.json);
      expect(d.json).toEqual(created[name]);
    }
    // The revoked subkey's launch, read by the root, and s2's launch read by s2 itself, agree too.
    const byS2 = await detail(s2.apiKey, created.s2.launchId);
    expect(byS2.json.partnerAttribution).toEqual(expectedFor().s2);
  });

  it('a create body carrying partnerAttribution is 400 INVALID_REQUEST (closed schema) and stores nothing', async () => {
    const body = example(v4Example);
    body.partnerAttribution = {
      partnerId: rootB.partnerId,
      credentialKind: 'partner_root',
      subkeyId: null,
      lineageId: rootB.keyId,
    };
    const idempotencyRecords = () =>
      (s.db.prepare('SELECT count(*) AS n FROM idempotency_records').get() as { n: number }).n;
    for (const key of [rootA.apiKey, s2.apiKey, walletKey]) {
      const before = { launches: launchCount(), idem: idempotencyRecords() };
      const r = await call(launches(), {
        method: 'POST',
        headers: auth(key, { 'Idempotency-Key': idem('attribution') }),
        body: JSON.stringify(body),
      });
      expect(r.status, r.text).toBe(400);
      expect(r.json.error.code).toBe('INVALID_REQUEST');
      expect(r.json.error.requestId).toBe(r.headers.get('x-request-id'));
      expect(r.json.error.issues.map((i: { location: string }) => i.location)).toContain('/body/partnerAttribution');
      expect({ launches: launchCount(), idem: idempotencyRecords() }).toEqual(before);
    }
  });
});

describe('a rotated subkey keeps its lineage’s idempotency keys for launch creates', () => {
  it('the replacement replays its predecessor’s create (200, the same answer); other bytes under the key are 409', async () => {
    const before = await issue(rootA.apiKey, 'rotated between a create and its resend');
    const key = idem('replay-across-rotation');
    const bytes = freshV4Bytes();
    const send = (apiKey: string, body: string) =>
      call(launches(), { method: 'POST', headers: auth(apiKey, { 'Idempotency-Key': key }), body });
    const first = await send(before.apiKey, bytes);
    expect(first.status, first.text).toBe(202);
    const after = await rotate(rootA.apiKey, before.subkeyId, 'its replacement');
    const count = launchCount();
    const replay = await send(after.apiKey, bytes);
    expect(replay.status, replay.text).toBe(200);
    expect(replay.text).toBe(first.text);
    const other = await send(after.apiKey, freshV4Bytes());
    expect(other.status, other.text).toBe(409);
    expect(other.json.error.code).toBe('IDEMPOTENCY_CONFLICT');
    // Another lineage of the same partner keeps its own keys: the same key and bytes meet the stored intent.
    const sibling = await send((await issue(rootA.apiKey, 'another lineage')).apiKey, bytes);
    expect(sibling.status, sibling.text).toBe(409);
    expect(sibling.json.error.code).toBe('LAUNCH_INTENT_CONFLICT');
    expect(launchCount()).toBe(count);
  });
});

describe('a partner credential names the controller but never gets its authority', () => {
  it('a partner root and a subkey create launches naming a wallet that has its own wallet key', () => {
    // The example's launchWallet is exampleWallet, which walletKey is bound to; rootA is bound to partnerWallet.
    expect(created.rootA.launchWallet.toLowerCase()).toBe(exampleWallet.toLowerCase());
    expect(created.s2.launchWallet.toLowerCase()).toBe(exampleWallet.toLowerCase());
  });

  it("the wallet key cannot read the partner's launch naming its wallet", async () => {
    const listed = idsOf(await listAll(walletKey));
    expect(listed).toEqual([created.wallet.launchId]);
    for (const l of [created.rootA, created.s1, created.s2, created.rootB]) {
      await expectLooksMissing(walletKey, l.launchId);
    }
  });

  it("the partner cannot read that wallet key's launch", async () => {
    for (const key of [rootA.apiKey, s1c.apiKey, s2.apiKey, s4.apiKey]) {
      expect(idsOf(await listAll(key))).not.toContain(created.wallet.launchId);
      await expectLooksMissing(key, created.wallet.launchId);
    }
  });

  it('any launchWallet: a partner creates for another wallet, whose wallet key gets 403 WALLET_MISMATCH only when it is not its own', async () => {
    // One launch per intent: each create names otherWallet with a request of its own.
    const body = () => freshV4Bytes(v4Example, controlledBy(otherWallet));
    const byRoot = await create(rootA.apiKey, body());
    const bySubkey = await create(s2.apiKey, body());
    expect(byRoot.launchWallet).toBe(otherWallet);
    expect(bySubkey.partnerAttribution.subkeyId).toBe(s2.subkeyId);
    // The wallet key of exampleWallet may not name otherWallet.
    const mismatch = await call(launches(), {
      method: 'POST',
      headers: auth(walletKey, { 'Idempotency-Key': idem('mismatch') }),
      body: body(),
    });
    expect(mismatch.status, mismatch.text).toBe(403);
    expect(mismatch.json.error.code).toBe('WALLET_MISMATCH');
    // otherWallet's own key may, and still never reads the partner's launches naming it.
    const own = await create(otherWalletKey, body());
    expect(idsOf(await listAll(otherWalletKey))).toEqual([own.launchId]);
    await expectLooksMissing(otherWalletKey, byRoot.launchId);
    await expectLooksMissing(otherWalletKey, bySubkey.launchId);
    await expectLooksMissing(rootA.apiKey, own.launchId);
  });
});
