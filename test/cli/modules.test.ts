import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodes } from '../../src/cli/exit-codes.ts';
import { type CliRun, runCli } from '../support/cli.ts';
import { closeLoopback, listenLoopback } from '../support/http.ts';
import { freshFamilySalt, moduleSubmission, reviewExportFor } from '../support/modules.ts';
import { type LoopbackProxy, startProxy } from '../support/proxy.ts';
import { startServer, type TestServer } from '../support/server.ts';

/**
 * `custom-launch modules …` run as a user runs it (the package bin, a child process) against a real
 * server over real HTTP, through the recording loopback proxy that injects or rewrites answers and proves what was
 * or was not sent. Exit codes: usage 2, local check 3, intake or review unavailable 4, refused 5, unresolved 6.
 */
const MiB = 1_048_576;
const capabilitiesPath = '/v1/modules/capabilities';
const reviewCapabilitiesPath = '/v1/modules/review-capabilities';
const submissionsPath = '/v1/modules/submissions';
const formats = {
  contract: 'platform.modules.api.v0.1',
  submissionFormat: 'platform.modules.submission.v0.1',
  descriptorFormat: 'platform.classic.source-package.v0.1',
};

let s: TestServer;
let proxy: LoopbackProxy;
let key: string;
let dir: string;
let env: Record<string, string>;
let serial = 0;
const runs: CliRun[] = [];

