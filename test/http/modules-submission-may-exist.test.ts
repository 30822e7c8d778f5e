import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitWithModuleJournal } from '../../src/client/modules/index.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { moduleAuthor, moduleSubmission } from '../support/modules.ts';
import { startServer, type TestServer } from '../support/server.ts';

/**
 * submissionMayExist on every error of submitModuleRequest (modules-subkeys-developer-api.md Errors; spec submitModule):
 * false where the draft certainly was not stored (refused before the write or rolled back with it), true on a bounded
 * 500 after the write began; the module client keeps the Idempotency-Key and the exact bytes as a pair when true.
 * The 500 comes from the real SQLite store: a trigger makes the review job insert of the write transaction fail.
 */
const otherWallet = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
let s: TestServer;
let key: string;
let dir: string;
let seq = 0;
const idem = () => `may-exist-${Date.now()}-${++seq}`;
const submit = (body: string, headers: Record<string, string> = {}, k = key): Promise<Reply> =>
  call(`${s.url}/v1/modules/submissions`, {
    method: 'POST',
    headers: auth(k, { 'Idempotency-Key': idem(), ...headers }),
    body,
  });
const drafts = () => (s.db.prepare('SELECT count(*) AS n FROM module_submissions').get() as { n: number }).n;
const breakReviewJobs = () =>
  s.db.exec(
    "CREATE TRIGGER fail_review_job BEFORE INSERT ON module_reviews BEGIN SELECT RAISE(ABORT, 'injected store failure'); END",
  );
const repairReviewJobs = () => s.db.exec('DROP TRIGGER fail_review_job');

beforeAll(async () => {
  s = await startServer();
  key = s.key({ wallet: moduleAuthor, scopes: ['modules:submit', 'modules:read'] });
  dir = mkdtempSync(join(tmpdir(), 'may-exist-'));
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the server reports submissionMayExist on every submit error', () => {
  it.each([
    ['a schema refusal (400 INVALID_REQUEST)', () => submit('{"format":"nope"}'), 400, 'INVALID_REQUEST'],
    ['malformed JSON (400 MALFORMED_JSON)', () => submit('{'), 400, 'MALFORMED_JSON'],
    [
      'no key (401 AUTHENTICATION_REQUIRED)',
      () =>
        call(`${s.url}/v1/modules/submissions`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idem() },
          body: JSON.stringify(moduleSubmission()),
        }),
      401,
      'AUTHENTICATION_REQUIRED',
    ],
    [
      'a rule refusal (403 MODULE_AUTHOR_MISMATCH)',
      () => submit(JSON.stringify(moduleSubmission(otherWallet))),
      403,
      'MODULE_AUTHOR_MISMATCH',
    ],
  ])('%s: submissionMayExist false, nothing stored', async (_name, send, status, code) => {
    const before = drafts();
    const r = await send();
    expect(r.status, r.text).toBe(status);
    expect(r.json.error.code).toBe(code);
    expect(r.json.error.submissionMayExist).toBe(false);
    expect(drafts()).toBe(before);
  });

  it('an identity conflict inside the write transaction (409) is false: it rolled back', async () => {
    const first = moduleSubmission();
    expect((await submit(JSON.stringify(first))).status).toBe(201);
    const before = drafts();
    const again = await submit(JSON.stringify(first));
    expect(again.status, again.text).toBe(409);
    expect(again.json.error).toMatchObject({ code: 'MODULE_VERSION_ALREADY_SUBMITTED', submissionMayExist: false });
    // The same key with other bytes: refused before the write.
    const k = idem();
    expect((await submit(JSON.stringify(moduleSubmission()), { 'Idempotency-Key': k })).status).toBe(201);
    const conflict = await submit(JSON.stringify(moduleSubmission()), { 'Idempotency-Key': k });
    expect(conflict.json.error).toMatchObject({ code: 'MODULE_IDEMPOTENCY_CONFLICT', submissionMayExist: false });
    expect(drafts()).toBe(before + 1);
  });

  it('a store failure during the write is a bounded 500 with submissionMayExist true; the same pair then stores it', async () => {
    const body = JSON.stringify(moduleSubmission());
    const k = idem();
    breakReviewJobs();
    let failed: Reply;
    try {
      failed = await submit(body, { 'Idempotency-Key': k });
    } finally {
      repairReviewJobs();
    }
    expect(failed.status, failed.text).toBe(500);
    expect(failed.json.error).toMatchObject({ code: 'INTERNAL', retryable: false, submissionMayExist: true });
    expect(failed.text).not.toContain('injected store failure');
    const retried = await submit(body, { 'Idempotency-Key': k });
    expect(retried.status, retried.text).toBe(201);
    expect(retried.json.error).toBeUndefined();
    // An exact replay answers the receipt, never an error field.
    const replay = await submit(body, { 'Idempotency-Key': k });
    expect(replay.status).toBe(200);
    expect(replay.json.submissionId).toBe(retried.json.submissionId);
  });

  it('the other module routes carry no submissionMayExist', async () => {
    const r = await call(`${s.url}/v1/modules/submissions/00000000-0000-4000-8000-000000000000`, {
      headers: auth(key),
    });
    expect(r.status).toBe(404);
    expect(r.json.error.submissionMayExist).toBeUndefined();
  });
});

describe('the module client keeps the pair when the server says the draft may exist', () => {
  it('true: the journal stays pending with the key and bytes; the rerun sends the same pair and gets the draft', async () => {
    const bytes = Buffer.from(JSON.stringify(moduleSubmission()));
    const journalPath = join(dir, 'true.json');
    breakReviewJobs();
    let first: Awaited<ReturnType<typeof submitWithModuleJournal>>;
    try {
      first = await submitWithModuleJournal({ origin: s.url, apiKey: key, journalPath, requestBytes: bytes });
    } finally {
      repairReviewJobs();
    }
    expect(first.error).toMatchObject({ code: 'INTERNAL', source: 'service', submissionMayExist: true });
    const journal = JSON.parse(readFileSync(journalPath, 'utf8'));
    expect(journal.outcome).toMatchObject({ state: 'pending', submissionMayExist: true, code: 'INTERNAL' });
    expect(Buffer.from(journal.requestBytesBase64, 'base64').equals(bytes)).toBe(true);
    const before = drafts();
    const again = await submitWithModuleJournal({ origin: s.url, apiKey: key, journalPath });
    expect(again.error, JSON.stringify(again.error)).toBeUndefined();
    expect(again.data?.httpStatus).toBe(201);
    expect(again.data?.journal.idempotencyKey).toBe(journal.idempotencyKey);
    expect(drafts()).toBe(before + 1);
  });

  it('false: a refusal before the write ends the journal as refused; a rerun sends nothing', async () => {
    const bytes = Buffer.from(JSON.stringify(moduleSubmission()));
    const journalPath = join(dir, 'false.json');
    const otherKey = s.key({ wallet: otherWallet, scopes: ['modules:submit'] });
    const first = await submitWithModuleJournal({ origin: s.url, apiKey: otherKey, journalPath, requestBytes: bytes });
    expect(first.error).toMatchObject({ code: 'MODULE_AUTHOR_MISMATCH', submissionMayExist: false });
    expect(existsSync(journalPath)).toBe(true);
    expect(JSON.parse(readFileSync(journalPath, 'utf8')).outcome).toMatchObject({
      state: 'refused',
      submissionMayExist: false,
    });
  });
});
