import type { LaunchSubmitJournalV1 } from '../../../generated/schemas/launch-submit-journal.v1.ts';
import { createJournalFile, openJournalFile, replaceJournalFile, submitJournalBinding } from '../core/journal-file.ts';

export type { LaunchSubmitJournalV1 };

/**
 * Writes the journal durably before the first request: created exclusively with mode 0600, fsynced, directory
 * fsynced. Binds the origin, a fresh idempotency key and the exact bytes.
 */
export function createJournal(
  path: string,
  input: { origin: string; apiKey: string; bytes: Uint8Array; now: number },
): LaunchSubmitJournalV1 {
  const doc: LaunchSubmitJournalV1 = {
    schemaVersion: 'platform.custom-launch-submit-journal.v1',
    apiVersion: 4,
    chainId: '4663',
    ...submitJournalBinding(input),
  };
  createJournalFile(path, doc);
  return doc;
}

/** Replaces the journal atomically (temporary file with mode 0600, fsync, rename, directory fsync). */
export function saveJournal(path: string, doc: LaunchSubmitJournalV1): void {
  replaceJournalFile(path, doc);
}

/**
 * Reads a journal back: it must be mode 0600 (no group or other access), match its schema, and its bytes must match
 * their digest. Returns the document and the exact request bytes.
 */
export function openJournal(path: string): { doc: LaunchSubmitJournalV1; bytes: Buffer } {
  return openJournalFile<LaunchSubmitJournalV1>(path, 'launch-submit-journal.v1.schema.json', {
    notJson: 'is not a journal: not JSON',
    offSchema: (problems) => `is not a journal: ${problems.join('; ')}`,
  });
}
