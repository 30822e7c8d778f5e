import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  type PrivateKeyAccount,
  parseSignature,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetUsdAbi } from '../../generated/contracts/abis.ts';
import type {
  CustomLaunchCreateRequestV3,
  CustomLaunchFundingAuthorizationV3,
  CustomLaunchFundingTypedDataV3,
} from '../../generated/types/service.ts';
import { chain1 } from '../../src/chain/chain.ts';
import {
  fundingAuthorizationNonceOf,
  receiveWithAuthorizationTypedData,
} from '../../src/core/funding-authorization.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import { type BaseDevnetDeployment, startBaseDevnet } from '../../src/devnet/base-devnet.ts';
import {
  type BaseLaunchFields,
  type BaseLaunchStatus,
  baseLaunchRow,
  baseLaunchTransitions,
  moveBaseLaunch,
} from '../../src/domain/base-layer/launch-store.ts';
import { pinnedCompilerVersion } from '../../src/solidity/compile-contracts.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import { baseLayerRequest, baseLayerRequestBytes } from '../support/base-layer-request.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { freshV4Bytes, startServer, type TestServer } from '../support/server.ts';

/**
 * The base-layer V3 launch operations over real HTTP, a fresh SQLite file and a real chain-1 devnet (anvil with the
 * lane's contracts and dUSD): spec/openapi/paths/v3-capabilities.yaml, v3-custom-launches.yaml,
 * v3-custom-launches-preflight.yaml, v3-custom-launch.yaml, v3-custom-launch-funding-authorization.yaml and
 * v3-custom-launch-cancellation.yaml. The server runs no lifecycle worker, so a launch stays where it is put.
 */

const port = 20947;
const account0 = privateKeyToAccount(devnetOperatorKey);
/** Anvil's well-known account 1: holds no dUSD. */
const account1 = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const otherWallet = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

// A controllable clock (the admission windows and the authorization window read it); it starts at the wall clock,
// since the devnet follows the wall clock.
let nowMs = Date.now();
const now = () => nowMs;

let dir: string;
let devnet: Awaited<ReturnType<typeof startBaseDevnet>>;
let deployment: BaseDevnetDeployment;
let s: TestServer;
let key: string;
let deploymentPath: string;
const extra: TestServer[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'base-layer-http-'));
  devnet = await startBaseDevnet({ port, outputDir: dir });
  deployment = devnet.deployment;
  deploymentPath = join(dir, 'base-deployment.json');
  s = await server();
  key = v3Key(s);
}, 120_000);

