import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DiscoveryStop,
  discoveryPath,
  discoveryStopReason,
  requireDiscovery,
} from '../../src/client/launches/discovery.ts';
import { loadSchemaRegistry, schemaIdBase } from '../../src/spec/schema-registry.ts';

// getDiscoveryManifest (spec/openapi/paths/discovery-manifest.yaml): a V4 client goes on only when versions.v4 and
// chains.4663 both report the three flags true and the state public, the document matches its schema, and serviceOrigin
// is the origin the client was configured with. Anything else stops it before any authenticated request.

const origin = 'https://launch.example';
const flags = { publicAuthorization: true, publicWrites: true, releaseReady: true, state: 'public', reasons: [] };

function validManifest(serviceOrigin = origin): any {
  return {
    schemaVersion: 'platform.custom-launch-discovery-manifest.v1',
    generatedAt: '2026-11-22T10:00:00.000Z',
    serviceOrigin,
    versions: { v4: { apiVersion: 4, profile: '4.1.0', clientRelease: '4.1.1', ...flags } },
    chains: { '4663': { chainId: '4663', caip2: 'eip155:4663', ...flags } },
  };
}

/** A copy of the valid manifest with one edit made to it. */
function edited(edit: (m: any) => void): any {
  const m = validManifest();
  edit(m);
  return m;
}

const entryOf = {
  'versions.v4': (m: any) => m.versions.v4,
  'chains.4663': (m: any) => m.chains['4663'],
} as const;
const entryNames = Object.keys(entryOf) as Array<keyof typeof entryOf>;
const flagNames = ['publicAuthorization', 'publicWrites', 'releaseReady'] as const;

type Row = [string, unknown, RegExp];
const stops: Row[] = [
  ...entryNames.flatMap((entry): Row[] =>
    flagNames.flatMap((flag): Row[] => [
      [
        `${entry} ${flag} false`,
        edited((m) => {
          entryOf[entry](m)[flag] = false;
        }),
        new RegExp(`${entry}.*${flag}: false`),
      ],
      [
        `${entry} without ${flag}`,
        edited((m) => {
          delete entryOf[entry](m)[flag];
        }),
        new RegExp(`${entry} entry is incomplete: no ${flag}`),
      ],
      // A truthy non-boolean is not "true"; the schema says boolean.
      [
        `${entry} ${flag} "true" (a string)`,
        edited((m) => {
          entryOf[entry](m)[flag] = 'true';
        }),
        new RegExp(`${entry}.*${flag}`),
      ],
    ]),
  ),
  ...entryNames.flatMap((entry): Row[] =>
    ['pending-public-discovery-promotion', 'paused', 'withdrawn'].map(
      (state): Row => [
        `${entry} state ${state}`,
        edited((m) => {
          entryOf[entry](m).state = state;
        }),
        new RegExp(`${entry} entry reports.*${state}`),
      ],
    ),
  ),
  ...entryNames.map(
    (entry): Row => [
      `${entry} without state`,
      edited((m) => {
        delete entryOf[entry](m).state;
      }),
      new RegExp(`${entry} entry reports state undefined`),
    ],
  ),
  ['no versions.v4 entry', edited((m) => delete m.versions.v4), /no versions\.v4 entry/],
  ['no versions object', edited((m) => delete m.versions), /no versions\.v4 entry/],
  ['no chains.4663 entry', edited((m) => delete m.chains['4663']), /no chains\.4663 entry/],
  ['a chains entry for another chain only', edited((m) => (m.chains = { '1': m.chains['4663'] })), /no chains\.4663/],
  ['versions.v4 as a string', edited((m) => (m.versions.v4 = 'public')), /no versions\.v4 entry/],
  ['null', null, /not a JSON object/],
  ['a string', 'public', /not a JSON object/],
  ['a number', 4, /not a JSON object/],
  ['true', true, /not a JSON object/],
  ['undefined (an empty body)', undefined, /not a JSON object/],
  ['an unknown top-level property', edited((m) => (m.extra = 1)), /malformed.*must NOT have additional properties/],
  [
    'an unknown property in versions.v4',
    edited((m) => (m.versions.v4.extra = true)),
    /malformed: \/versions\/v4 must NOT have additional properties/,
  ],
  [
    'an unknown property in chains.4663',
    edited((m) => (m.chains['4663'].extra = true)),
    /malformed: \/chains\/4663 must NOT have additional properties/,
  ],
  [
    'another schemaVersion',
    edited((m) => (m.schemaVersion = 'platform.custom-launch-discovery-manifest.v2')),
    /malformed: \/schemaVersion/,
  ],
  ['no generatedAt', edited((m) => delete m.generatedAt), /malformed.*generatedAt/],
  ...entryNames.flatMap((entry): Row[] => [
    [
      `${entry} closed by the service itself, naming its reason`,
      edited((m) => {
        Object.assign(entryOf[entry](m), {
          publicWrites: false,
          releaseReady: false,
          reasons: ['CHAIN_NOT_CONFIGURED'],
        });
      }),
      new RegExp(`${entry} entry reports publicWrites: false \\(CHAIN_NOT_CONFIGURED\\)`),
    ],
    // A reason always comes with the two flags false (DiscoveryReasons): a reason beside true flags is malformed.
    [
      `${entry} with a reason but publicWrites and releaseReady true`,
      edited((m) => {
        entryOf[entry](m).reasons = ['CHAIN_NOT_CONFIGURED'];
      }),
      new RegExp(`malformed: /${entry.replace('.', '/')}/(publicWrites|releaseReady) must be equal to constant`),
    ],
    [
      `${entry} without reasons`,
      edited((m) => {
        delete entryOf[entry](m).reasons;
      }),
      new RegExp(`malformed: /${entry.replace('.', '/')} must have required property 'reasons'`),
    ],
  ]),
  [
    'profile 4.0.0 in versions.v4',
    edited((m) => (m.versions.v4.profile = '4.0.0')),
    /malformed: \/versions\/v4\/profile/,
  ],
  ['chains.4663 naming chain 1', edited((m) => (m.chains['4663'].chainId = '1')), /malformed: \/chains\/4663\/chainId/],
  ['no serviceOrigin', edited((m) => delete m.serviceOrigin), /malformed.*serviceOrigin/],
  [
    'serviceOrigin of another host',
    validManifest('https://other.example'),
    /names the service origin https:\/\/other\.example, not the configured https:\/\/launch\.example/,
  ],
  ['serviceOrigin over http', validManifest('http://launch.example'), /service origin http:\/\/launch\.example, not/],
  ['serviceOrigin with a port', validManifest('https://launch.example:8443'), /service origin .*:8443, not/],
  // The schema's pattern refuses a path, so the schema speaks before the origin comparison does.
  ['serviceOrigin with a trailing slash', validManifest('https://launch.example/'), /malformed: \/serviceOrigin/],
];

