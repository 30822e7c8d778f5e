import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodes } from '../../src/cli/exit-codes.ts';
import { LocalCheckError } from '../../src/client/core/local-check-error.ts';
import { submitModuleRequest, submitWithModuleJournal } from '../../src/client/modules/index.ts';
import { loadConfig } from '../../src/config.ts';
import { moduleLimits } from '../../src/core/module-files.ts';
import { runCli } from '../support/cli.ts';
import { auth, call } from '../support/http.ts';
import { moduleAuthor, moduleSubmission, setFiles } from '../support/modules.ts';
import { type LoopbackProxy, startProxy } from '../support/proxy.ts';
import { startServer, type TestServer } from '../support/server.ts';

/**
 * A deployment that publishes lower intake limits (a deployment may publish limits lower than the maxima, which the
 * client checks first; spec/schemas/modules-capabilities.v1.schema.json): the real server configured with them
 * publishes them in the public capabilities and the context and enforces them at intake; the module client and the CLI
 * read them from the public capabilities and refuse locally, before any key or source is sent. Every limit on both
 * sides of its boundary.
 */
const lower = {
  maxFiles: 3,
  maxFileBytes: 1000,
  maxTotalBytes: 1500,
  maxRequestBytes: 9000,
  maxPathLength: 24,
  maxListPageItems: 20,
};
let s: TestServer;
let proxy: LoopbackProxy;
let key: string;
let dir: string;
let seq = 0;

beforeAll(async () => {
  s = await startServer({ modulesLimits: lower });
  key = s.key({ wallet: moduleAuthor, scopes: ['modules:submit', 'modules:read'] });
  proxy = await startProxy(() => s.url);
  dir = mkdtempSync(join(tmpdir(), 'published-limits-'));
});
afterAll(async () => {
  await proxy?.close();
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const source = 'contract FeeSplitter {}\n';
/**
 * The example package with its files replaced: the component source, the documentation (`readmeBytes` long) and
 * `extra`.
 */
function packageWith(extra: Array<{ path: string; content: Buffer }>, readmeBytes = 16): Buffer {
  const r = setFiles(moduleSubmission(), [
    { path: 'src/FeeSplitter.sol', content: source },
    { path: 'README.md', content: Buffer.concat([Buffer.from('# '), filler(readmeBytes - 2)]) },
    ...extra,
  ]);
  return Buffer.from(JSON.stringify(r));
}
const filler = (size: number) => Buffer.alloc(size, 0x61);
/** README bytes that bring the package to `total` with a 1000-byte extra file. */
const readmeFor = (total: number) => total - Buffer.byteLength(source) - 1000;
/** The package padded with JSON whitespace to exactly `size` serialized bytes. */
const serializedTo = (size: number) => {
  const bytes = packageWith([]);
  if (bytes.length > size) throw new Error('package larger than the target');
  return Buffer.concat([bytes, Buffer.alloc(size - bytes.length, 0x20)]);
};

/** One row per published limit: a request just within it, and one just over it with the code intake answers. */
const rows: Array<[string, () => Buffer, () => Buffer, number, string]> = [
  [
    'files per request (3)',
    () => packageWith([{ path: 'docs/a.txt', content: filler(1) }]),
    () =>
      packageWith([
        { path: 'docs/a.txt', content: filler(1) },
        { path: 'docs/b.txt', content: filler(1) },
      ]),
    400,
    'INVALID_REQUEST',
  ],
  [
    'path length (24)',
    () => packageWith([{ path: `docs/${'p'.repeat(15)}.txt`, content: filler(1) }]),
    () => packageWith([{ path: `docs/${'p'.repeat(16)}.txt`, content: filler(1) }]),
    400,
    'INVALID_REQUEST',
  ],
  [
    'file size (1000 bytes)',
    () => packageWith([{ path: 'docs/a.txt', content: filler(1000) }]),
    () => packageWith([{ path: 'docs/a.txt', content: filler(1001) }]),
    400,
    'INVALID_REQUEST',
  ],
  [
    'total raw source (1500 bytes)',
    () => packageWith([{ path: 'docs/a.txt', content: filler(1000) }], readmeFor(1500)),
    () => packageWith([{ path: 'docs/a.txt', content: filler(1000) }], readmeFor(1501)),
    413,
    'PAYLOAD_TOO_LARGE',
  ],
  ['serialized request (9000 bytes)', () => serializedTo(9000), () => serializedTo(9001), 413, 'PAYLOAD_TOO_LARGE'],
];

describe('the deployment publishes its lower limits and enforces them', () => {
  it('the public capabilities and the context publish the same lower limits', async () => {
    const caps = await call(`${s.url}/v1/modules/capabilities`);
    expect(caps.json.moduleContributions.limits).toEqual(lower);
    const context = await call(`${s.url}/v1/modules/context`, { headers: auth(key) });
    expect(context.json.intake.limits).toEqual(lower);
  });

  it('the rows are where they say: the total row decodes to 1500 and 1501 bytes, the request row to 9000 and 9001', () => {
    const decoded = (bytes: Buffer) =>
      (JSON.parse(bytes.toString()) as { files: Array<{ bytes: string }> }).files.reduce(
        (n, f) => n + Buffer.from(f.bytes, 'base64').length,
        0,
      );
    const total = rows[3] as (typeof rows)[number];
    expect([decoded(total[1]()), decoded(total[2]())]).toEqual([1500, 1501]);
    const request = rows[4] as (typeof rows)[number];
    expect([request[1]().length, request[2]().length]).toEqual([9000, 9001]);
  });

  it.each(rows)(
    '%s: intake takes the request at the limit and refuses one over it',
    async (_n, within, over, status, code) => {
      const send = (body: Buffer) =>
        call(`${s.url}/v1/modules/submissions`, {
          method: 'POST',
          headers: auth(key, { 'Idempotency-Key': `published-limits-${++seq}-0000` }),
          body,
        });
      const fits = await send(within());
      expect(fits.status, fits.text).toBe(201);
      const refused = await send(over());
      expect(refused.status, refused.text).toBe(status);
      expect(refused.json.error).toMatchObject({ code, submissionMayExist: false });
    },
  );
});

describe('the module client checks the published limits before it sends any key or source', () => {
  it.each(rows)(
    '%s: within is sent and stored; over is refused locally after the keyless capabilities read',
    async (_n, within, over) => {
      const start = proxy.seen.length;
      const sent = await submitModuleRequest({
        origin: proxy.url,
        apiKey: key,
        idempotencyKey: `client-limits-${++seq}-0000`,
        requestBytes: within(),
      });
      expect(sent.error, JSON.stringify(sent.error)).toBeUndefined();
      expect(sent.data?.httpStatus).toBe(201);
      const mark = proxy.seen.length;
      expect(proxy.seen.slice(start, mark).map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /v1/modules/capabilities',
        'POST /v1/modules/submissions',
      ]);

      const journalPath = join(dir, `journal-${++seq}.json`);
      await expect(
        submitWithModuleJournal({ origin: proxy.url, apiKey: key, journalPath, requestBytes: over() }),
      ).rejects.toThrow(LocalCheckError);
      await expect(
        submitModuleRequest({
          origin: proxy.url,
          apiKey: key,
          idempotencyKey: `client-limits-${++seq}-0000`,
          requestBytes: over(),
        }),
      ).rejects.toThrow(/this deployment publishes|exceeds a limit this deployment publishes/);
      const after = proxy.seen.slice(mark);
      expect(after.map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /v1/modules/capabilities',
        'GET /v1/modules/capabilities',
      ]);
      expect(after.every((r) => r.headers.authorization === undefined && r.body.length === 0)).toBe(true);
      expect(existsSync(journalPath)).toBe(false);
    },
  );

  it('a deployment at the schema maxima takes what the lower one refuses (the client checked the published values)', async () => {
    const open = await startServer();
    try {
      const openKey = open.key({ wallet: moduleAuthor, scopes: ['modules:submit'] });
      const caps = await call(`${open.url}/v1/modules/capabilities`);
      expect(caps.json.moduleContributions.limits).toEqual(moduleLimits);
      for (const [, , over] of rows) {
        const sent = await submitModuleRequest({
          origin: open.url,
          apiKey: openKey,
          idempotencyKey: `reference-limits-${++seq}-0000`,
          requestBytes: over(),
        });
        expect(sent.error, JSON.stringify(sent.error)).toBeUndefined();
      }
    } finally {
      await open.close();
    }
  });
});

