import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MultiRoleCustomLaunchCreateRequestV2 } from '../../generated/types/service.ts';
import { pinnedCompilerVersion } from '../../src/solidity/compile-contracts.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import { baseLayerImage, tinyPng } from '../support/base-layer-request.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { multiRoleRequest, multiRoleRequestBytes, sealMultiRoleRequest } from '../support/multi-role-request.ts';
import { exampleWallet, startServer, type TestServer } from '../support/server.ts';

/**
 * The shared MultiRole V2 lane's operations over real HTTP and a fresh SQLite file, bound to the devnet's lane
 * deployment document with no chain-4663 provider: spec/openapi/paths/multi-role-capabilities.yaml,
 * multi-role-guide.yaml, multi-role-client.yaml, multi-role-preflight.yaml, multi-role-custom-launches.yaml,
 * multi-role-custom-launch.yaml and multi-role-finalized.yaml. No lifecycle worker runs, so a launch stays received.
 */

const deploymentPath = new URL('../fixtures/multi-role-deployment.json', import.meta.url).pathname;
const otherWallet = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const lane = '/v4/chains/4663/multi-role-custom-launches';

let s: TestServer;
let key: string;
const extra: TestServer[] = [];

beforeAll(async () => {
  s = await startServer({ multiRoleDeploymentPath: deploymentPath });
  key = s.key();
}, 60_000);

afterAll(async () => {
  for (const x of extra) await x.close();
  await s?.close();
});

async function extraServer(overrides: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const x = await startServer(overrides);
  extra.push(x);
  return x;
}

let seq = 0;
const idem = (tag = 'mr') => `${tag}-${Date.now()}-${++seq}`.padEnd(16, 'x');
const bytesOf = (body: MultiRoleCustomLaunchCreateRequestV2 | Buffer) =>
  Buffer.isBuffer(body) ? body : multiRoleRequestBytes(body);

const create = (k: string, body: MultiRoleCustomLaunchCreateRequestV2 | Buffer, key2 = idem(), server = s) =>
  call(`${server.url}${lane}`, { method: 'POST', headers: auth(k, { 'Idempotency-Key': key2 }), body: bytesOf(body) });
const preflight = (k: string, body: MultiRoleCustomLaunchCreateRequestV2 | Buffer, server = s) =>
  call(`${server.url}${lane}/preflight`, { method: 'POST', headers: auth(k), body: bytesOf(body) });
const get = (k: string, launchId: string) => call(`${s.url}${lane}/${launchId}`, { headers: auth(k) });
const list = (k: string, query = '') => call(`${s.url}${lane}${query}`, { headers: auth(k) });

function expectApiError(r: Reply, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.json.error.code).toBe(code);
}