describe('discoveryStopReason', () => {
  it('the valid manifest of this file matches discovery-manifest.v1.schema.json', () => {
    // Guards the table: every stop below must come from its one edit, not from a broken base.
    const validate = loadSchemaRegistry().ajv.getSchema(`${schemaIdBase}discovery-manifest.v1.schema.json`);
    expect(validate?.(validManifest())).toBe(true);
  });

  it('lets a valid manifest naming the configured origin go on', () => {
    expect(discoveryStopReason(validManifest(), origin)).toBeNull();
  });

  it.each(stops)('stops on %s', (_name, manifest, want) => {
    const reason = discoveryStopReason(manifest, origin);
    expect(reason).not.toBeNull();
    expect(reason).toMatch(want);
  });

  // An array is an object to typeof; the reason must name the shape, not a missing entry.
  it('stops on an array, saying it is not a JSON object', () => {
    expect(discoveryStopReason([], origin)).toMatch(/not a JSON object/);
  });

  // The string "true" is not the boolean: the reason must not read as if the flag were true.
  it('does not report a string "true" as the flag being true', () => {
    const m = edited((x) => (x.versions.v4.publicWrites = 'true'));
    expect(discoveryStopReason(m, origin)).not.toMatch(/reports publicWrites: true$/);
  });

  it('stops on an array', () => {
    expect(discoveryStopReason([], origin)).not.toBeNull();
    expect(discoveryStopReason([validManifest()], origin)).not.toBeNull();
  });

  it('reports the flags before a schema problem elsewhere in the document', () => {
    const m = edited((x) => {
      x.extra = 1;
      x.chains['4663'].releaseReady = false;
    });
    expect(discoveryStopReason(m, origin)).toMatch(/chains\.4663 entry reports releaseReady: false/);
  });
});

// ---- requireDiscovery against real HTTP servers on 127.0.0.1 ----

interface Recorder {
  server: Server;
  url: string;
  seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders }>;
}