afterAll(async () => {
  for (const x of extra) await x.close();
  await s?.close();
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A server bound to the devnet's base deployment (unless `overrides` say otherwise). */
async function server(overrides: Parameters<typeof startServer>[0] = {}): Promise<TestServer> {
  return startServer(
    {
      baseDeploymentPath: deploymentPath,
      chain1RpcUrls: [deployment.rpcUrl, deployment.rpcUrl],
      ...overrides,
    },
    now,
  );
}

async function extraServer(overrides: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const x = await server(overrides);
  extra.push(x);
  return x;
}

/** A wallet key with the chain-1 grant (account 0, the dUSD holder, unless named). */
const v3Key = (server: TestServer, wallet: string = account0.address) => server.key({ wallet, chains: ['1', '4663'] });

let seq = 0;
const idem = (tag = 'v3') => `${tag}-${Date.now()}-${++seq}`.padEnd(16, 'x');

/** A sealed request with a nonce of its own (so two launches never share bytes). */
function request(options: Parameters<typeof baseLayerRequest>[0] = {}): CustomLaunchCreateRequestV3 {
  return baseLayerRequest({ launchWallet: account0.address, nonce: String(++seq), ...options });
}

const eip3009 = (amount = '25000000'): CustomLaunchCreateRequestV3['funding'] => ({
  mode: 'eip3009',
  valueWei: '1000000000000000000',
  token: deployment.contracts.fundingToken.address,
  amount,
  recipient: otherWallet,
});

const create = (server: TestServer, k: string, body: CustomLaunchCreateRequestV3 | Buffer, idempotencyKey = idem()) =>
  call(`${server.url}/v3/custom-launches`, {
    method: 'POST',
    headers: auth(k, { 'Idempotency-Key': idempotencyKey }),
    body: Buffer.isBuffer(body) ? body : baseLayerRequestBytes(body),
  });
const preflight = (server: TestServer, k: string, body: CustomLaunchCreateRequestV3) =>
  call(`${server.url}/v3/custom-launches/preflight`, {
    method: 'POST',
    headers: auth(k),
    body: baseLayerRequestBytes(body),
  });
const get = (k: string, launchId: string) => call(`${s.url}/v3/custom-launches/${launchId}`, { headers: auth(k) });
const list = (k: string, query = '') => call(`${s.url}/v3/custom-launches${query}`, { headers: auth(k) });
const cancel = (k: string, launchId: string) =>
  call(`${s.url}/v3/custom-launches/${launchId}/cancellation`, { method: 'POST', headers: auth(k) });
const authorize = (k: string, launchId: string, signature: string) =>
  call(`${s.url}/v3/custom-launches/${launchId}/funding-authorization`, {
    method: 'POST',
    headers: auth(k),
    body: JSON.stringify({ schemaVersion: 'platform.custom-launch-funding-authorization.v3', signature }),
  });

function expectApiError(r: Reply, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.json.error.code).toBe(code);
}

const count = (server: TestServer, table: string) =>
  (server.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const counts = (server: TestServer) => ({
  launches: count(server, 'v3_launches'),
  jobs: count(server, 'v3_lifecycle_jobs'),
  admissions: count(server, 'admissions'),
  idempotency: count(server, 'idempotency_records'),
});

/** Creates a launch and answers its id. */
async function created(body: CustomLaunchCreateRequestV3 = request(), k = key, server = s): Promise<string> {
  const r = await create(server, k, body);
  expect(r.status, r.text).toBe(202);
  return r.json.launchId as string;
}

describe('createCustomLaunchV3', () => {
  it('stores a new request in received with a scheduled job and answers 202 with a valid resource', async () => {
    const before = counts(s);
    const body = request();
    const r = await create(s, key, body);
    expect(r.status, r.text).toBe(202);
    expect(schemaProblems('custom-launch-resource.v3.schema.json', r.json)).toEqual([]);
    expect(r.json).toMatchObject({
      status: 'received',
      chainId: '1',
      launchWallet: account0.address,
      launchProfileVersion: '3.3.0',
      fundingMode: 'native',
      fundingAuthorization: null,
      partnerAttribution: null,
      walletTransaction: null,
      failure: null,
    });
    expect(counts(s)).toEqual({
      launches: before.launches + 1,
      jobs: before.jobs + 1,
      admissions: before.admissions + 1,
      idempotency: before.idempotency + 1,
    });
    const row = baseLaunchRow(s.db, r.json.launchId);
    expect(row?.request_bytes.equals(baseLayerRequestBytes(body))).toBe(true);
    expect(row?.funding_mode).toBe('native');
    const job = s.db.prepare('SELECT state FROM v3_lifecycle_jobs WHERE launch_id = ?').get(r.json.launchId);
    expect(job).toEqual({ state: 'scheduled' });
  });

  it('shows an eip3009 launch its token, amount and recipient with nothing to sign yet', async () => {
    const r = await create(s, key, request({ funding: eip3009() }));
    expect(r.status, r.text).toBe(202);
    expect(r.json.fundingMode).toBe('eip3009');
    expect(r.json.fundingAuthorization).toEqual({
      token: deployment.contracts.fundingToken.address,
      amount: '25000000',
      recipient: otherWallet,
      typedData: null,
      signature: null,
      verifiedAt: null,
      lastRejection: null,
    });
  });

  it('replays the same key and bytes as 200 with the identical body, consuming nothing', async () => {
    const k = idem();
    const body = baseLayerRequestBytes(request());
    const first = await create(s, key, body, k);
    const mid = counts(s);
    const replay = await create(s, key, body, k);
    expect([first.status, replay.status]).toEqual([202, 200]);
    expect(replay.text).toBe(first.text);
    expect(counts(s)).toEqual(mid);
  });

  it('answers 409 IDEMPOTENCY_CONFLICT for the same key with other bytes, persisting nothing', async () => {
    const k = idem();
    await create(s, key, request(), k);
    const before = counts(s);
    expectApiError(await create(s, key, request(), k), 409, 'IDEMPOTENCY_CONFLICT');
    expect(counts(s)).toEqual(before);
  });

  it('needs a grant for chain 1: 403 CHAIN_NOT_ALLOWED on every authenticated V3 operation', async () => {
    const k4663 = s.key({ wallet: account0.address, chains: ['4663'] });
    const launchId = await created();
    const before = counts(s);
    expectApiError(await create(s, k4663, request()), 403, 'CHAIN_NOT_ALLOWED');
    expectApiError(await preflight(s, k4663, request()), 403, 'CHAIN_NOT_ALLOWED');
    expectApiError(await list(k4663), 403, 'CHAIN_NOT_ALLOWED');
    expectApiError(await get(k4663, launchId), 403, 'CHAIN_NOT_ALLOWED');
    expectApiError(await cancel(k4663, launchId), 403, 'CHAIN_NOT_ALLOWED');
    expectApiError(await authorize(k4663, launchId, `0x${'11'.repeat(65)}`), 403, 'CHAIN_NOT_ALLOWED');
    expect(counts(s)).toEqual(before);
  });

  it('refuses a launchWallet other than a wallet key own with 403 WALLET_MISMATCH', async () => {
    expectApiError(await create(s, key, request({ launchWallet: otherWallet })), 403, 'WALLET_MISMATCH');
  });
});

describe('preflightCustomLaunchV3', () => {
  it('persists nothing and consumes no admission; its requestHash is the one create binds', async () => {
    const before = counts(s);
    const body = request();
    const r = await preflight(s, key, body);
    expect(r.status, r.text).toBe(200);
    expect(schemaProblems('custom-launch-preflight.v3.schema.json', r.json)).toEqual([]);
    expect(r.json.launchEligibility.deployable).toBe(true);
    expect(counts(s)).toEqual(before);
    const launch = await create(s, key, body);
    expect(launch.json.requestHash).toBe(r.json.requestHash);
  });

  it('reports the platform share only for a configured certification of the profile or the named adapter', async () => {
    const adapter = '0x00000000000000000000000000000000000000aa';
    const certified = await extraServer({
      v3: {
        profile340Active: false,
        fundingAuthorizationWindowSeconds: 3600,
        feeCertifications: [{ adapter, profileVersion: '3.3.0' }],
      },
    });
    const k = v3Key(certified);
    const cases: Array<[string, string | null, boolean]> = [
      ['the certified adapter', adapter, true],
      ['another adapter', '0x00000000000000000000000000000000000000bb', false],
      ['the profile itself (not certified here)', null, false],
    ];
    for (const [name, feeAdapter, want] of cases) {
      const r = await preflight(certified, k, request({ feeAdapter }));
      expect(r.status, `${name}: ${r.text}`).toBe(200);
      expect(r.json.feeCertification, name).toMatchObject({
        certified: want,
        platformShareHundredthsBip: want ? 1000 : 0,
        adapter: feeAdapter,
      });
      expect(r.json.feeCertification.stampedPoolKeyHash, name).toMatch(/^0x[0-9a-f]{64}$/);
    }
    const other = await preflight(s, key, request({ feeAdapter: adapter }));
    expect(other.json.feeCertification).toMatchObject({ certified: false, platformShareHundredthsBip: 0 });
    expect(other.json.warningFindingCodes).toContain('FEE_CERTIFICATION_NOT_FOUND');
  });

  it("spends a partner's prepareRequestsPerHour: 2 allowed, the third 429", async () => {
    const root = s.partnerRoot({ chains: ['1'], budgets: { prepareRequestsPerHour: 2 } });
    const body = request();
    expect((await preflight(s, root.apiKey, body)).status).toBe(200);
    expect((await preflight(s, root.apiKey, body)).status).toBe(200);
    expectApiError(await preflight(s, root.apiKey, body), 429, 'RATE_LIMITED');
  });
});

describe('profile 3.4.0 activation', () => {
  it('is refused with 409 PROFILE_NOT_ACTIVE and shown preparatory until V3_PROFILE_340_ACTIVE', async () => {
    const before = counts(s);
    expectApiError(await create(s, key, request({ profileVersion: '3.4.0' })), 409, 'PROFILE_NOT_ACTIVE');
    expect(counts(s)).toEqual(before);
    const caps = await call(`${s.url}/v3/capabilities`);
    expect(caps.json.profiles.find((p: { version: string }) => p.version === '3.4.0').state).toBe('preparatory');
  });

  it('is accepted and shown active once activated', async () => {
    const active = await extraServer({
      v3: { profile340Active: true, fundingAuthorizationWindowSeconds: 3600, feeCertifications: [] },
    });
    const r = await create(active, v3Key(active), request({ profileVersion: '3.4.0' }));
    expect(r.status, r.text).toBe(202);
    expect(r.json.launchProfileVersion).toBe('3.4.0');
    const caps = await call(`${active.url}/v3/capabilities`);
    expect(caps.json.profiles.find((p: { version: string }) => p.version === '3.4.0').state).toBe('active');
  });
});

describe('getCustomLaunchCapabilitiesV3', () => {
  it('names the pinned compiler, the funding token and the lane contracts of the base deployment', async () => {
    const r = await call(`${s.url}/v3/capabilities`);
    expect(r.status, r.text).toBe(200);
    expect(schemaProblems('custom-launch-capabilities.v3.schema.json', r.json)).toEqual([]);
    expect(r.json).toMatchObject({
      acceptsNewSubmissions: true,
      compilerVersion: pinnedCompilerVersion(),
      fundingAuthorizationWindowSeconds: 3600,
      fundingTokens: [
        {
          address: deployment.contracts.fundingToken.address,
          name: 'Devnet USD',
          version: '2',
          symbol: 'dUSD',
          decimals: 6,
        },
      ],
      deployment: {
        launchRouter: deployment.contracts.launchRouter.address,
        graphFactory: deployment.contracts.graphFactory.address,
        poolManager: deployment.contracts.poolManager.address,
        permitAuthority: deployment.contracts.permitAuthority.address,
      },
    });
    expect(r.json.profiles.map((p: { version: string; state: string }) => [p.version, p.state])).toEqual([
      ['3.0.0', 'readable_retryable'],
      ['3.1.0', 'readable_retryable'],
      ['3.2.0', 'readable_retryable'],
      ['3.3.0', 'default'],
      ['3.4.0', 'preparatory'],
    ]);
  });
});

describe('a deployment without a base layer (no BASE_DEPLOYMENT_PATH)', () => {
  it('answers preflight and create 503 BASE_LAYER_NOT_CONFIGURED, reads still work, capabilities admit nothing', async () => {
    const bare = await extraServer({ baseDeploymentPath: null, chain1RpcUrls: [] });
    const k = v3Key(bare);
    const before = counts(bare);
    expectApiError(await create(bare, k, request()), 503, 'BASE_LAYER_NOT_CONFIGURED');
    expectApiError(await preflight(bare, k, request()), 503, 'BASE_LAYER_NOT_CONFIGURED');
    expect(counts(bare)).toEqual(before);
    const listed = await call(`${bare.url}/v3/custom-launches`, { headers: auth(k) });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json).toEqual({ launches: [], nextCursor: null });
    const caps = await call(`${bare.url}/v3/capabilities`);
    expect(caps.status, caps.text).toBe(200);
    expect(caps.json).toMatchObject({ acceptsNewSubmissions: false, fundingTokens: [], deployment: null });
  });
});

describe('the global admission quota, shared with V4', () => {
  const v4Create = (server: TestServer, k: string) =>
    call(`${server.url}/v4/chains/4663/custom-launches`, {
      method: 'POST',
      headers: auth(k, { 'Idempotency-Key': idem('v4') }),
      body: freshV4Bytes(),
    });

  it.each([
    ['V4 fills the hour, V3 is refused', 'v4', 'v3'],
    ['V3 fills the hour, V4 is refused', 'v3', 'v4'],
  ])('%s (3 per hour here: the third admission passes, the fourth is 429)', async (_name, filler, refused) => {
    const q = await extraServer({ admissionPerHour: 3, admissionPerDay: 10 });
    const k = v3Key(q);
    const fill = (lane: string) => (lane === 'v4' ? v4Create(q, k) : create(q, k, request()));
    const replayKey = idem();
    const replayBody = baseLayerRequestBytes(request());
    expect((await fill(filler)).status).toBe(202);
    expect((await create(q, k, replayBody, replayKey)).status).toBe(202);
    expect((await fill(filler)).status).toBe(202);
    const over = await fill(refused);
    expectApiError(over, 429, 'ADMISSION_QUOTA_EXHAUSTED');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // An exact replay consumes nothing, even with the quota used up.
    expect((await create(q, k, replayBody, replayKey)).status).toBe(200);
    expect(count(q, 'admissions')).toBe(3);
  });
});

describe('listCustomLaunchesV3 and getCustomLaunchV3: credential visibility', () => {
  let root: { apiKey: string; partnerId: string; keyId: string };
  const subkeyBody = (name: string) =>
    JSON.stringify({
      displayName: name,
      scopes: ['custom-launch:create', 'custom-launch:read'],
      prepareRequestsPerHour: 100,
      readRequestsPerMinute: 100,
      expiresAt: '2030-12-31T23:59:59.000Z',
    });
  async function issue(name: string): Promise<{ apiKey: string; subkeyId: string; lineageId: string }> {
    const r = await call(`${s.url}/v1/partner/subkeys`, {
      method: 'POST',
      headers: auth(root.apiKey, { 'Idempotency-Key': idem('issue') }),
      body: subkeyBody(name),
    });
    expect(r.status, r.text).toBe(201);
    return r.json;
  }

  it('shows a wallet key its own, a partner root its partner, a subkey its lineage; outside is 404', async () => {
    root = s.partnerRoot({ chains: ['1'], wallet: otherWallet });
    const subkey = await issue('desk A');
    const sibling = await issue('desk B');
    const walletKey = v3Key(s, otherWallet);
    // A partner credential may name a launchWallet it is not bound to (it gets no wallet authority from it).
    const rootLaunch = await created(request(), root.apiKey);
    const subLaunch = await created(request(), subkey.apiKey);
    const siblingLaunch = await created(request(), sibling.apiKey);
    const walletLaunch = await created(request({ launchWallet: otherWallet }), walletKey);

    const sub = await get(subkey.apiKey, subLaunch);
    expect(sub.status, sub.text).toBe(200);
    expect(sub.json.partnerAttribution).toEqual({
      partnerId: root.partnerId,
      credentialKind: 'partner_subkey',
      subkeyId: subkey.subkeyId,
      lineageId: subkey.lineageId,
    });
    expect((await get(root.apiKey, rootLaunch)).json.partnerAttribution).toMatchObject({
      partnerId: root.partnerId,
      credentialKind: 'partner_root',
      subkeyId: null,
    });

    const ids = async (k: string) =>
      ((await list(k, '?limit=25')).json.launches as { launchId: string }[]).map((l) => l.launchId);
    expect(new Set(await ids(root.apiKey))).toEqual(new Set([rootLaunch, subLaunch, siblingLaunch]));
    expect(await ids(subkey.apiKey)).toEqual([subLaunch]);
    expect(await ids(sibling.apiKey)).toEqual([siblingLaunch]);
    expect(await ids(walletKey)).toEqual([walletLaunch]);

    const table: Array<[string, string, string, number]> = [
      ['root reads a subkey launch', root.apiKey, subLaunch, 200],
      ['subkey reads its own', subkey.apiKey, subLaunch, 200],
      ['sibling reads another lineage', sibling.apiKey, subLaunch, 404],
      ['subkey reads the root launch', subkey.apiKey, rootLaunch, 404],
      ['wallet key reads a partner launch', walletKey, rootLaunch, 404],
      ['root reads a wallet key launch', root.apiKey, walletLaunch, 404],
      ['another wallet key reads it', key, walletLaunch, 404],
    ];
    for (const [name, k, launchId, want] of table) {
      const r = await get(k, launchId);
      expect(r.status, name).toBe(want);
      if (want === 404) expect(r.json.error.code, name).toBe('NOT_FOUND');
    }
  });

  it('pages newest first with an opaque cursor bound to its list', async () => {
    const k = v3Key(s, account1.address);
    const launches = [
      await created(request({ launchWallet: account1.address }), k),
      await created(request({ launchWallet: account1.address }), k),
      await created(request({ launchWallet: account1.address }), k),
    ];
    const first = await list(k, '?limit=2');
    expect(first.status, first.text).toBe(200);
    expect(first.json.launches.map((l: { launchId: string }) => l.launchId)).toEqual([launches[2], launches[1]]);
    expect(first.json.nextCursor).toEqual(expect.any(String));
    const second = await list(k, `?limit=2&cursor=${first.json.nextCursor}`);
    expect(second.json.launches.map((l: { launchId: string }) => l.launchId)).toEqual([launches[0]]);
    expect(second.json.nextCursor).toBeNull();
    // A cursor of another credential's list is not one this list issued.
    expectApiError(await list(key, `?limit=2&cursor=${first.json.nextCursor}`), 400, 'INVALID_REQUEST');
  });
});

/** The typed data the lifecycle shows at awaiting_funding_authorization. */
function typedDataOf(
  launchId: string,
  body: CustomLaunchCreateRequestV3,
  window: { validAfter: bigint; validBefore: bigint },
): CustomLaunchFundingTypedDataV3 {
  const funding = body.funding as Extract<CustomLaunchCreateRequestV3['funding'], { mode: 'eip3009' }>;
  return receiveWithAuthorizationTypedData({
    domain: { name: 'Devnet USD', version: '2', verifyingContract: funding.token },
    from: body.launchWallet,
    to: deployment.contracts.launchRouter.address,
    value: funding.amount,
    ...window,
    nonce: fundingAuthorizationNonceOf(launchId, body.launchIntentHash),
  });
}

const sign = (account: PrivateKeyAccount, typedData: CustomLaunchFundingTypedDataV3) =>
  account.signTypedData({
    domain: { ...typedData.domain, verifyingContract: typedData.domain.verifyingContract as Address },
    types: { ReceiveWithAuthorization: typedData.types.ReceiveWithAuthorization },
    primaryType: 'ReceiveWithAuthorization',
    message: {
      from: typedData.message.from as Address,
      to: typedData.message.to as Address,
      value: BigInt(typedData.message.value),
      validAfter: BigInt(typedData.message.validAfter),
      validBefore: BigInt(typedData.message.validBefore),
      nonce: typedData.message.nonce as Hex,
    },
  });

/** Moves a launch straight to `to` (as the lifecycle would) and sets `fields`. */
function put(launchId: string, to: BaseLaunchStatus, fields: BaseLaunchFields = {}): void {
  const from = baseLaunchRow(s.db, launchId)?.status as BaseLaunchStatus;
  const at = new Date(nowMs).toISOString();
  expect(moveBaseLaunch(s.db, { launchId, from, to, worker: 'test', at }, fields)).toBe(true);
}

/** An eip3009 launch at awaiting_funding_authorization with its typed data (window: now - 60 s to now + 1 h). */
async function awaiting(
  options: { amount?: string; window?: { validAfter: bigint; validBefore: bigint } } = {},
): Promise<{ launchId: string; typedData: CustomLaunchFundingTypedDataV3 }> {
  const body = request({ funding: eip3009(options.amount) });
  const launchId = await created(body);
  const nowSeconds = BigInt(Math.floor(nowMs / 1000));
  const typedData = typedDataOf(launchId, body, options.window ?? { validAfter: 0n, validBefore: nowSeconds + 3600n });
  const stored = JSON.parse(baseLaunchRow(s.db, launchId)?.funding_authorization_json ?? 'null');
  put(launchId, 'awaiting_funding_authorization', {
    funding_authorization_json: JSON.stringify({ ...stored, typedData }),
  });
  return { launchId, typedData };
}

describe('submitFundingAuthorizationV3', () => {
  let dusd: Address;
  const reader = () => createPublicClient({ chain: chain1(deployment.rpcUrl), transport: http() });
  const balance0 = () =>
    reader().readContract({ address: dusd, abi: devnetUsdAbi, functionName: 'balanceOf', args: [account0.address] });
  beforeAll(() => {
    dusd = deployment.contracts.fundingToken.address;
  });

  it('answers 409 FUNDING_AUTHORIZATION_NOT_AWAITED on a native launch and on an eip3009 launch not yet waiting', async () => {
    const native = await created();
    expectApiError(await authorize(key, native, `0x${'11'.repeat(65)}`), 409, 'FUNDING_AUTHORIZATION_NOT_AWAITED');
    const early = await created(request({ funding: eip3009() }));
    expectApiError(await authorize(key, early, `0x${'11'.repeat(65)}`), 409, 'FUNDING_AUTHORIZATION_NOT_AWAITED');
  });

  it('answers 404 NOT_FOUND for a launch outside the credential', async () => {
    const { launchId, typedData } = await awaiting();
    const stranger = v3Key(s, otherWallet);
    expectApiError(await authorize(stranger, launchId, await sign(account0, typedData)), 404, 'NOT_FOUND');
    expect(baseLaunchRow(s.db, launchId)?.status).toBe('awaiting_funding_authorization');
  });

  it('verifies the signature, moves to funding_authorization_verified, wakes the job; the same signature again is 200 unchanged', async () => {
    const { launchId, typedData } = await awaiting();
    s.db
      .prepare(`UPDATE v3_lifecycle_jobs SET state = 'idle', next_attempt_ms = NULL WHERE launch_id = ?`)
      .run(launchId);
    const signature = await sign(account0, typedData);
    const r = await authorize(key, launchId, signature);
    expect(r.status, r.text).toBe(200);
    expect(schemaProblems('custom-launch-resource.v3.schema.json', r.json)).toEqual([]);
    expect(r.json.status).toBe('funding_authorization_verified');
    expect(r.json.fundingAuthorization).toMatchObject({
      typedData,
      signature,
      verifiedAt: new Date(nowMs).toISOString(),
    });
    expect(
      s.db.prepare('SELECT state, next_attempt_ms FROM v3_lifecycle_jobs WHERE launch_id = ?').get(launchId),
    ).toEqual({
      state: 'scheduled',
      next_attempt_ms: nowMs,
    });
    nowMs += 1000;
    const again = await authorize(key, launchId, signature);
    expect(again.status, again.text).toBe(200);
    expect(again.text).toBe(r.text);
    expect(baseLaunchTransitions(s.db, launchId).map((t) => t.to)).toEqual([
      'awaiting_funding_authorization',
      'funding_authorization_verified',
    ]);
    // Another signature once verified: nothing is awaited any more.
    const other = await sign(account1, typedData);
    expectApiError(await authorize(key, launchId, other), 409, 'FUNDING_AUTHORIZATION_NOT_AWAITED');
  });

  it('refuses a signer other than launchWallet, records lastRejection and keeps waiting; a good signature then passes', async () => {
    const { launchId, typedData } = await awaiting();
    const refused = await authorize(key, launchId, await sign(account1, typedData));
    expectApiError(refused, 409, 'FUNDING_AUTHORIZATION_SIGNER_MISMATCH');
    const waiting = await get(key, launchId);
    expect(waiting.json.status).toBe('awaiting_funding_authorization');
    expect(waiting.json.fundingAuthorization.lastRejection).toEqual({
      code: 'FUNDING_AUTHORIZATION_SIGNER_MISMATCH',
      at: new Date(nowMs).toISOString(),
    });
    expect(waiting.json.fundingAuthorization.signature).toBeNull();
    // Over other typed data (another amount), the signer recovers to someone else as well.
    const forged = await sign(account0, { ...typedData, message: { ...typedData.message, value: '1' } });
    expectApiError(await authorize(key, launchId, forged), 409, 'FUNDING_AUTHORIZATION_SIGNER_MISMATCH');
    const ok = await authorize(key, launchId, await sign(account0, typedData));
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.fundingAuthorization.lastRejection.code).toBe('FUNDING_AUTHORIZATION_SIGNER_MISMATCH');
  });

  it('opens the window strictly after validAfter and closes it at validBefore', async () => {
    const t = BigInt(Math.floor(nowMs / 1000));
    const table: Array<[string, { validAfter: bigint; validBefore: bigint }, string | null]> = [
      ['now equals validAfter', { validAfter: t, validBefore: t + 600n }, 'FUNDING_AUTHORIZATION_WINDOW_CLOSED'],
      ['now one second after validAfter', { validAfter: t - 1n, validBefore: t + 600n }, null],
      ['now one second before validBefore', { validAfter: 0n, validBefore: t + 1n }, null],
      ['now equals validBefore', { validAfter: 0n, validBefore: t }, 'FUNDING_AUTHORIZATION_WINDOW_CLOSED'],
    ];
    for (const [name, window, want] of table) {
      const { launchId, typedData } = await awaiting({ window });
      const r = await authorize(key, launchId, await sign(account0, typedData));
      if (want === null) expect(r.status, `${name}: ${r.text}`).toBe(200);
      else {
        expectApiError(r, 409, want);
        expect((await get(key, launchId)).json.fundingAuthorization.lastRejection.code, name).toBe(want);
      }
    }
  });

  it('refuses an amount above the balance of launchWallet and accepts exactly the balance', async () => {
    const balance = await balance0();
    const table: Array<[string, bigint, string | null]> = [
      ['balance + 1', balance + 1n, 'FUNDING_AUTHORIZATION_BALANCE_INSUFFICIENT'],
      ['the whole balance', balance, null],
    ];
    for (const [name, amount, want] of table) {
      const { launchId, typedData } = await awaiting({ amount: amount.toString() });
      const r = await authorize(key, launchId, await sign(account0, typedData));
      if (want === null) expect(r.status, `${name}: ${r.text}`).toBe(200);
      else expectApiError(r, 409, want);
    }
  });

  it('refuses a nonce the holder cancelled on chain 1 with FUNDING_AUTHORIZATION_NONCE_USED', async () => {
    const { launchId, typedData } = await awaiting();
    const nonce = typedData.message.nonce as Hex;
    const cancelSignature = await account0.signTypedData({
      domain: { name: 'Devnet USD', version: '2', chainId: 1, verifyingContract: dusd },
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: account0.address, nonce },
    });
    const { v, r, s: sigS } = parseSignature(cancelSignature);
    const wallet = createWalletClient({ account: account0, chain: chain1(deployment.rpcUrl), transport: http() });
    const hash = await wallet.writeContract({
      address: dusd,
      abi: devnetUsdAbi,
      functionName: 'cancelAuthorization',
      args: [account0.address, nonce, Number(v), r, sigS],
    });
    await reader().waitForTransactionReceipt({ hash });
    const refused = await authorize(key, launchId, await sign(account0, typedData));
    expectApiError(refused, 409, 'FUNDING_AUTHORIZATION_NONCE_USED');
    const fa = (await get(key, launchId)).json.fundingAuthorization as CustomLaunchFundingAuthorizationV3;
    expect(fa.lastRejection?.code).toBe('FUNDING_AUTHORIZATION_NONCE_USED');
  }, 30_000);
});