const count = (server: TestServer, table: string) =>
  (server.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const counts = (server: TestServer) => ({
  launches: count(server, 'multi_role_launches'),
  jobs: count(server, 'multi_role_lifecycle_jobs'),
  transitions: count(server, 'multi_role_launch_transitions'),
  admissions: count(server, 'admissions'),
  idempotency: count(server, 'idempotency_records'),
});

async function created(body = multiRoleRequest(), k = key): Promise<string> {
  const r = await create(k, body);
  expect(r.status, r.text).toBe(202);
  return r.json.launchId as string;
}

/** The classic 1×1 GIF89a, and the same GIF with its one frame twice (animated). */
const tinyGif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
const animatedGif = Buffer.concat([tinyGif.subarray(0, 19), tinyGif.subarray(19, -1), tinyGif.subarray(19)]);
const jpeg = readFileSync(new URL('../fixtures/images/baseline-420.jpg', import.meta.url));

describe('getMultiRoleCapabilitiesV2, getMultiRoleGuide, getMultiRoleClient', () => {
  it('publishes a ready lane with its contracts, the pinned compiler and the digest of the served client', async () => {
    const r = await call(`${s.url}${lane}/capabilities`);
    expect(r.status, r.text).toBe(200);
    expect(schemaProblems('multi-role-capabilities.v2.schema.json', r.json)).toEqual([]);
    const deployment = JSON.parse(readFileSync(deploymentPath, 'utf8'));
    expect(r.json).toMatchObject({
      readiness: { status: 'ready', publicWrites: true, reasons: [] },
      profiles: [{ revision: 1, acceptsNewSubmissions: true }],
      compilerVersion: pinnedCompilerVersion(),
      referenceClient: { release: '2.0.0', path: `${lane}/client.mjs` },
      deployment: {
        launchRouter: deployment.contracts.launchRouter.address,
        graphFactory: deployment.contracts.graphFactory.address,
        poolManager: deployment.contracts.poolManager.address,
        permitAuthority: deployment.contracts.permitAuthority.address,
      },
    });
    const client = await fetch(`${s.url}${lane}/client.mjs`);
    expect(client.status).toBe(200);
    expect(client.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const bytes = Buffer.from(await client.arrayBuffer());
    expect(r.json.referenceClient.sha256).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
    expect(bytes.equals(readFileSync(new URL('../../src/public/multi-role/client.mjs', import.meta.url)))).toBe(true);
  });

  it('serves the guide as Markdown', async () => {
    const guide = await fetch(`${s.url}${lane}/guide.md`);
    expect(guide.status).toBe(200);
    expect(guide.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await guide.text();
    expect(text).toBe(readFileSync(new URL('../../src/public/multi-role/guide.md', import.meta.url), 'utf8'));
  });

  it('without a lane deployment: unavailable, deployment null, preflight and create 503, reads still work', async () => {
    const bare = await extraServer({});
    const k = bare.key();
    const caps = await call(`${bare.url}${lane}/capabilities`);
    expect(caps.status).toBe(200);
    expect(schemaProblems('multi-role-capabilities.v2.schema.json', caps.json)).toEqual([]);
    expect(caps.json.readiness).toEqual({
      status: 'unavailable',
      publicWrites: false,
      reasons: ['deployment_not_configured'],
    });
    expect(caps.json.deployment).toBeNull();
    const before = counts(bare);
    expectApiError(await preflight(k, multiRoleRequest(), bare), 503, 'MULTI_ROLE_LANE_UNAVAILABLE');
    expectApiError(await create(k, multiRoleRequest(), idem(), bare), 503, 'MULTI_ROLE_LANE_UNAVAILABLE');
    expect(counts(bare)).toEqual(before);
    const page = await call(`${bare.url}${lane}`, { headers: auth(k) });
    expect(page.status, page.text).toBe(200);
    expect(page.json).toEqual({ launches: [], nextCursor: null });
  });
});

describe('createMultiRoleCustomLaunch', () => {
  it('stores a new request in received with a scheduled job and answers 202 with a valid resource', async () => {
    const before = counts(s);
    const body = multiRoleRequest();
    const r = await create(key, body);
    expect(r.status, r.text).toBe(202);
    expect(schemaProblems('multi-role-resource.v2.schema.json', r.json)).toEqual([]);
    expect(r.json).toMatchObject({
      status: 'received',
      chainId: '4663',
      launchWallet: exampleWallet,
      partnerAttribution: null,
      findingCodes: [],
      missingVerificationRequirements: [],
      walletTransaction: null,
      permitExpiresAt: null,
      publicOutput: null,
      chainEvidence: null,
      failure: null,
    });
    expect(counts(s)).toEqual({
      ...before,
      launches: before.launches + 1,
      jobs: before.jobs + 1,
      admissions: before.admissions + 1,
      idempotency: before.idempotency + 1,
    });
    const row = s.db
      .prepare('SELECT request_bytes FROM multi_role_launches WHERE launch_id = ?')
      .get(r.json.launchId) as {
      request_bytes: Buffer;
    };
    expect(row.request_bytes.equals(multiRoleRequestBytes(body))).toBe(true);
    const job = s.db.prepare('SELECT state FROM multi_role_lifecycle_jobs WHERE launch_id = ?').get(r.json.launchId);
    expect(job).toEqual({ state: 'scheduled' });
  });

  it('replays the same key and bytes as 200 with the first answer; other bytes under the key are 409', async () => {
    const k = idem('replay');
    const body = multiRoleRequest();
    const first = await create(key, body, k);
    expect(first.status, first.text).toBe(202);
    const before = counts(s);
    const again = await create(key, body, k);
    expect(again.status, again.text).toBe(200);
    expect(again.text).toBe(first.text);
    expectApiError(await create(key, multiRoleRequest(), k), 409, 'IDEMPOTENCY_CONFLICT');
    expect(counts(s)).toEqual(before);
  });

  it('counts new creates against the global admission quota (2 per hour here); replays consume nothing', async () => {
    const tight = await extraServer({ multiRoleDeploymentPath: deploymentPath, admissionPerHour: 2 });
    const k = tight.key();
    const keys = [idem('q1'), idem('q2')];
    const bodies = [multiRoleRequest(), multiRoleRequest()];
    for (const i of [0, 1]) {
      const r = await create(k, bodies[i] as MultiRoleCustomLaunchCreateRequestV2, keys[i], tight);
      expect(r.status, r.text).toBe(202);
    }
    expectApiError(await create(k, multiRoleRequest(), idem('q3'), tight), 429, 'ADMISSION_QUOTA_EXHAUSTED');
    const replay = await create(k, bodies[0] as MultiRoleCustomLaunchCreateRequestV2, keys[0], tight);
    expect(replay.status, replay.text).toBe(200);
    expect(count(tight, 'multi_role_launches')).toBe(2);
  });
});

describe('request rules, on both sides of each (create; nothing persisted on a refusal)', () => {
  const withImage = (bytes: Buffer, mediaType: 'image/png' | 'image/gif', patch: object = {}) =>
    multiRoleRequest((r) => {
      r.projectMetadata.image = { ...baseLayerImage(bytes, mediaType), ...patch } as typeof r.projectMetadata.image;
    });
  const plusOne = (value: string) => String(BigInt(value) + 1n);
  const rows: Array<[string, () => MultiRoleCustomLaunchCreateRequestV2, number, string | null]> = [
    ['distinct targetIds', () => multiRoleRequest(), 202, null],
    [
      'a repeated targetId',
      () =>
        multiRoleRequest((r) => {
          (r.graph.targets[1] as { targetId: string }).targetId = r.graph.targets[0]?.targetId as string;
        }),
      400,
      'INVALID_REQUEST',
    ],
    [
      'a contractName whose path is no source',
      () =>
        multiRoleRequest((r) => {
          const t = r.graph.targets[1] as { contractName: string };
          t.contractName = `contracts/Missing.sol:${t.contractName.split(':')[1]}`;
        }),
      400,
      'INVALID_REQUEST',
    ],
    [
      'another compiler than the pinned one',
      () => multiRoleRequest((r) => (r.source.compilerVersion = '0.8.26+commit.8a97fa7a')),
      400,
      'INVALID_REQUEST',
    ],
    [
      'valueWei one above liquidityWei + reserveWei',
      () => multiRoleRequest((r) => (r.funding.valueWei = plusOne(r.funding.valueWei))),
      400,
      'INVALID_REQUEST',
    ],
    [
      'valueWei equal to liquidityWei + reserveWei with a reserve',
      () =>
        multiRoleRequest((r) => {
          r.funding.reserveWei = '7';
          r.funding.valueWei = String(BigInt(r.funding.liquidityWei) + 7n);
        }),
      202,
      null,
    ],
    [
      'tokenSupply equal to totalSupply',
      () => multiRoleRequest((r) => (r.liquidity.tokenSupply = r.economics.totalSupply)),
      202,
      null,
    ],
    [
      'tokenSupply one above totalSupply',
      () => multiRoleRequest((r) => (r.liquidity.tokenSupply = plusOne(r.economics.totalSupply))),
      400,
      'INVALID_REQUEST',
    ],
    ['a PNG image', () => withImage(tinyPng, 'image/png'), 202, null],
    ['a single-frame GIF image', () => withImage(tinyGif, 'image/gif'), 202, null],
    ['an animated GIF', () => withImage(animatedGif, 'image/gif'), 400, 'INVALID_REQUEST'],
    ['JPEG bytes declared PNG', () => withImage(jpeg, 'image/png'), 400, 'INVALID_REQUEST'],
    [
      'an image sha256 of other bytes',
      () => withImage(tinyPng, 'image/png', { sha256: `sha256:${'0'.repeat(64)}` }),
      400,
      'INVALID_REQUEST',
    ],
    [
      'an image byteLength one off',
      () => withImage(tinyPng, 'image/png', { byteLength: tinyPng.length + 1 }),
      400,
      'INVALID_REQUEST',
    ],
    [
      'a projectMetadataHash of other metadata',
      () => {
        const r = multiRoleRequest();
        r.projectMetadata.name = `${r.projectMetadata.name} 2`;
        return { ...r, launchIntentHash: sealMultiRoleRequest({ ...r }).launchIntentHash };
      },
      400,
      'INVALID_REQUEST',
    ],
    [
      'a launchIntentHash of another request',
      () => ({ ...multiRoleRequest(), launchIntentHash: `sha256:${'1'.repeat(64)}` }),
      400,
      'INVALID_REQUEST',
    ],
    ['profile revision 1 (active)', () => multiRoleRequest((r) => (r.profile.revision = 1)), 202, null],
    [
      'profile revision 2 (not active)',
      () => multiRoleRequest((r) => (r.profile.revision = 2)),
      409,
      'PROFILE_NOT_ACTIVE',
    ],
  ];
  it.each(rows)('%s', async (_name, body, status, code) => {
    const before = counts(s);
    const r = await create(key, body());
    expect(r.status, r.text).toBe(status);
    if (code) {
      expect(r.json.error.code).toBe(code);
      expect(counts(s)).toEqual(before);
    }
  });

  it('lists every broken rule in one 400', async () => {
    const r = await create(
      key,
      multiRoleRequest((req) => {
        req.funding.valueWei = plusOne(req.funding.valueWei);
        req.liquidity.tokenSupply = plusOne(req.economics.totalSupply);
      }),
    );
    expectApiError(r, 400, 'INVALID_REQUEST');
    const locations = (r.json.error.issues as Array<{ location: string }>).map((i) => i.location);
    expect(locations).toEqual(expect.arrayContaining(['/funding/valueWei', '/liquidity/tokenSupply']));
  });

  it('403 WALLET_MISMATCH for a wallet key of another wallet, on preflight and create', async () => {
    const foreign = s.key({ wallet: otherWallet });
    const before = counts(s);
    expectApiError(await create(foreign, multiRoleRequest()), 403, 'WALLET_MISMATCH');
    expectApiError(await preflight(foreign, multiRoleRequest()), 403, 'WALLET_MISMATCH');
    expect(counts(s)).toEqual(before);
  });

  const limit = 8_388_608;
  /** The request's JSON padded with trailing spaces to exactly `size` bytes (the same request once parsed). */
  const padded = (size: number) => {
    const bytes = multiRoleRequestBytes(multiRoleRequest());
    return Buffer.concat([bytes, Buffer.alloc(size - bytes.length, 0x20)]);
  };
  it.each([
    ['exactly 8,388,608 bytes', limit, 202],
    ['8,388,609 bytes', limit + 1, 413],
  ])('a request of %s', async (_name, size, status) => {
    const r = await create(key, padded(size));
    expect(r.status, r.text).toBe(status);
    if (status === 413) expect(r.json.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('409 CHAIN_MISMATCH when the body names another chain than the path', async () => {
    const body = { ...multiRoleRequest(), chainId: '1' };
    expectApiError(await create(key, Buffer.from(JSON.stringify(body))), 409, 'CHAIN_MISMATCH');
  });
});

describe('authentication: scopes and the chain-4663 grant', () => {
  it.each([
    ['a read-only key cannot preflight', ['custom-launch:read'], ['4663'], 'preflight', 403, 'INSUFFICIENT_SCOPE'],
    ['a read-only key cannot create', ['custom-launch:read'], ['4663'], 'create', 403, 'INSUFFICIENT_SCOPE'],
    ['a read-only key lists', ['custom-launch:read'], ['4663'], 'list', 200, null],
    ['a create-only key cannot list', ['custom-launch:create'], ['4663'], 'list', 403, 'INSUFFICIENT_SCOPE'],
    [
      'a key without the 4663 grant cannot create',
      ['custom-launch:create', 'custom-launch:read'],
      ['1'],
      'create',
      403,
      'CHAIN_NOT_ALLOWED',
    ],
    [
      'a key without the 4663 grant cannot list',
      ['custom-launch:create', 'custom-launch:read'],
      ['1'],
      'list',
      403,
      'CHAIN_NOT_ALLOWED',
    ],
  ] as const)('%s', async (_name, scopes, chains, op, status, code) => {
    const k = s.key({ scopes: [...scopes], chains: [...chains] });
    const r =
      op === 'preflight'
        ? await preflight(k, multiRoleRequest())
        : op === 'create'
          ? await create(k, multiRoleRequest())
          : await list(k);
    expect(r.status, r.text).toBe(status);
    if (code) expect(r.json.error.code).toBe(code);
  });

  it('401 without a key', async () => {
    const r = await call(`${s.url}${lane}`, { headers: { 'Content-Type': 'application/json' } });
    expectApiError(r, 401, 'UNAUTHENTICATED');
  });
});

describe('preflightMultiRoleCustomLaunch without a chain provider', () => {
  it('builds and reviews the packed example: supported with the pending chain checks; persists nothing', async () => {
    const before = counts(s);
    const body = multiRoleRequest();
    const r = await preflight(key, body);
    expect(r.status, r.text).toBe(200);
    expect(schemaProblems('multi-role-preflight.v2.schema.json', r.json)).toEqual([]);
    expect(r.json.disposition).toBe('supported_with_warnings');
    expect(r.json.findings).toContainEqual({
      code: 'MULTI_ROLE_CHAIN_CHECKS_PENDING',
      severity: 'warning',
      missingVerificationRequirements: [],
    });
    expect(r.json.findings.filter((f: { severity: string }) => f.severity !== 'warning')).toEqual([]);
    expect(counts(s)).toEqual(before);
    const createdResource = await create(key, body);
    expect(createdResource.json.requestHash).toBe(r.json.requestHash);
  }, 120_000);
});

describe('preflightMultiRoleCustomLaunch with a chain-4663 provider that does not answer', () => {
  it('is a retryable 503 UNAVAILABLE, never a verdict; nothing persisted', async () => {
    const dead = 'http://127.0.0.1:9';
    const x = await extraServer({ multiRoleDeploymentPath: deploymentPath, chain4663RpcUrls: [dead, dead] });
    const before = counts(x);
    const r = await preflight(x.key(), multiRoleRequest(), x);
    expectApiError(r, 503, 'UNAVAILABLE');
    expect(r.json.error.retryable).toBe(true);
    expect(counts(x)).toEqual(before);
  }, 120_000);
});

describe("a partner's prepareRequestsPerHour", () => {
  it('counts preflight and create: 2 allowed, the third 429 RATE_LIMITED', async () => {
    const root = s.partnerRoot({ chains: ['4663'], budgets: { prepareRequestsPerHour: 2 } });
    const body = multiRoleRequest();
    expect((await preflight(root.apiKey, body)).status).toBe(200);
    expect((await create(root.apiKey, body)).status).toBe(202);
    expectApiError(await create(root.apiKey, multiRoleRequest()), 429, 'RATE_LIMITED');
  }, 120_000);
});

describe('preflightMultiRoleCustomLaunch: the build, on both sides', () => {
  const initializer = (r: MultiRoleCustomLaunchCreateRequestV2) =>
    r.graph.targets.find((t) => t.role === 'initializer') as { contractName: string; initCodeHash: string };
  it.each([
    ['the example builds as declared', () => multiRoleRequest(), null],
    [
      'an initializer initCodeHash the build does not reproduce',
      () => multiRoleRequest((r) => (initializer(r).initCodeHash = `0x${'ab'.repeat(32)}`)),
      'MULTI_ROLE_INIT_CODE_MISMATCH',
    ],
    [
      'a source that does not compile',
      () =>
        multiRoleRequest((r) => {
          const source = r.source.sources['contracts/TidewaterInitializer.sol'] as { content: string };
          source.content = `${source.content}\ncontract Broken {`;
        }),
      'MULTI_ROLE_BUILD_FAILED',
    ],
    [
      'a contractName its source does not define',
      () => multiRoleRequest((r) => (initializer(r).contractName = 'contracts/TidewaterInitializer.sol:Missing')),
      'MULTI_ROLE_BUILD_FAILED',
    ],
  ] as const)(
    '%s',
    async (_name, body, code) => {
      const before = counts(s);
      const r = await preflight(key, body());
      expect(r.status, r.text).toBe(200);
      expect(schemaProblems('multi-role-preflight.v2.schema.json', r.json)).toEqual([]);
      const blocking = r.json.findings.filter((f: { severity: string }) => f.severity === 'blocking');
      if (code === null) {
        expect(blocking).toEqual([]);
      } else {
        expect(r.json.disposition).toBe('unsupported');
        expect(blocking).toEqual([{ code, severity: 'blocking', missingVerificationRequirements: [] }]);
      }
      expect(counts(s)).toEqual(before);
    },
    120_000,
  );
});

describe('listMultiRoleCustomLaunches and getMultiRoleCustomLaunch: credential visibility', () => {
  let root: { apiKey: string; partnerId: string; keyId: string };
  async function issue(name: string): Promise<{ apiKey: string; subkeyId: string; lineageId: string }> {
    const r = await call(`${s.url}/v1/partner/subkeys`, {
      method: 'POST',
      headers: auth(root.apiKey, { 'Idempotency-Key': idem('issue') }),
      body: JSON.stringify({
        displayName: name,
        scopes: ['custom-launch:create', 'custom-launch:read'],
        prepareRequestsPerHour: 100,
        readRequestsPerMinute: 100,
        expiresAt: '2030-12-31T23:59:59.000Z',
      }),
    });
    expect(r.status, r.text).toBe(201);
    return r.json;
  }

  it('shows a wallet key its own, a partner root its partner, a subkey its lineage; outside is 404', async () => {
    root = s.partnerRoot({ chains: ['4663'], wallet: otherWallet });
    const subkey = await issue('desk A');
    const sibling = await issue('desk B');
    const subLaunch = await created(multiRoleRequest(), subkey.apiKey);
    const rootLaunch = await created(multiRoleRequest(), root.apiKey);
    const walletKey = s.key();
    const walletLaunch = await created(multiRoleRequest(), walletKey);
    const sub = await get(subkey.apiKey, subLaunch);
    expect(sub.status, sub.text).toBe(200);
    expect(schemaProblems('multi-role-resource.v2.schema.json', sub.json)).toEqual([]);
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
    const ids = async (k: string) => (await list(k)).json.launches.map((l: { launchId: string }) => l.launchId);
    expect(await ids(subkey.apiKey)).toEqual([subLaunch]);
    expect(await ids(sibling.apiKey)).toEqual([]);
    expect(await ids(root.apiKey)).toEqual([rootLaunch, subLaunch]);
    expect(await ids(walletKey)).toContain(walletLaunch);
    for (const [_name, k, launchId, status] of [
      ['root reads a subkey launch', root.apiKey, subLaunch, 200],
      ['subkey reads its own', subkey.apiKey, subLaunch, 200],
      ['sibling reads another lineage', sibling.apiKey, subLaunch, 404],
      ['subkey reads the root launch', subkey.apiKey, rootLaunch, 404],
      ['wallet key reads a partner launch', walletKey, rootLaunch, 404],
      ['partner root reads a wallet launch', root.apiKey, walletLaunch, 404],
    ] as const) {
      expect((await get(k, launchId)).status, _name).toBe(status);
    }
  });

  it('pages newest first with an opaque cursor (limit 1 and 2)', async () => {
    const k = key;
    const all = (await list(k, '?limit=25')).json.launches.map((l: { launchId: string }) => l.launchId);
    expect(all.length).toBeGreaterThan(2);
    const first = await list(k, '?limit=1');
    expect(first.json.launches.map((l: { launchId: string }) => l.launchId)).toEqual(all.slice(0, 1));
    const second = await list(k, `?limit=2&cursor=${encodeURIComponent(first.json.nextCursor)}`);
    expect(second.json.launches.map((l: { launchId: string }) => l.launchId)).toEqual(all.slice(1, 3));
    expectApiError(await list(k, '?limit=26'), 400, 'INVALID_REQUEST');
  });

  it('a launch that does not exist is 404', async () => {
    expectApiError(await get(key, '00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
  });
});

describe('listMultiRoleFinalizedCustomLaunches', () => {
  it('serves the lane feed item shape (launchWallet and poolId) without authentication', async () => {
    const item = {
      launchId: '11111111-1111-4111-8111-111111111111',
      chainId: '4663',
      launchWallet: exampleWallet,
      tokenHookAddress: '0x00000000000000000000000000000000000000c0',
      poolId: `0x${'ab'.repeat(32)}`,
      transactionHash: `0x${'cd'.repeat(32)}`,
      blockNumber: '42',
      finalizedAt: '2026-11-25T00:00:00.000Z',
    };
    s.db
      .prepare(
        'INSERT INTO multi_role_finalized_feed (chain_id, launch_id, item_json, finalized_at) VALUES (?, ?, ?, ?)',
      )
      .run('4663', item.launchId, JSON.stringify(item), item.finalizedAt);
    const r = await call(`${s.url}${lane}/finalized`);
    expect(r.status, r.text).toBe(200);
    expect(schemaProblems('multi-role-finalized-list.v2.schema.json', r.json)).toEqual([]);
    expect(r.json).toEqual({ launches: [item], nextCursor: null });
  });
});
