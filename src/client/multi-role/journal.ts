import type { MultiRoleSubmitJournalV1 } from '../../../generated/schemas/multi-role-submit-journal.v1.ts';
import { createJournalFile, openJournalFile, replaceJournalFile, submitJournalBinding } from '../core/journal-file.ts';

export type { MultiRoleSubmitJournalV1 };

/**
 * Writes the shared-lane submit journal (spec/schemas/multi-role-submit-journal.v1.schema.json) durably before the
 * first request: created exclusively with mode 0600, fsynced, directory fsynced. Binds the origin, a fresh idempotency
 * key and the exact bytes, as the V4 and V3 journals do.
 */
export function createMultiRoleJournal(
  path: string,
  input: { origin: string; apiKey: string; bytes: Uint8Array; now: number },
): MultiRoleSubmitJournalV1 {
  const doc: MultiRoleSubmitJournalV1 = {
    schemaVersion: 'platform.multi-role-custom-launch-submit-journal.v1',
    apiVersion: 4,
    chainId: '4663',
    ...submitJournalBinding(input),
  };
  createJournalFile(path, doc);
  return doc;
}

/** Replaces the shared-lane journal atomically (temporary file with mode 0600, fsync, rename, directory fsync). */
export function saveMultiRoleJournal(path: string, doc: MultiRoleSubmitJournalV1): void {
  replaceJournalFile(path, doc);
}

/**
 * Reads a shared-lane journal back: mode 0600, its schema (a V4 or V3 journal is refused: its bytes belong to another
 * lane), and bytes that match their digest. Returns the document and the exact request bytes.
 */
export function openMultiRoleJournal(path: string): { doc: MultiRoleSubmitJournalV1; bytes: Buffer } {
  return openJournalFile<MultiRoleSubmitJournalV1>(path, 'multi-role-submit-journal.v1.schema.json', {
    notJson: 'is not a shared-lane submit journal: not JSON',
    offSchema: (problems) => `is not a shared-lane submit journal: ${problems.join('; ')}`,
  });
}