beforeAll(async () => {
  s = await startServer();
  key = s.key({ scopes: ['modules:submit', 'modules:read'] });
  proxy = await startProxy(() => s.url);
  dir = mkdtempSync(join(tmpdir(), 'modules-cli-'));
  env = { PLATFORM_API_KEY: key, CUSTOM_LAUNCH_ORIGIN: proxy.url };
});
afterAll(async () => {
  await proxy?.close();
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = async (args: string[], environment: Record<string, string> = env) => {
  const run = await runCli(['modules', ...args], environment);
  runs.push(run);
  return run;
};
const fresh = (name: string) => join(dir, `${name}-${++serial}.json`);
/** A request file of a fresh package family; returns its path and exact bytes. */
function requestFile(edit: (r: ReturnType<typeof moduleSubmission>) => void = () => {}) {
  const r = moduleSubmission();
  r.descriptor.familySalt = freshFamilySalt();
  edit(r);
  const path = fresh('request');
  const bytes = Buffer.from(JSON.stringify(r, null, 2));
  writeFileSync(path, bytes);
  return { path, bytes };
}
const seenFrom = (start: number) => proxy.seen.slice(start);
const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  kind: 'answer' as const,
  status,
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const capabilities = (edit: Record<string, unknown> = {}) => ({
  moduleContributions: { submissions: true, apiKeyIssuance: false, ...formats, ...edit },
  reviewAvailable: false,
  approved: false,
  available: false,
});
const expectExit = (run: CliRun, exit: keyof typeof exitCodes, code?: string) => {
  expect(run.code, run.stderr).toBe(exitCodes[exit].code);
  if (code) expect(run.stderr).toContain(code);
};
/** Submits a fresh request straight to the server (not through the proxy) and returns its receipt. */
async function draft(): Promise<Record<string, any>> {
  const { path } = requestFile();
  const run = await cli(['submit', path, '--journal', fresh('journal'), '--json'], {
    ...env,
    CUSTOM_LAUNCH_ORIGIN: s.url,
  });
  expect(run.code, run.stderr).toBe(0);
  return run.json.receipt;
}

describe('usage: refused before anything is sent (exit 2)', () => {
  it.each([
    ['--timeout-ms 0', ['capabilities', '--timeout-ms', '0']],
    ['--timeout-ms 120001', ['capabilities', '--timeout-ms', '120001']],
    ['no modules command', []],
    ['an unknown modules command', ['publish']],
    ['a receipt id that is no UUID', ['receipt', 'abc']],
    ['submit without --journal', ['submit', 'request.json']],
    ['export without --out', ['export', '00000000-0000-4000-8000-000000000000']],
    ['--journal outside submit', ['list', '--journal', 'j.json']],
    ['an option of another command', ['list', '--max-wait', '5']],
    ['a key on the command line', ['context', '--api-key', 'clk_x']],
  ])('%s', async (_name, args) => {
    const start = proxy.seen.length;
    expectExit(await cli(args), 'usage');
    expect(seenFrom(start)).toEqual([]);
  });

  it('no key in the environment', async () => {
    const run = await cli(['context'], { CUSTOM_LAUNCH_ORIGIN: proxy.url });
    expectExit(run, 'usage');
    expect(run.stderr).toContain('PLATFORM_MODULES_API_KEY');
  });

  it('an origin the rule refuses', async () => {
    expectExit(await cli(['capabilities'], { ...env, CUSTOM_LAUNCH_ORIGIN: 'http://modules.example' }), 'usage');
  });

  it('an export --out that exists', async () => {
    const out = fresh('exists');
    writeFileSync(out, 'x');
    const start = proxy.seen.length;
    expectExit(await cli(['export', randomUUID(), '--out', out]), 'usage');
    expect(seenFrom(start)).toEqual([]);
  });
});

describe('--timeout-ms: 1 and 120000 are accepted (Limits)', () => {
  it('1 ms is used: a silent origin ends in MODULE_API_TIMEOUT (exit 6)', async () => {
    const silent = await listenLoopback();
    try {
      const run = await cli(['capabilities', '--timeout-ms', '1'], { ...env, CUSTOM_LAUNCH_ORIGIN: silent.url });
      expectExit(run, 'unresolved', 'MODULE_API_TIMEOUT');
      expect(run.stderr).toContain('within 1 ms');
    } finally {
      await closeLoopback(silent.server);
    }
  });

  it('120000 ms is used: the read succeeds', async () => {
    expectExit(await cli(['capabilities', '--timeout-ms', '120000']), 'ok');
  });
});

describe('the key comes only from the environment', () => {
  it('both variables with different values: MODULE_API_KEY_CONFLICT (exit 2), and no request is sent', async () => {
    const { path } = requestFile();
    const journal = fresh('journal');
    const start = proxy.seen.length;
    const run = await cli(['submit', path, '--journal', journal], {
      ...env,
      PLATFORM_MODULES_API_KEY: s.key({ scopes: ['modules:submit', 'modules:read'] }),
    });
    expectExit(run, 'usage', 'MODULE_API_KEY_CONFLICT');
    expect(seenFrom(start)).toEqual([]);
    expect(existsSync(journal)).toBe(false);
  });

  it.each([
    ['both variables with the same value', { PLATFORM_MODULES_API_KEY: 'same' }],
    ['PLATFORM_MODULES_API_KEY alone', { PLATFORM_API_KEY: '', PLATFORM_MODULES_API_KEY: 'same' }],
  ])('%s: the key is used', async (_name, extra) => {
    const environment = { ...env, ...extra };
    if (environment.PLATFORM_MODULES_API_KEY === 'same') environment.PLATFORM_MODULES_API_KEY = key;
    const start = proxy.seen.length;
    const run = await cli(['context', '--json'], environment);
    expectExit(run, 'ok');
    expect(run.json.authorization.canSubmit).toBe(true);
    expect(seenFrom(start)[0]?.headers.authorization).toBe(`Bearer ${key}`);
  });
});

describe('capabilities and response size', () => {
  it('prints the public capabilities, read without a key', async () => {
    const start = proxy.seen.length;
    const run = await cli(['capabilities']);
    expectExit(run, 'ok');
    expect(run.stdout).toContain('module submissions: open');
    expect(seenFrom(start)[0]?.headers.authorization).toBeUndefined();
  });

  it.each([
    ['exactly 1,048,576 bytes', MiB, 'ok'],
    ['1,048,577 bytes: MODULE_API_RESPONSE (exit 5)', MiB + 1, 'refused'],
  ] as const)('%s', async (_name, size, exit) => {
    const text = JSON.stringify(capabilities());
    proxy.plan('GET', capabilitiesPath, answer(200, text + ' '.repeat(size - text.length)));
    const run = await cli(['capabilities', '--json']);
    expectExit(run, exit, exit === 'refused' ? 'MODULE_API_RESPONSE' : undefined);
  });

  it('a redirect on a read is refused: MODULE_API_NETWORK (exit 5)', async () => {
    proxy.plan('GET', capabilitiesPath, answer(307, '', { Location: `${s.url}${capabilitiesPath}` }));
    expectExit(await cli(['capabilities']), 'refused', 'MODULE_API_NETWORK');
  });

  it('no connection: MODULE_API_NETWORK (exit 6)', async () => {
    const silent = await listenLoopback();
    const origin = silent.url;
    await closeLoopback(silent.server);
    expectExit(await cli(['list'], { ...env, CUSTOM_LAUNCH_ORIGIN: origin }), 'unresolved', 'MODULE_API_NETWORK');
  });
});

describe('submit', () => {
  const posts = (start: number) => seenFrom(start).filter((r) => r.method === 'POST' && r.path === submissionsPath);

  it('uploads the exact bytes (201), and the same journal replays them with the same key (200)', async () => {
    const { path, bytes } = requestFile();
    const journal = fresh('journal');
    const start = proxy.seen.length;
    const first = await cli(['submit', path, '--journal', journal, '--json']);
    expectExit(first, 'ok');
    expect(first.json.httpStatus).toBe(201);
    expect(first.json.receipt).toMatchObject({ status: 'draft_received', reviewStatus: 'unreviewed' });
    expect(statSync(journal).mode & 0o777).toBe(0o600);
    const human = await cli(['submit', '--journal', journal]);
    expectExit(human, 'ok');
    expect(human.stdout).toContain(`already received (exact replay): submission ${first.json.receipt.submissionId}`);
    const sent = posts(start);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.headers['idempotency-key']).toBe(sent[0]?.headers['idempotency-key']);
    expect(sent.every((p) => p.body.equals(bytes))).toBe(true);
  });

  it.each([
    ['submissions false', { submissions: false }],
    ['another submission format', { submissionFormat: 'platform.modules.submission.v0.2' }],
  ])('%s: MODULE_SUBMISSIONS_UNAVAILABLE (exit 4), neither key nor source sent', async (_name, edit) => {
    const { path } = requestFile();
    const journal = fresh('journal');
    const start = proxy.seen.length;
    proxy.plan('GET', capabilitiesPath, answer(200, capabilities(edit)));
    const run = await cli(['submit', path, '--journal', journal]);
    expectExit(run, 'discoveryStop', 'MODULE_SUBMISSIONS_UNAVAILABLE');
    expect(run.stderr).toContain('neither the key nor any source was sent');
    expect(seenFrom(start).map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
      ['GET', capabilitiesPath, undefined],
    ]);
    expect(existsSync(journal)).toBe(false);
  });

  it('a POST without an answer in time: MODULE_API_TIMEOUT (exit 6); rerunning the journal finds the draft', async () => {
    const { path, bytes } = requestFile();
    const journal = fresh('journal');
    const start = proxy.seen.length;
    proxy.plan('POST', submissionsPath, { kind: 'forward-and-hold', onServerAnswer: () => {} });
    const first = await cli(['submit', path, '--journal', journal, '--timeout-ms', '2000']);
    expectExit(first, 'unresolved', 'MODULE_API_TIMEOUT');
    expect(first.stderr).toContain('the submission may exist');
    expect(first.stderr).toContain(`custom-launch modules submit --journal ${journal}`);
    const again = await cli(['submit', '--journal', journal, '--json']);
    expectExit(again, 'ok');
    expect(again.json.httpStatus).toBe(200);
    const sent = posts(start);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.headers['idempotency-key']).toBe(sent[0]?.headers['idempotency-key']);
    expect(sent.every((p) => p.body.equals(bytes))).toBe(true);
  });

  it('a redirect of the POST: MODULE_API_NETWORK (exit 6), the submission may exist', async () => {
    const { path } = requestFile();
    proxy.plan('POST', submissionsPath, answer(307, '', { Location: `${s.url}${submissionsPath}` }));
    const run = await cli(['submit', path, '--journal', fresh('journal')]);
    expectExit(run, 'unresolved', 'MODULE_API_NETWORK');
    expect(run.stderr).toContain('may exist');
  });

  it('a receipt that does not bind the request: MODULE_API_RECEIPT_MISMATCH (exit 6)', async () => {
    const { path } = requestFile();
    const journal = fresh('journal');
    proxy.plan('POST', submissionsPath, { kind: 'rewrite', edit: (json) => ({ ...json, version: '9.9.9' }) });
    const run = await cli(['submit', path, '--journal', journal]);
    expectExit(run, 'unresolved', 'MODULE_API_RECEIPT_MISMATCH');
    expect(JSON.parse(readFileSync(journal, 'utf8')).outcome).toMatchObject({
      state: 'pending',
      submissionMayExist: true,
    });
  });

  it('a service refusal: exit 5 with its code', async () => {
    const { path } = requestFile((r) => {
      r.descriptor.author = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
      r.descriptor.rewardWallet = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    });
    expectExit(await cli(['submit', path, '--journal', fresh('journal')]), 'refused', 'MODULE_AUTHOR_MISMATCH');
  });

  it('a request whose bytes do not match their hash fails locally (exit 3); nothing is sent', async () => {
    const { path } = requestFile((r) => {
      const file = r.files[0];
      if (file) file.bytes = Buffer.from('changed').toString('base64');
    });
    const start = proxy.seen.length;
    const run = await cli(['submit', path, '--journal', fresh('journal')]);
    expectExit(run, 'localCheck', 'MODULE_FILE_HASH');
    expect(seenFrom(start)).toEqual([]);
  });
});

