import type {
  ModuleSubmitJournalAttempt,
  ModuleSubmitJournalV1,
} from '../../../generated/schemas/module-submit-journal.v1.ts';
import {
  bytesDigest,
  createJournalFile,
  credentialFingerprint,
  newIdempotencyKey,
  openJournalFile,
  replaceJournalFile,
} from '../core/journal-file.ts';

/**
 * The module submit journal: one private file (mode 0600) that binds one Idempotency-Key to the exact request bytes
 * and the origin before the first upload, so a submission that may exist (a timeout, a network failure, an error
 * with `submissionMayExist: true`) is retried only as that pair and a new key is never made for the same request.
 * Project design, after the launch journal (src/client/launches/journal.ts); it holds a fingerprint of the key, never
 * the key. The document is generated from spec/schemas/module-submit-journal.v1.schema.json.
 */
export type ModuleSubmitJournal = ModuleSubmitJournalV1;
export type ModuleSubmitAttempt = ModuleSubmitJournalAttempt;

const journalVersion = 'platform.custom-launch.module-submit-journal.v1' as const;
const maxAttempts = 200;

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
  createJournalFile(path, doc);
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
  return openJournalFile<ModuleSubmitJournal>(path, 'module-submit-journal.v1.schema.json', {
    notJson: 'is not a module journal: not JSON',
    offSchema: (problems) => `is not a module submit journal (${journalVersion}): ${problems[0]}`,
  });
}
