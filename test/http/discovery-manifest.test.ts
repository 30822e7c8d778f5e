import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { call } from '../support/http.ts';
import { startServer, type TestServer } from '../support/server.ts';

const path = '/.well-known/platform-custom-launch-discovery.json';

describe('getDiscoveryManifest', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('serves a public manifest naming the origin it listens on, unauthenticated', async () => {
    const r = await call(server.url + path);
    expect(r.status).toBe(200);
    expect(r.json.schemaVersion).toBe('platform.custom-launch-discovery-manifest.v1');
    expect(r.json.serviceOrigin).toBe(server.url);
  });

  // This server runs no chain gates (no chain deployment is bound), so no launch could leave validating: the
  // manifest keeps writes closed, whatever DISCOVERY_* says, and names why.
  it('reports publicWrites and releaseReady false with CHAIN_NOT_CONFIGURED on a server without chain gates', async () => {
    const r = await call(server.url + path);
    const flags = {
      publicAuthorization: true,
      publicWrites: false,
      releaseReady: false,
      state: 'public',
      reasons: ['CHAIN_NOT_CONFIGURED'],
    };
    expect(r.json.versions.v4).toEqual({ apiVersion: 4, profile: '4.1.0', clientRelease: '4.1.1', ...flags });
    expect(r.json.chains['4663']).toEqual({ chainId: '4663', caip2: 'eip155:4663', ...flags });
  });

  it.each([
    ['verified', { publicWrites: true, releaseReady: true, reasons: [] }],
    ['tampered', { publicWrites: false, releaseReady: false, reasons: ['DEPLOYMENT_EVIDENCE_TAMPERED'] }],
    ['verifying', { publicWrites: false, releaseReady: false, reasons: ['DEPLOYMENT_EVIDENCE_UNVERIFIED'] }],
    ['unreachable', { publicWrites: false, releaseReady: false, reasons: ['DEPLOYMENT_EVIDENCE_UNVERIFIED'] }],
  ] as const)('on a server bound to a chain deployment whose evidence is %s, reports %o', async (state, want) => {
    const bound = await startServer({}, undefined, undefined, () => state);
    try {
      const r = await call(bound.url + path);
      expect(r.status).toBe(200);
      for (const entry of [r.json.versions.v4, r.json.chains['4663']]) {
        expect(entry).toMatchObject({ publicAuthorization: true, state: 'public', ...want });
      }
      const capabilities = await call(`${bound.url}/v4/chains/4663/capabilities`);
      expect(capabilities.json.writes).toEqual({ enabled: want.publicWrites, reasons: want.reasons });
    } finally {
      await bound.close();
    }
  });

  it('reports the configured flags, state and origin', async () => {
    const config = loadConfig({
      CI: 'true',
      PUBLIC_ORIGIN: 'https://launch.example',
      DISCOVERY_PUBLIC_WRITES: 'false',
      DISCOVERY_STATE: 'pending-public-discovery-promotion',
    });
    // Bound to a verified chain deployment, so only the operator's flags and state speak.
    const halted = await startServer({ discovery: config.discovery }, undefined, undefined, () => 'verified');
    try {
      const r = await call(halted.url + path);
      expect(r.status).toBe(200);
      expect(r.json.serviceOrigin).toBe('https://launch.example');
      for (const entry of [r.json.versions.v4, r.json.chains['4663']]) {
        expect(entry).toEqual(
          expect.objectContaining({
            publicAuthorization: true,
            publicWrites: false,
            releaseReady: true,
            state: 'pending-public-discovery-promotion',
            reasons: [],
          }),
        );
      }
    } finally {
      await halted.close();
    }
  });
});

describe('discovery configuration', () => {
  it.each([
    [
      'a flag that is not true or false',
      { DISCOVERY_RELEASE_READY: 'yes' },
      /DISCOVERY_RELEASE_READY must be true or false/,
    ],
    ['an unknown state', { DISCOVERY_STATE: 'live' }, /DISCOVERY_STATE must be one of/],
    ['an origin with a path', { PUBLIC_ORIGIN: 'https://launch.example/api' }, /PUBLIC_ORIGIN must be an origin/],
  ])('refuses %s', (_name, env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each([
    [
      'defaults',
      {},
      { serviceOrigin: null, publicAuthorization: true, publicWrites: true, releaseReady: true, state: 'public' },
    ],
    [
      'every variable',
      {
        PUBLIC_ORIGIN: 'http://[::1]:8787',
        DISCOVERY_PUBLIC_AUTHORIZATION: 'false',
        DISCOVERY_PUBLIC_WRITES: 'false',
        DISCOVERY_RELEASE_READY: 'false',
        DISCOVERY_STATE: 'withdrawn',
      },
      {
        serviceOrigin: 'http://[::1]:8787',
        publicAuthorization: false,
        publicWrites: false,
        releaseReady: false,
        state: 'withdrawn',
      },
    ],
  ])('reads %s', (_name, env, want) => {
    expect(loadConfig(env).discovery).toEqual(want);
  });
});