describe('context, receipts and the list', () => {
  it('context: an inconsistent answer is MODULE_CONTEXT_RESPONSE (exit 5)', async () => {
    proxy.plan('GET', '/v1/modules/context', {
      kind: 'rewrite',
      edit: (json) => ({ ...json, identity: { ...json.identity, author: 'alice' } }),
    });
    expectExit(await cli(['context']), 'refused', 'MODULE_CONTEXT_RESPONSE');
  });

  it('receipt and list read the drafts of the key', async () => {
    const receipt = await draft();
    const one = await cli(['receipt', receipt.submissionId, '--json']);
    expectExit(one, 'ok');
    expect(one.json).toEqual(receipt);
    const all = await cli(['list', '--json']);
    expectExit(all, 'ok');
    expect(all.json.items.map((r: { submissionId: string }) => r.submissionId)).toContain(receipt.submissionId);
  });

  it('a receipt of another submission: MODULE_API_RECEIPT_MISMATCH (exit 5)', async () => {
    const receipt = await draft();
    proxy.plan('GET', `${submissionsPath}/${receipt.submissionId}`, {
      kind: 'rewrite',
      edit: (json) => ({ ...json, submissionId: randomUUID() }),
    });
    expectExit(await cli(['receipt', receipt.submissionId]), 'refused', 'MODULE_API_RECEIPT_MISMATCH');
  });
});