describe('cancelCustomLaunchV3', () => {
  const walletTransaction = {
    chainId: '1',
    from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    to: '0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9',
    valueWei: '1000000000000000000',
    data: '0x1234',
  };
  const chainEvidence = {
    transactionHash: `0x${'ab'.repeat(32)}`,
    blockNumber: '120',
    blockHash: `0x${'cd'.repeat(32)}`,
  };
  const publicOutput = { tokenAddress: otherWallet, hookAddress: otherWallet, poolId: `0x${'ef'.repeat(32)}` };
  const failure = { code: 'V3_BUILD_MISMATCH', message: 'The build differs.', remediation: 'Rebuild and submit anew.' };

  it.each<[BaseLaunchStatus, BaseLaunchFields]>([
    ['received', {}],
    ['validating', {}],
    ['pending_review', {}],
    ['action_required', {}],
    ['prepared', {}],
    ['simulating', {}],
    ['authorized', { wallet_transaction_json: JSON.stringify(walletTransaction) }],
  ])(
    'cancels a launch at %s: cancelled, its job done; cancelling again answers it unchanged',
    async (status, fields) => {
      const launchId = await created();
      if (status !== 'received') put(launchId, status, fields);
      const r = await cancel(key, launchId);
      expect(r.status, r.text).toBe(200);
      expect(r.json.status).toBe('cancelled');
      expect(r.json.failure).toBeNull();
      expect(s.db.prepare('SELECT state FROM v3_lifecycle_jobs WHERE launch_id = ?').get(launchId)).toEqual({
        state: 'done',
      });
      nowMs += 1000;
      const again = await cancel(key, launchId);
      expect(again.status, again.text).toBe(200);
      expect(again.text).toBe(r.text);
    },
  );

  it('cancels an eip3009 launch awaiting or past its funding authorization', async () => {
    for (const verified of [false, true]) {
      const { launchId, typedData } = await awaiting();
      if (verified) expect((await authorize(key, launchId, await sign(account0, typedData))).status).toBe(200);
      const r = await cancel(key, launchId);
      expect(r.status, r.text).toBe(200);
      expect(r.json.status).toBe('cancelled');
    }
  });

  it.each<[BaseLaunchStatus, BaseLaunchFields]>([
    [
      'submitted',
      {
        wallet_transaction_json: JSON.stringify(walletTransaction),
        chain_evidence_json: JSON.stringify(chainEvidence),
      },
    ],
    [
      'finalized',
      {
        wallet_transaction_json: JSON.stringify(walletTransaction),
        chain_evidence_json: JSON.stringify(chainEvidence),
        public_output_json: JSON.stringify(publicOutput),
      },
    ],
    ['failed', { failure_json: JSON.stringify(failure) }],
  ])('refuses a launch at %s with 409 LAUNCH_NOT_CANCELLABLE and leaves it', async (status, fields) => {
    const launchId = await created();
    put(launchId, status, fields);
    expectApiError(await cancel(key, launchId), 409, 'LAUNCH_NOT_CANCELLABLE');
    const r = await get(key, launchId);
    expect(r.status, r.text).toBe(200);
    expect(r.json.status).toBe(status);
  });

  it('answers 404 NOT_FOUND for a launch outside the credential', async () => {
    const launchId = await created();
    expectApiError(await cancel(v3Key(s, otherWallet), launchId), 404, 'NOT_FOUND');
    expect(baseLaunchRow(s.db, launchId)?.status).toBe('received');
  });
});
