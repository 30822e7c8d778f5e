import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { JournalError } from '../../src/client/core/journal-file.ts';
import { LocalCheckError } from '../../src/client/core/local-check-error.ts';
import { resolveCall } from '../../src/client/modules/call.ts';
import {
  fetchModuleReceipt,
  fetchModuleReviewExport,
  fetchModuleReviewStatus,
  implementedFormats,
  listModuleReceipts,
  type ModuleIntakeReceipt,
  moduleApiKey,
  moduleClientCodes,
  readModulesCapabilities,
  readModulesContext,
  requestDigestOf,
  submitModuleRequest,
  submitWithModuleJournal,
} from '../../src/client/modules/index.ts';
import { closeLoopback, listenLoopback } from '../support/http.ts';
import { digest, freshFamilySalt, moduleAuthor, moduleSubmission, reviewExportFor } from '../support/modules.ts';
import { type LoopbackProxy, startProxy } from '../support/proxy.ts';
import { startServer, type TestServer } from '../support/server.ts';

/**
 * The module-contribution client library (spec/openapi/paths/modules-*.yaml; the limits of
 * spec/schemas/modules-context.v1.schema.json) over real HTTP: a real server with its own SQLite file, reached through
 * a recording loopback proxy that injects the answers a rule needs (an oversized body, a redirect, a closed intake, a
 * held answer) and proves what was or was not sent.
 */
const MiB = 1_048_576;
const submissionsPath = '/v1/modules/submissions';
const capabilitiesPath = '/v1/modules/capabilities';
const reviewCapabilitiesPath = '/v1/modules/review-capabilities';

let s: TestServer;
let proxy: LoopbackProxy;
let key: string;
let dir: string;
let serial = 0;