async function startRecorder(handle: (res: ServerResponse) => void): Promise<Recorder> {
  const seen: Recorder['seen'] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    handle(res);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** What the site answers at the discovery path in the current test; `hang` never answers. */
type Answer = { status: number; headers?: Record<string, string>; body?: string };
type SiteReply = Answer | 'hang';

describe('requireDiscovery', () => {
  let site: Recorder;
  let elsewhere: Recorder;
  let reply: SiteReply;

  beforeAll(async () => {
    site = await startRecorder((res) => {
      if (reply === 'hang') return;
      res.writeHead(reply.status, reply.headers ?? {}).end(reply.body ?? '');
    });
    elsewhere = await startRecorder((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(validManifest(site.url)));
    });
  });
  afterAll(async () => {
    await stop(site.server);
    await stop(elsewhere.server);
  });
  beforeEach(() => {
    site.seen.length = 0;
    elsewhere.seen.length = 0;
  });

  const json = (value: unknown): Answer => ({
    status: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(value),
  });
  const read = (timeoutMs = 5_000) => requireDiscovery({ siteUrl: site.url, origin: site.url, timeoutMs });

  function expectNoKeySent(): void {
    for (const request of [...site.seen, ...elsewhere.seen]) expect(request.headers.authorization).toBeUndefined();
  }

  it('resolves with a valid manifest, read with one unauthenticated GET of the well-known path', async () => {
    reply = json(validManifest(site.url));
    await expect(read()).resolves.toEqual(validManifest(site.url));
    expect(site.seen.map((r) => [r.method, r.url])).toEqual([['GET', discoveryPath]]);
    expect(discoveryPath).toBe('/.well-known/platform-custom-launch-discovery.json');
    expectNoKeySent();
  });

  it.each([
    ['a 404', () => ({ status: 404, body: '{"error":{"code":"NOT_FOUND"}}' }), /answered HTTP 404/],
    ['a 500', () => ({ status: 500, body: '' }), /answered HTTP 500/],
    // 2xx other than 200 is not "the manifest", even with a valid body.
    ['a 203 with a valid manifest', () => ({ ...json(validManifest(site.url)), status: 203 }), /answered HTTP 203/],
    ['a non-JSON body', () => ({ status: 200, body: '<html>maintenance</html>' }), /not a JSON object/],
    ['an empty body', () => ({ status: 200, body: '' }), /not a JSON object/],
    [
      'a manifest with publicWrites false',
      () => json(edited((m) => (m.versions.v4.publicWrites = false))),
      /versions\.v4 entry reports publicWrites: false.*stopping before any authenticated request/,
    ],
    [
      'a manifest naming another origin',
      () => json(validManifest('https://launch.example')),
      /names the service origin https:\/\/launch\.example/,
    ],
  ])('rejects %s with DiscoveryStop', async (_name, given, want) => {
    reply = given();
    const attempt = read();
    await expect(attempt).rejects.toBeInstanceOf(DiscoveryStop);
    await expect(attempt).rejects.toThrow(want);
    expect(site.seen).toHaveLength(1);
    expectNoKeySent();
  });

  it.each([301, 302, 307, 308])('rejects a %i redirect without following it', async (status) => {
    reply = { status, headers: { Location: `${elsewhere.url}${discoveryPath}` } };
    const attempt = read();
    await expect(attempt).rejects.toBeInstanceOf(DiscoveryStop);
    await expect(attempt).rejects.toThrow(/redirects; redirects are refused/);
    expect(site.seen).toHaveLength(1);
    expect(elsewhere.seen).toEqual([]);
    expectNoKeySent();
  });

  it('rejects when nothing listens on the port', async () => {
    const closed = await startRecorder(() => {});
    await stop(closed.server);
    const attempt = requireDiscovery({ siteUrl: closed.url, origin: closed.url, timeoutMs: 5_000 });
    await expect(attempt).rejects.toBeInstanceOf(DiscoveryStop);
    await expect(attempt).rejects.toThrow(/cannot read the discovery manifest at .*ECONNREFUSED/);
  });

  it('rejects when the site does not answer within the timeout', async () => {
    reply = 'hang';
    const attempt = read(300);
    await expect(attempt).rejects.toBeInstanceOf(DiscoveryStop);
    await expect(attempt).rejects.toThrow(/cannot read the discovery manifest at .*no answer within 300 ms/);
    expectNoKeySent();
  });
});
