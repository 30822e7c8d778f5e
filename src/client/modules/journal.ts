import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  bytesDigest,
  credentialFingerprint,
  JournalError,
  newIdempotencyKey,
  readPrivateJournal,
  replaceJournalFile,
  syncDir,
  writeDurably,
} from '../journal.ts';
import type { ModuleIntakeReceipt } from './receipt.ts';

/**
 * The module submit journal: one private file (mode 0600) that binds one Idempotency-Key to the exact request bytes
 * and the origin before the first upload, so a submission that may exist (a timeout, a network failure, an error
 * with `submissionMayExist: true`) is retried only as that pair and a new key is never made for the same request
 * (modules-subkeys-developer-api.md Errors). Project design, after the launch journal (src/client/journal.ts); it
 * holds a fingerprint of the key, never the key.
 */
export interface ModuleSubmitJournal {
  schemaVersion: typeof journalVersion;
  origin: string;
  idempotencyKey: string;
  credentialFingerprint: string;
  /** sha256: of the exact bytes, to detect a damaged file. */
  requestSha256: string;
  requestBytesBase64: string;
  createdAt: string;
  outcome: {
    /** pending: send the pair (again); received: a receipt binds it; refused: a definite refusal, nothing persisted. */
    state: 'pending' | 'received' | 'refused';
    /** Some attempt may have persisted the submission: only this key with these bytes may follow. */
    submissionMayExist: boolean;
    httpStatus: number | null;
    code: string | null;
    requestId: string | null;
    submissionId: string | null;
  };
  receipt: ModuleIntakeReceipt | null;
  attempts: ModuleSubmitAttempt[];
}

/** One upload attempt as the journal records it. */
export interface ModuleSubmitAttempt {
  at: string;
  result: 'answer' | 'no_answer';
  httpStatus: number | null;
  code: string | null;
  requestId: string | null;
}

export const journalVersion = 'platform.custom-launch.module-submit-journal.v1';
const _fileMode = 0o600;
const maxAttempts = 200;
const idempotencyKeyPattern = /^[A-Za-z0-9._:-]{16,128}$/;

/**
 * Creates the journal exclusively (mode 0600, fsynced, directory fsynced) before the first upload, with a fresh
 * Idempotency-Key bound to the exact bytes and the origin. An existing path is refused, never overwritten.
 */
export function createModuleJournal(
  path: string,
  input: { origin: string; apiKey: string; bytes: Uint8Array; now: number },
): ModuleSubmitJournal {
  const doc: ModuleSubmitJournal = {
    schemaVersion: journalVersion,
    origin: input.origin,
    idempotencyKey: newIdempotencyKey(),
    credentialFingerprint: credentialFingerprint(input.apiKey),
    requestSha256: bytesDigest(input.bytes),
    requestBytesBase64: Buffer.from(input.bytes).toString('base64'),
    createdAt: new Date(input.now).toISOString(),
    outcome: {
      state: 'pending',
      submissionMayExist: false,
      httpStatus: null,
      code: null,
      requestId: null,
      submissionId: null,
    },
    receipt: null,
    attempts: [],
  };
  try {
    mkdirSync(dirname(resolve(path)), { recursive: true });
    writeDurably(path, `${JSON.stringify(doc, null, 2)}\n`, 'wx');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new JournalError(`${path} already exists`);
    throw new JournalError(`cannot write the journal ${path}: ${code ?? (err as Error).message}`);
  }
  syncDir(path);
  return doc;
}

/** Replaces the journal atomically (temporary file of mode 0600, fsync, rename, directory fsync). */
export function saveModuleJournal(path: string, doc: ModuleSubmitJournal): void {
  if (doc.attempts.length > maxAttempts) doc.attempts.splice(0, doc.attempts.length - maxAttempts);
  replaceJournalFile(path, doc);
}

/**
 * Reads a journal back: mode 0600, the module journal's shape, and bytes that match their digest. Returns the
 * document and the exact request bytes; throws JournalError (nothing is sent; the CLI exits 2).
 */
export function openModuleJournal(path: string): { doc: ModuleSubmitJournal; bytes: Buffer } {
  const text = readPrivateJournal(path);
  let doc: Partial<ModuleSubmitJournal>;
  try {
    doc = JSON.parse(text) as Partial<ModuleSubmitJournal>;
  } catch {
    throw new JournalError(`${path} is not a module journal: not JSON`);
  }
  const outcome = doc?.outcome;
  if (
    doc?.schemaVersion !== journalVersion ||
    typeof doc.origin !== 'string' ||
    typeof doc.idempotencyKey !== 'string' ||
    !idempotencyKeyPattern.test(doc.idempotencyKey) ||
    typeof doc.credentialFingerprint !== 'string' ||
    typeof doc.requestSha256 !== 'string' ||
    typeof doc.requestBytesBase64 !== 'string' ||
    !Array.isArray(doc.attempts) ||
    !outcome ||
    !['pending', 'received', 'refused'].includes(outcome.state) ||
    typeof outcome.submissionMayExist !== 'boolean'
  ) {
    throw new JournalError(`${path} is not a module submit journal (${journalVersion})`);
  }
  const bytes = Buffer.from(doc.requestBytesBase64, 'base64');
  if (bytesDigest(bytes) !== doc.requestSha256) {
    throw new JournalError(`${path}: the request bytes do not match requestSha256; the journal is damaged`);
  }
  return { doc: doc as ModuleSubmitJournal, bytes };
}