beforeAll(async () => {
  s = await startServer();
  key = s.key({ scopes: ['modules:submit', 'modules:read'] });
  proxy = await startProxy(() => s.url);
  dir = mkdtempSync(join(tmpdir(), 'modules-client-'));
});
afterAll(async () => {
  await proxy?.close();
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (timeoutMs = 10_000) => ({ origin: proxy.url, apiKey: key, timeoutMs });
const journalPath = () => join(dir, `journal-${++serial}.json`);
/** A fresh package family each time, so no submission conflicts with another test's. */
const requestBytes = (edit: (r: ReturnType<typeof moduleSubmission>) => void = () => {}) => {
  const r = moduleSubmission();
  r.descriptor.familySalt = freshFamilySalt();
  edit(r);
  return Buffer.from(JSON.stringify(r));
};
const seenFrom = (start: number) => proxy.seen.slice(start);
const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  kind: 'answer' as const,
  status,
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
/** `json` followed by spaces up to exactly `size` bytes: still valid JSON. */
const padded = (json: unknown, size: number) => {
  const text = JSON.stringify(json);
  if (text.length > size) throw new Error('fixture larger than the padding target');
  return text + ' '.repeat(size - text.length);
};

const capabilities = (edit: Record<string, unknown> = {}) => ({
  moduleContributions: { submissions: true, apiKeyIssuance: false, ...implementedFormats, ...edit },
  reviewAvailable: false,
  approved: false,
  available: false,
});

/** A receipt that binds `bytes`, as the contract describes it. */
function receiptFor(bytes: Buffer, edit: Record<string, unknown> = {}): Record<string, unknown> {
  const r = JSON.parse(bytes.toString('utf8'));
  return {
    contract: 'platform.modules.api.v0.1',
    submissionId: randomUUID(),
    status: 'draft_received',
    reviewStatus: 'unreviewed',
    approved: false,
    available: false,
    packageId: `0x${'a1'.repeat(32)}`,
    familyId: `0x${'b2'.repeat(32)}`,
    requestDigest: requestDigestOf(bytes),
    author: r.descriptor.author,
    rewardWallet: r.descriptor.rewardWallet,
    byteCount: r.files.reduce((n: number, f: { bytes: string }) => n + Buffer.from(f.bytes, 'base64').length, 0),
    name: r.descriptor.name,
    version: r.descriptor.version,
    supersedesSubmissionId: null,
    createdAt: new Date().toISOString(),
    ...edit,
  };
}

const reviewCapabilities = (statusReadAvailable: boolean) => ({
  schemaVersion: 'platform.modules.review-capabilities.v1',
  reviewAvailable: statusReadAvailable,
  statusReadAvailable,
  reviewerPolicyDigest: statusReadAvailable ? digest('c') : null,
  workerSourceCommit: null,
  workerAuthorityReady: statusReadAvailable,
  databaseReady: statusReadAvailable,
  approved: false,
  available: false,
});

function reviewStatusFor(receipt: Record<string, any>, edit: Record<string, unknown> = {}) {
  const at = new Date().toISOString();
  return {
    schemaVersion: 'platform.modules.review-status.v1',
    submissionId: receipt.submissionId,
    packageId: receipt.packageId,
    familyId: receipt.familyId,
    requestDigest: receipt.requestDigest,
    author: receipt.author,
    review: {
      state: 'awaiting_plan',
      nextAction: 'await_review_plan',
      revision: 0,
      attempt: 0,
      createdAt: at,
      updatedAt: at,
      lastError: null,
      buildEvidenceRecorded: false,
      latestDecision: null,
    },
    sourceRevisionVerified: false,
    runtimeVerified: false,
    approved: false,
    available: false,
    ...edit,
  };
}

describe('the client codes table', () => {
  it('holds exactly the documented client-side codes', () => {
    expect(Object.keys(moduleClientCodes).sort()).toEqual(
      [
        'MODULE_API_KEY_CONFLICT',
        'MODULE_API_NETWORK',
        'MODULE_API_TIMEOUT',
        'MODULE_API_RESPONSE',
        'MODULE_API_RECEIPT_MISMATCH',
        'MODULE_CONTEXT_RESPONSE',
        'MODULE_REVIEW_RESPONSE',
      ].sort(),
    );
  });
});

describe('the key comes only from the environment', () => {
  const a = 'clk_modules_key_aaaaaaaaaaaaaaaa';
  const b = 'clk_modules_key_bbbbbbbbbbbbbbbb';
  it.each([
    ['PLATFORM_API_KEY alone', { PLATFORM_API_KEY: a }, { kind: 'key', apiKey: a, variable: 'PLATFORM_API_KEY' }],
    [
      'PLATFORM_MODULES_API_KEY alone',
      { PLATFORM_MODULES_API_KEY: b },
      { kind: 'key', apiKey: b, variable: 'PLATFORM_MODULES_API_KEY' },
    ],
    ['both, equal', { PLATFORM_API_KEY: a, PLATFORM_MODULES_API_KEY: a }, { kind: 'key', apiKey: a, variable: 'both' }],
    ['neither', {}, { kind: 'missing' }],
    ['both empty', { PLATFORM_API_KEY: '', PLATFORM_MODULES_API_KEY: '' }, { kind: 'missing' }],
    ['one empty, one set', { PLATFORM_API_KEY: '', PLATFORM_MODULES_API_KEY: b }, { kind: 'key', apiKey: b }],
    ['a key with a space', { PLATFORM_API_KEY: 'clk bad' }, { kind: 'malformed' }],
  ])('%s', (_name, env, want) => {
    expect(moduleApiKey(env)).toMatchObject(want);
  });

  it('both set with different values is MODULE_API_KEY_CONFLICT, and the message names no key', () => {
    const result = moduleApiKey({ PLATFORM_API_KEY: a, PLATFORM_MODULES_API_KEY: b });
    expect(result.kind).toBe('conflict');
    if (result.kind !== 'conflict') return;
    expect(result.failure.code).toBe('MODULE_API_KEY_CONFLICT');
    expect(result.failure.message).not.toContain(a);
    expect(result.failure.message).not.toContain(b);
  });
});

describe('origin and timeout (Endpoints; Limits: 1 to 120,000 ms, default 20 s)', () => {
  it.each([
    ['1 ms', 1, true],
    ['120000 ms', 120_000, true],
    ['the default', undefined, true],
    ['0 ms', 0, false],
    ['120001 ms', 120_001, false],
    ['1.5 ms', 1.5, false],
  ])('timeout %s', (_name, timeoutMs, ok) => {
    const resolve = () => resolveCall({ origin: 'http://127.0.0.1:1', timeoutMs });
    if (ok) expect(resolve().timeoutMs).toBe(timeoutMs ?? 20_000);
    else expect(resolve).toThrow(TypeError);
  });

  it.each([
    ['https', 'https://modules.example', true],
    ['http on localhost', 'http://localhost:8787', true],
    ['http on [::1]', 'http://[::1]:8787', true],
    ['http elsewhere', 'http://modules.example', false],
    ['an origin with a path', 'https://modules.example/v1', false],
  ])('origin %s', (_name, origin, ok) => {
    if (ok) expect(() => resolveCall({ origin })).not.toThrow();
    else expect(() => resolveCall({ origin })).toThrow(TypeError);
  });
});

describe('capabilities and the upload gate', () => {
  it('reads the public capabilities without a key', async () => {
    const start = proxy.seen.length;
    const caps = await readModulesCapabilities({ origin: proxy.url });
    expect(caps.error, JSON.stringify(caps.error)).toBeUndefined();
    expect(caps.data?.moduleContributions).toMatchObject({ submissions: true, ...implementedFormats });
    expect(seenFrom(start).map((r) => r.headers.authorization)).toEqual([undefined]);
  });

  it.each([
    ['submissions false', { submissions: false }],
    ['another contract', { contract: 'platform.modules.api.v0.2' }],
    ['another submission format', { submissionFormat: 'platform.modules.submission.v0.2' }],
    ['another descriptor format', { descriptorFormat: 'platform.classic.source-package.v0.2' }],
  ])('%s: MODULE_SUBMISSIONS_UNAVAILABLE, and neither the key nor any source is sent', async (_name, edit) => {
    const start = proxy.seen.length;
    const path = journalPath();
    proxy.plan('GET', capabilitiesPath, answer(200, capabilities(edit)));
    const result = await submitWithModuleJournal({ ...call(), journalPath: path, requestBytes: requestBytes() });
    expect(result.error?.code).toBe('MODULE_SUBMISSIONS_UNAVAILABLE');
    expect(result.error && 'stage' in result ? result.stage : undefined).toBe('capabilities');
    const seen = seenFrom(start);
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${capabilitiesPath}`]);
    expect(seen[0]?.headers.authorization).toBeUndefined();
    expect(seen[0]?.body.length).toBe(0);
    expect(existsSync(path)).toBe(false);
  });

  it('ignores the legacy root flags: reviewAvailable, approved and available false do not stop an upload', async () => {
    const bytes = requestBytes();
    proxy.plan('GET', capabilitiesPath, answer(200, capabilities()));
    proxy.plan('POST', submissionsPath, answer(201, receiptFor(bytes)));
    const result = await submitWithModuleJournal({ ...call(), journalPath: journalPath(), requestBytes: bytes });
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
  });

  it('stops at a real server configured without submissions, before the key goes out', async () => {
    const closed = await startServer({ modulesSubmissions: false });
    try {
      const closedKey = closed.key({ scopes: ['modules:submit', 'modules:read'] });
      const path = journalPath();
      const result = await submitWithModuleJournal({
        origin: closed.url,
        apiKey: closedKey,
        journalPath: path,
        requestBytes: requestBytes(),
      });
      expect(result.error?.code).toBe('MODULE_SUBMISSIONS_UNAVAILABLE');
      expect(result.error?.source).toBe('client');
      expect(existsSync(path)).toBe(false);
    } finally {
      await closed.close();
    }
  });
});

describe('response caps: 1 MiB after decompression, 3 MiB for the review export (Limits)', () => {
  it.each([
    ['exactly 1,048,576 bytes is read', MiB, true],
    ['1,048,577 bytes is MODULE_API_RESPONSE, unparsed', MiB + 1, false],
  ])('%s', async (_name, size, ok) => {
    proxy.plan('GET', capabilitiesPath, answer(200, padded(capabilities(), size)));
    const caps = await readModulesCapabilities({ origin: proxy.url });
    if (ok) {
      expect(caps.error, JSON.stringify(caps.error)).toBeUndefined();
      expect(caps.data?.moduleContributions.submissions).toBe(true);
    } else {
      expect(caps.data).toBeUndefined();
      expect(caps.error?.code).toBe('MODULE_API_RESPONSE');
      expect(caps.error?.message).toContain('1048576');
    }
  });

  describe('counted after gzip decoding', () => {
    let gz: { url: string; server: Server };
    let size = 0;
    beforeAll(async () => {
      gz = await listenLoopback((req, res) => {
        req.resume();
        const body = gzipSync(Buffer.from(padded(capabilities(), size)));
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end(body);
      });
    });
    afterAll(() => closeLoopback(gz.server));

    it.each([
      ['exactly 1 MiB decoded is read', MiB, true],
      ['1 MiB + 1 decoded is refused, although the wire carries a few KiB', MiB + 1, false],
    ])('%s', async (_name, bytes, ok) => {
      size = bytes;
      expect(gzipSync(Buffer.from(padded(capabilities(), size))).length).toBeLessThan(16_384);
      const caps = await readModulesCapabilities({ origin: gz.url });
      expect(caps.error?.code).toBe(ok ? undefined : 'MODULE_API_RESPONSE');
      expect(caps.data === undefined).toBe(!ok);
    });
  });

  it.each([
    ['exactly 3,145,728 bytes is read', 3 * MiB, true],
    ['3,145,729 bytes is MODULE_API_RESPONSE, unparsed', 3 * MiB + 1, false],
  ])('review export: %s', async (_name, size, ok) => {
    const receipt = receiptFor(requestBytes());
    const id = receipt.submissionId as string;
    proxy.plan('GET', reviewCapabilitiesPath, answer(200, reviewCapabilities(true)));
    proxy.plan('GET', `${submissionsPath}/${id}`, answer(200, receipt));
    proxy.plan('GET', `${submissionsPath}/${id}/review-export`, answer(200, padded(reviewExportFor(receipt), size)));
    const result = await fetchModuleReviewExport(call(), id);
    if (ok) {
      expect(result.error, JSON.stringify(result.error)).toBeUndefined();
      expect(result.data?.bytes.length).toBe(size);
      expect(result.data?.reviewExport.submissionId).toBe(id);
    } else {
      expect(result.data).toBeUndefined();
      expect(result.error?.code).toBe('MODULE_API_RESPONSE');
    }
  });

  it('the 1 MiB cap applies to a review status read (it is not an export)', async () => {
    const receipt = receiptFor(requestBytes());
    const id = receipt.submissionId as string;
    proxy.plan('GET', reviewCapabilitiesPath, answer(200, reviewCapabilities(true)));
    proxy.plan('GET', `${submissionsPath}/${id}`, answer(200, receipt));
    proxy.plan('GET', `${submissionsPath}/${id}/review`, answer(200, padded(reviewStatusFor(receipt), MiB + 1)));
    const result = await fetchModuleReviewStatus(call(), id);
    expect(result.error?.code).toBe('MODULE_API_RESPONSE');
  });
});

describe('timeouts, network failures and redirects (Errors: MODULE_API_TIMEOUT, MODULE_API_NETWORK)', () => {
  it('a held read is MODULE_API_TIMEOUT; a GET never implies a submission', async () => {
    proxy.plan('GET', capabilitiesPath, { kind: 'forward-and-hold', onServerAnswer: () => {} });
    const started = Date.now();
    const caps = await readModulesCapabilities({ origin: proxy.url, timeoutMs: 300 });
    expect(caps.error?.code).toBe('MODULE_API_TIMEOUT');
    expect(caps.error?.submissionMayExist).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a refused connection is MODULE_API_NETWORK', async () => {
    const gone = await listenLoopback(() => {});
    const origin = gone.url;
    await closeLoopback(gone.server);
    const caps = await readModulesCapabilities({ origin });
    expect(caps.error?.code).toBe('MODULE_API_NETWORK');
  });

  it('a redirect is refused as MODULE_API_NETWORK and nothing reaches its target', async () => {
    const elsewhere = await startProxy(() => s.url);
    try {
      proxy.plan('GET', capabilitiesPath, answer(307, '', { Location: `${elsewhere.url}${capabilitiesPath}` }));
      const caps = await readModulesCapabilities({ origin: proxy.url });
      expect(caps.error?.code).toBe('MODULE_API_NETWORK');
      expect(caps.error?.message).toContain('redirect');

      const bytes = requestBytes();
      const path = journalPath();
      proxy.plan('POST', submissionsPath, answer(308, '', { Location: `${elsewhere.url}${submissionsPath}` }));
      const sent = await submitWithModuleJournal({ ...call(), journalPath: path, requestBytes: bytes });
      expect(sent.error?.code).toBe('MODULE_API_NETWORK');
      expect(sent.error?.submissionMayExist).toBe(true);
      expect(elsewhere.seen).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('a connection cut during the POST is MODULE_API_NETWORK with submissionMayExist, and the pair is kept', async () => {
    const posts: Array<{ key: string | undefined; body: Buffer }> = [];
    const cutter = await listenLoopback((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method === 'GET') {
          res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(capabilities()));
          return;
        }
        posts.push({ key: req.headers['idempotency-key'] as string | undefined, body: Buffer.concat(chunks) });
        req.socket.destroy();
      });
    });
    try {
      const bytes = requestBytes();
      const path = journalPath();
      const options = { origin: cutter.url, apiKey: key, journalPath: path };
      const first = await submitWithModuleJournal({ ...options, requestBytes: bytes });
      expect(first.error?.code).toBe('MODULE_API_NETWORK');
      expect(first.error?.submissionMayExist).toBe(true);
      const again = await submitWithModuleJournal(options);
      expect(again.error?.code).toBe('MODULE_API_NETWORK');
      expect(posts).toHaveLength(2);
      expect(posts[1]?.key).toBe(posts[0]?.key);
      expect(posts[0]?.body.equals(bytes)).toBe(true);
      expect(posts[1]?.body.equals(bytes)).toBe(true);
      const journal = JSON.parse(readFileSync(path, 'utf8'));
      expect(journal.outcome).toMatchObject({ state: 'pending', submissionMayExist: true, code: 'MODULE_API_NETWORK' });
    } finally {
      await closeLoopback(cutter.server);
    }
  });
});

describe('submit through the journal: the Idempotency-Key and the bytes stay a pair (Errors)', () => {
  const posts = (start: number) => seenFrom(start).filter((r) => r.method === 'POST' && r.path === submissionsPath);

  it('creates a draft (201) whose receipt binds the request, and a rerun is the exact replay (200)', async () => {
    const bytes = requestBytes();
    const path = journalPath();
    const start = proxy.seen.length;
    const first = await submitWithModuleJournal({ ...call(), journalPath: path, requestBytes: bytes });
    expect(first.error, JSON.stringify(first.error)).toBeUndefined();
    expect(first.data?.httpStatus).toBe(201);
    expect(first.data?.receipt).toMatchObject({
      status: 'draft_received',
      reviewStatus: 'unreviewed',
      approved: false,
      available: false,
      requestDigest: requestDigestOf(bytes),
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).not.toContain(key);
    const again = await submitWithModuleJournal({ ...call(), journalPath: path });
    expect(again.error, JSON.stringify(again.error)).toBeUndefined();
    expect(again.data?.httpStatus).toBe(200);
    expect(again.data?.receipt).toEqual(first.data?.receipt);
    const sent = posts(start);
    expect(sent).toHaveLength(2);
    expect(sent[0]?.headers['idempotency-key']).toBe(sent[1]?.headers['idempotency-key']);
    for (const post of sent) expect(post.body.equals(bytes)).toBe(true);
    // The gate ran before each upload, without the key.
    const order = seenFrom(start).map((r) => `${r.method} ${r.path} ${r.headers.authorization ? 'key' : 'no key'}`);
    expect(order).toEqual([
      `GET ${capabilitiesPath} no key`,
      `POST ${submissionsPath} key`,
      `GET ${capabilitiesPath} no key`,
      `POST ${submissionsPath} key`,
    ]);
  });

  it('a timeout of the POST is MODULE_API_TIMEOUT with submissionMayExist; the rerun resends the pair and finds the draft', async () => {
    const bytes = requestBytes();
    const path = journalPath();
    const start = proxy.seen.length;
    let serverStatus = 0;
    proxy.plan('POST', submissionsPath, {
      kind: 'forward-and-hold',
      onServerAnswer: (status) => {
        serverStatus = status;
      },
    });
    const first = await submitWithModuleJournal({ ...call(1_500), journalPath: path, requestBytes: bytes });
    expect(first.error?.code).toBe('MODULE_API_TIMEOUT');
    expect(first.error?.submissionMayExist).toBe(true);
    expect(serverStatus).toBe(201);
    const journal = JSON.parse(readFileSync(path, 'utf8'));
    expect(journal.outcome).toMatchObject({ state: 'pending', submissionMayExist: true });

    const again = await submitWithModuleJournal({ ...call(), journalPath: path, requestBytes: bytes });
    expect(again.error, JSON.stringify(again.error)).toBeUndefined();
    expect(again.data?.httpStatus).toBe(200);
    const sent = posts(start);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.headers['idempotency-key']).toBe(journal.idempotencyKey);
    expect(sent[0]?.headers['idempotency-key']).toBe(journal.idempotencyKey);
    expect(sent[1]?.body.equals(bytes)).toBe(true);
  });

  it('an ApiError with submissionMayExist keeps the pair pending; the rerun sends the same key and bytes', async () => {
    const bytes = requestBytes();
    const path = journalPath();
    const start = proxy.seen.length;
    proxy.plan(
      'POST',
      submissionsPath,
      answer(503, {
        error: {
          code: 'UNAVAILABLE',
          message: 'injected',
          requestId: randomUUID(),
          retryable: true,
          submissionMayExist: true,
        },
      }),
    );
    const first = await submitWithModuleJournal({ ...call(), journalPath: path, requestBytes: bytes });
    expect(first.error).toMatchObject({ code: 'UNAVAILABLE', source: 'service', submissionMayExist: true });
    const again = await submitWithModuleJournal({ ...call(), journalPath: path });
    expect(again.error, JSON.stringify(again.error)).toBeUndefined();
    expect(again.data?.httpStatus).toBe(201);
    const sent = posts(start);
    expect(sent.map((p) => p.headers['idempotency-key'])).toEqual([
      sent[0]?.headers['idempotency-key'],
      sent[0]?.headers['idempotency-key'],
    ]);
    expect(sent.every((p) => p.body.equals(bytes))).toBe(true);
  });

  it('a definite refusal ends the journal: a rerun sends nothing and repeats the recorded code', async () => {
    const path = journalPath();
    proxy.plan(
      'POST',
      submissionsPath,
      answer(409, {
        error: {
          code: 'MODULE_VERSION_ALREADY_SUBMITTED',
          message: 'injected',
          requestId: randomUUID(),
          retryable: false,
        },
      }),
    );
    const first = await submitWithModuleJournal({ ...call(), journalPath: path, requestBytes: requestBytes() });
    expect(first.error).toMatchObject({ code: 'MODULE_VERSION_ALREADY_SUBMITTED', submissionMayExist: false });
    const start = proxy.seen.length;
    const again = await submitWithModuleJournal({ ...call(), journalPath: path });
    expect(again.error?.code).toBe('MODULE_VERSION_ALREADY_SUBMITTED');
    expect(seenFrom(start)).toEqual([]);
  });

  it.each([
    ['other request bytes', (path: string) => ({ journalPath: path, requestBytes: requestBytes() })],
    ['another key', (path: string) => ({ journalPath: path, apiKey: s.key({ scopes: ['modules:submit'] }) })],
    ['another origin', (path: string) => ({ journalPath: path, origin: s.url })],
  ])('a journal bound to %s refuses before sending anything', async (_name, change) => {
    const path = journalPath();
    proxy.plan(
      'POST',
      submissionsPath,
      answer(503, { error: { code: 'UNAVAILABLE', message: 'x', requestId: randomUUID(), retryable: true } }),
    );
    await submitWithModuleJournal({ ...call(), journalPath: path, requestBytes: requestBytes() });
    const start = proxy.seen.length;
    await expect(submitWithModuleJournal({ ...call(), ...change(path) })).rejects.toThrow(JournalError);
    expect(seenFrom(start)).toEqual([]);
  });

  it('a journal readable by others is refused', async () => {
    const path = journalPath();
    proxy.plan(
      'POST',
      submissionsPath,
      answer(503, { error: { code: 'UNAVAILABLE', message: 'x', requestId: randomUUID(), retryable: true } }),
    );
    await submitWithModuleJournal({ ...call(), journalPath: path, requestBytes: requestBytes() });
    chmodSync(path, 0o644);
    await expect(submitWithModuleJournal({ ...call(), journalPath: path })).rejects.toThrow(/0600/);
  });
});

describe('the receipt must bind the request (MODULE_API_RECEIPT_MISMATCH)', () => {
  it.each([
    ['a receipt that binds the request is accepted', () => ({}), undefined],
    ['submissionId missing', () => ({ submissionId: undefined }), 'MODULE_API_RECEIPT_MISMATCH'],
    ['another author', () => ({ author: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }), 'MODULE_API_RECEIPT_MISMATCH'],
    ['another name', () => ({ name: 'other-package' }), 'MODULE_API_RECEIPT_MISMATCH'],
    ['another version', () => ({ version: '9.9.9' }), 'MODULE_API_RECEIPT_MISMATCH'],
    ['a requestDigest of other bytes', () => ({ requestDigest: digest('0') }), 'MODULE_API_RECEIPT_MISMATCH'],
    ['a bound receipt off the schema', () => ({ status: 'approved' }), 'MODULE_API_RESPONSE'],
  ])('%s', async (_name, edit, code) => {
    const bytes = requestBytes();
    const path = journalPath();
    const receipt = receiptFor(bytes, edit());
    proxy.plan('POST', submissionsPath, answer(201, receipt));
    const result = await submitWithModuleJournal({ ...call(), journalPath: path, requestBytes: bytes });
    expect(result.error?.code).toBe(code);
    if (code) {
      expect(result.error?.submissionMayExist).toBe(true);
      const journal = JSON.parse(readFileSync(path, 'utf8'));
      expect(journal.outcome).toMatchObject({ state: 'pending', submissionMayExist: true, code });
      expect(Buffer.from(journal.requestBytesBase64, 'base64').equals(bytes)).toBe(true);
    }
  });

  it('the requestDigest is over the canonical JSON, so a request with other whitespace has the same digest', () => {
    const bytes = requestBytes();
    const spaced = Buffer.from(JSON.stringify(JSON.parse(bytes.toString('utf8')), null, 2));
    expect(requestDigestOf(spaced)).toBe(requestDigestOf(bytes));
  });

  it('reads a receipt back by id; a receipt of another submission is MODULE_API_RECEIPT_MISMATCH', async () => {
    const bytes = requestBytes();
    const sent = await submitWithModuleJournal({ ...call(), journalPath: journalPath(), requestBytes: bytes });
    expect(sent.error, JSON.stringify(sent.error)).toBeUndefined();
    const id = sent.data?.receipt.submissionId as string;
    const read = await fetchModuleReceipt(call(), id);
    expect(read.error, JSON.stringify(read.error)).toBeUndefined();
    expect(read.data).toEqual(sent.data?.receipt);

    proxy.plan('GET', `${submissionsPath}/${id}`, answer(200, { ...read.data, submissionId: randomUUID() }));
    const wrong = await fetchModuleReceipt(call(), id);
    expect(wrong.error?.code).toBe('MODULE_API_RECEIPT_MISMATCH');
  });
});

describe('context (MODULE_CONTEXT_RESPONSE)', () => {
  it('reads the context of the key from the server', async () => {
    const context = await readModulesContext(call());
    expect(context.error, JSON.stringify(context.error)).toBeUndefined();
    expect(context.data?.identity.author.toLowerCase()).toBe(moduleAuthor.toLowerCase());
    expect(context.data?.authorization).toMatchObject({ canSubmit: true, canRead: true, missingScopes: [] });
  });

  const valid = () => ({
    schemaVersion: 'platform.modules.context.v1',
    identity: { author: moduleAuthor, defaultRewardWallet: moduleAuthor },
    authorization: { scopes: ['modules:submit', 'modules:read'], missingScopes: [], canSubmit: true, canRead: true },
    intake: {
      available: true,
      limits: {
        maxFiles: 128,
        maxFileBytes: 4_194_304,
        maxTotalBytes: 16_777_216,
        maxRequestBytes: 25_165_824,
        maxPathLength: 240,
        maxListPageItems: 20,
      },
      submissionFormat: implementedFormats.submissionFormat,
      descriptorFormat: implementedFormats.descriptorFormat,
      openRuntimeIdentifiers: true,
      openHostRequirements: true,
      categoryRequired: false,
      repositoryRequired: false,
    },
    inputs: { requiredUserInput: ['idea'], optionalUserInput: ['rewardWallet'], agentPreparedFields: [] },
    review: {
      profiles: [],
      limits: {
        maxEngineInitializationDataBytes: 16_384,
        maxEngineOperationDataBytes: 16_384,
        maxEngineExecutionGas: 3_000_000,
      },
      available: false,
      statusReadAvailable: false,
      unknownRequirements: 'await_review_plan',
      planRequired: true,
      approval: 'manual',
      publicationSeparate: true,
    },
  });

  it.each([
    ['a consistent context is used', (c: any) => c, undefined],
    [
      'identity.author not an address',
      (c: any) => ({ ...c, identity: { ...c.identity, author: 'alice' } }),
      'MODULE_CONTEXT_RESPONSE',
    ],
    [
      'a default reward wallet other than the author',
      (c: any) => ({
        ...c,
        identity: { ...c.identity, defaultRewardWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' },
      }),
      'MODULE_CONTEXT_RESPONSE',
    ],
    [
      'canSubmit without modules:submit',
      (c: any) => ({
        ...c,
        authorization: { ...c.authorization, scopes: ['modules:read'], missingScopes: ['modules:submit'] },
      }),
      'MODULE_CONTEXT_RESPONSE',
    ],
    [
      'missingScopes that contradict scopes',
      (c: any) => ({
        ...c,
        authorization: { ...c.authorization, canSubmit: false, canRead: false, missingScopes: ['modules:read'] },
      }),
      'MODULE_CONTEXT_RESPONSE',
    ],
    [
      'an unsupported schemaVersion',
      (c: any) => ({ ...c, schemaVersion: 'platform.modules.context.v2' }),
      'MODULE_CONTEXT_RESPONSE',
    ],
  ])('%s', async (_name, edit, code) => {
    proxy.plan('GET', '/v1/modules/context', answer(200, edit(valid())));
    const context = await readModulesContext(call());
    expect(context.error?.code).toBe(code);
    expect(context.data === undefined).toBe(code !== undefined);
  });
});

describe('the receipt list follows nextCursor (Endpoints: at most 20 a page, no offset or limit)', () => {
  it('reads every page of a real principal with 21 receipts', async () => {
    const wallet = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
    const listKey = s.key({ wallet, scopes: ['modules:submit', 'modules:read'] });
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) {
      const bytes = Buffer.from(
        JSON.stringify({
          ...moduleSubmission(wallet),
          descriptor: { ...moduleSubmission(wallet).descriptor, familySalt: freshFamilySalt() },
        }),
      );
      const sent = await submitWithModuleJournal({
        origin: s.url,
        apiKey: listKey,
        journalPath: journalPath(),
        requestBytes: bytes,
      });
      expect(sent.error, JSON.stringify(sent.error)).toBeUndefined();
      ids.push(sent.data?.receipt.submissionId as string);
    }
    const start = proxy.seen.length;
    const pages: number[] = [];
    const list = await listModuleReceipts(
      { origin: proxy.url, apiKey: listKey },
      { onPage: (_page, items) => pages.push(items) },
    );
    expect(list.error, JSON.stringify(list.error)).toBeUndefined();
    expect(pages).toEqual([20, 1]);
    expect(new Set(list.data?.map((r) => r.submissionId))).toEqual(new Set(ids));
    const paths = seenFrom(start).map((r) => r.path);
    expect(paths[0]).toBe(submissionsPath);
    expect(paths[1]).toMatch(/^\/v1\/modules\/submissions\?cursor=[0-9a-f-]{36}$/);
  });

  it('a nextCursor that repeats an earlier page is MODULE_API_RESPONSE, not a loop', async () => {
    const cursor = randomUUID();
    const receipt = receiptFor(requestBytes());
    proxy.plan('GET', submissionsPath, answer(200, { items: [receipt], nextCursor: cursor }));
    proxy.plan('GET', `${submissionsPath}?cursor=${cursor}`, answer(200, { items: [], nextCursor: cursor }));
    const list = await listModuleReceipts(call());
    expect(list.error?.code).toBe('MODULE_API_RESPONSE');
    expect(list.error?.message).toContain('repeats');
  });
});

describe('review status and export: readiness first, then bound to the receipt (MODULE_REVIEW_RESPONSE)', () => {
  it.each([
    ['statusReadAvailable false', () => answer(200, reviewCapabilities(false))],
    [
      'a 501 from the readiness read',
      () =>
        answer(501, { error: { code: 'NOT_IMPLEMENTED', message: 'x', requestId: randomUUID(), retryable: false } }),
    ],
  ])('%s: MODULE_REVIEW_UNAVAILABLE, and no key is sent', async (_name, readiness) => {
    const id = randomUUID();
    for (const read of [fetchModuleReviewStatus, fetchModuleReviewExport]) {
      const start = proxy.seen.length;
      proxy.plan('GET', reviewCapabilitiesPath, readiness());
      const result = await read(call(), id);
      expect(result.error?.code).toBe('MODULE_REVIEW_UNAVAILABLE');
      const seen = seenFrom(start);
      expect(seen.map((r) => r.path)).toEqual([reviewCapabilitiesPath]);
      expect(seen[0]?.headers.authorization).toBeUndefined();
    }
  });

  it.each([
    ['a status of the asked submission is used', (_r: any) => ({}), undefined],
    ['a status of another submissionId', (_r: any) => ({ submissionId: randomUUID() }), 'MODULE_REVIEW_RESPONSE'],
    ['a status with another packageId', (_r: any) => ({ packageId: `0x${'cc'.repeat(32)}` }), 'MODULE_REVIEW_RESPONSE'],
    ['a status off the schema', (_r: any) => ({ approved: true }), 'MODULE_REVIEW_RESPONSE'],
  ])('review status: %s', async (_name, edit, code) => {
    const receipt = receiptFor(requestBytes());
    const id = receipt.submissionId as string;
    proxy.plan('GET', reviewCapabilitiesPath, answer(200, reviewCapabilities(true)));
    proxy.plan('GET', `${submissionsPath}/${id}`, answer(200, receipt));
    proxy.plan('GET', `${submissionsPath}/${id}/review`, answer(200, reviewStatusFor(receipt, edit(receipt))));
    const result = await fetchModuleReviewStatus(call(), id);
    expect(result.error?.code).toBe(code);
    if (!code) expect(result.data?.review.review.nextAction).toBe('await_review_plan');
  });

  it.each([
    ['an export bound to the receipt is used', (_r: any) => ({}), undefined],
    ['an export of another submissionId', (_r: any) => ({ submissionId: randomUUID() }), 'MODULE_REVIEW_RESPONSE'],
    [
      'an export with another author',
      (_r: any) => ({ author: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }),
      'MODULE_REVIEW_RESPONSE',
    ],
    [
      'an export whose review revision is not the command revision + 1',
      (_r: any) => ({ reviewRevision: 4 }),
      'MODULE_REVIEW_RESPONSE',
    ],
  ])('review export: %s', async (_name, edit, code) => {
    const receipt = receiptFor(requestBytes());
    const id = receipt.submissionId as string;
    proxy.plan('GET', reviewCapabilitiesPath, answer(200, reviewCapabilities(true)));
    proxy.plan('GET', `${submissionsPath}/${id}`, answer(200, receipt));
    proxy.plan('GET', `${submissionsPath}/${id}/review-export`, answer(200, reviewExportFor(receipt, edit(receipt))));
    const result = await fetchModuleReviewExport(call(), id);
    expect(result.error?.code).toBe(code);
  });

  it('a saved receipt binds the review without reading the receipt again', async () => {
    const receipt = receiptFor(requestBytes()) as unknown as ModuleIntakeReceipt;
    const id = receipt.submissionId;
    const start = proxy.seen.length;
    proxy.plan('GET', reviewCapabilitiesPath, answer(200, reviewCapabilities(true)));
    proxy.plan(
      'GET',
      `${submissionsPath}/${id}/review`,
      answer(200, reviewStatusFor(receipt, { familyId: `0x${'dd'.repeat(32)}` })),
    );
    const result = await fetchModuleReviewStatus(call(), id, { receipt });
    expect(result.error?.code).toBe('MODULE_REVIEW_RESPONSE');
    expect(seenFrom(start).map((r) => r.path)).toEqual([reviewCapabilitiesPath, `${submissionsPath}/${id}/review`]);
  });

  it('reads the review status of a real draft from the server', async () => {
    const sent = await submitWithModuleJournal({ ...call(), journalPath: journalPath(), requestBytes: requestBytes() });
    expect(sent.error, JSON.stringify(sent.error)).toBeUndefined();
    const id = sent.data?.receipt.submissionId as string;
    const readiness = (await (await fetch(`${s.url}${reviewCapabilitiesPath}`)).json()) as {
      statusReadAvailable?: boolean;
    };
    const result = await fetchModuleReviewStatus(call(), id);
    if (readiness.statusReadAvailable === true) {
      expect(result.error, JSON.stringify(result.error)).toBeUndefined();
      expect(result.data?.review.submissionId).toBe(id);
    } else {
      expect(result.error?.code).toBe('MODULE_REVIEW_UNAVAILABLE');
    }
  });
});

describe('submitModule: one upload with a pair the caller keeps', () => {
  it('gates, posts the exact bytes with the given key, and returns the bound receipt', async () => {
    const bytes = requestBytes();
    const idempotencyKey = `caller-kept-${randomUUID()}`;
    const start = proxy.seen.length;
    const result = await submitModuleRequest({ ...call(), idempotencyKey, requestBytes: bytes });
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    expect(result.data?.receipt.requestDigest).toBe(requestDigestOf(bytes));
    const post = seenFrom(start).find((r) => r.method === 'POST');
    expect(post?.headers['idempotency-key']).toBe(idempotencyKey);
    expect(post?.body.equals(bytes)).toBe(true);
  });

  it('stops at closed intake with stage capabilities, and refuses a bad request before any request', async () => {
    proxy.plan('GET', capabilitiesPath, answer(200, capabilities({ submissions: false })));
    const closed = await submitModuleRequest({
      ...call(),
      idempotencyKey: `caller-kept-${randomUUID()}`,
      requestBytes: requestBytes(),
    });
    expect(closed.error && 'stage' in closed ? closed.stage : undefined).toBe('capabilities');
    const start = proxy.seen.length;
    const broken = requestBytes((r) => {
      r.descriptor.version = 'not-semver';
    });
    await expect(
      submitModuleRequest({ ...call(), idempotencyKey: `caller-kept-${randomUUID()}`, requestBytes: broken }),
    ).rejects.toThrow(LocalCheckError);
    expect(seenFrom(start)).toEqual([]);
  });
});

describe('types: the client is typed from the spec', () => {
  it('returns generated shapes and refuses wrong calls at compile time', () => {
    type Read = Awaited<ReturnType<typeof fetchModuleReceipt>>;
    expectTypeOf<NonNullable<Read['data']>>().toEqualTypeOf<ModuleIntakeReceipt>();
    // @ts-expect-error an authenticated read needs the key
    void (() => readModulesContext({ origin: proxy.url }));
    // @ts-expect-error a receipt read needs a submissionId
    void (() => fetchModuleReceipt(call()));
  });
});