describe('review and export', () => {
  const readiness = (statusReadAvailable: boolean) => ({
    schemaVersion: 'platform.modules.review-capabilities.v1',
    reviewAvailable: false,
    statusReadAvailable,
    reviewerPolicyDigest: null,
    workerSourceCommit: null,
    workerAuthorityReady: false,
    databaseReady: statusReadAvailable,
    approved: false,
    available: false,
  });

  it('review readiness says no: MODULE_REVIEW_UNAVAILABLE (exit 4), and the key is not sent', async () => {
    const id = randomUUID();
    const start = proxy.seen.length;
    proxy.plan('GET', reviewCapabilitiesPath, answer(200, readiness(false)));
    const run = await cli(['review', id]);
    expectExit(run, 'discoveryStop', 'MODULE_REVIEW_UNAVAILABLE');
    expect(seenFrom(start).map((r) => [r.path, r.headers.authorization])).toEqual([
      [reviewCapabilitiesPath, undefined],
    ]);
  });

  it('reads the review status of a draft; an answer of another submission is MODULE_REVIEW_RESPONSE (exit 5)', async () => {
    const receipt = await draft();
    const id = receipt.submissionId as string;
    proxy.plan('GET', reviewCapabilitiesPath, answer(200, readiness(true)));
    const ok = await cli(['review', id, '--json']);
    expectExit(ok, 'ok');
    expect(ok.json.submissionId).toBe(id);

    proxy.plan('GET', reviewCapabilitiesPath, answer(200, readiness(true)));
    proxy.plan('GET', `${submissionsPath}/${id}/review`, {
      kind: 'rewrite',
      edit: (json) => ({ ...json, submissionId: randomUUID() }),
    });
    expectExit(await cli(['review', id]), 'refused', 'MODULE_REVIEW_RESPONSE');
  });

  it('a draft not yet accepted cannot be exported: the service refuses (exit 5), and no file is written', async () => {
    const receipt = await draft();
    proxy.plan('GET', reviewCapabilitiesPath, answer(200, readiness(true)));
    const out = fresh('not-accepted');
    const run = await cli(['export', receipt.submissionId, '--out', out]);
    expectExit(run, 'refused', 'MODULE_REVIEW_EXPORT_NOT_ACCEPTED');
    expect(existsSync(out)).toBe(false);
  });

  it('exports an accepted build to a new file (mode 0600), byte for byte', async () => {
    const receipt = await draft();
    const id = receipt.submissionId as string;
    const exported = reviewExportFor(receipt);
    const body = JSON.stringify(exported, null, 1);
    proxy.plan('GET', reviewCapabilitiesPath, answer(200, readiness(true)));
    proxy.plan(
      'GET',
      `${submissionsPath}/${id}/review-export`,
      answer(200, body, { 'Cache-Control': 'no-store', Vary: 'Authorization' }),
    );
    const out = join(dir, 'exports', `export-${id}.json`);
    const run = await cli(['export', id, '--out', out]);
    expectExit(run, 'ok');
    expect(readFileSync(out, 'utf8')).toBe(body);
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });
});

describe('the key is never printed', () => {
  it('appears in no output of any run of this file', () => {
    expect(runs.length).toBeGreaterThan(20);
    for (const run of runs) {
      expect(run.stdout).not.toContain(key);
      expect(run.stderr).not.toContain(key);
    }
  });
});