describe('the CLI refuses locally (exit 3) against a deployment whose published limits the package exceeds', () => {
  it('over: exit 3, only the keyless capabilities read was sent, no journal; within: stored', async () => {
    const env = { PLATFORM_API_KEY: key, CUSTOM_LAUNCH_ORIGIN: proxy.url };
    const overPath = join(dir, 'over.json');
    writeFileSync(overPath, packageWith([{ path: 'docs/a.txt', content: filler(1001) }]));
    const journal = join(dir, 'cli-over-journal.json');
    const start = proxy.seen.length;
    const refused = await runCli(['modules', 'submit', overPath, '--journal', journal], env);
    expect(refused.code, refused.stderr).toBe(exitCodes.localCheck.code);
    expect(refused.stderr).toContain('exceeds a limit this deployment publishes');
    expect(refused.stderr).toContain('at most 1000 per file');
    const seen = proxy.seen.slice(start);
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/modules/capabilities']);
    expect(seen[0]?.headers.authorization).toBeUndefined();
    expect(existsSync(journal)).toBe(false);

    const withinPath = join(dir, 'within.json');
    writeFileSync(withinPath, packageWith([{ path: 'docs/a.txt', content: filler(1000) }]));
    const stored = await runCli(['modules', 'submit', withinPath, '--journal', join(dir, 'cli-within.json')], env);
    expect(stored.code, stored.stderr).toBe(0);
  }, 60_000);
});

describe('the configuration takes a limit from 1 to the schema maximum', () => {
  it.each([
    ['MODULES_MAX_FILES', '128', 128, 'maxFiles'],
    ['MODULES_MAX_FILES', '1', 1, 'maxFiles'],
    ['MODULES_MAX_FILE_BYTES', '4194304', 4_194_304, 'maxFileBytes'],
    ['MODULES_MAX_TOTAL_BYTES', '16777216', 16_777_216, 'maxTotalBytes'],
    ['MODULES_MAX_REQUEST_BYTES', '25165824', 25_165_824, 'maxRequestBytes'],
    ['MODULES_MAX_PATH_LENGTH', '240', 240, 'maxPathLength'],
  ] as const)('%s=%s is taken', (name, raw, want, field) => {
    expect(loadConfig({ [name]: raw }).modulesLimits[field]).toBe(want);
  });

  it.each([
    ['MODULES_MAX_FILES', '129'],
    ['MODULES_MAX_FILES', '0'],
    ['MODULES_MAX_FILE_BYTES', '4194305'],
    ['MODULES_MAX_TOTAL_BYTES', '16777217'],
    ['MODULES_MAX_REQUEST_BYTES', '25165825'],
    ['MODULES_MAX_PATH_LENGTH', '241'],
  ])('%s=%s is refused', (name, raw) => {
    expect(() => loadConfig({ [name]: raw })).toThrow(name);
  });

  it('unset, every limit is the schema maximum', () => {
    expect(loadConfig({}).modulesLimits).toEqual(moduleLimits);
  });
});
