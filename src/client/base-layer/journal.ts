import type { BaseLayerSubmitJournalV1 } from '../../../generated/schemas/launch-submit-journal-v3.v1.ts';
import { createJournalFile, openJournalFile, replaceJournalFile, submitJournalBinding } from '../core/journal-file.ts';

export type { BaseLayerSubmitJournalV1 };

/**
 * Writes the V3 submit journal (spec/schemas/launch-submit-journal-v3.v1.schema.json) durably before the first
 * request: created exclusively with mode 0600, fsynced, directory fsynced. Binds the origin, a fresh idempotency key
 * and the exact bytes, as the V4 journal does.
 */
export function createBaseLayerJournal(
  path: string,
  input: { origin: string; apiKey: string; bytes: Uint8Array; now: number },
): BaseLayerSubmitJournalV1 {
  const doc: BaseLayerSubmitJournalV1 = {
    schemaVersion: 'platform.custom-launch-submit-journal-v3.v1',
    apiVersion: 3,
    chainId: '1',
    ...submitJournalBinding(input),
  };
  createJournalFile(path, doc);
  return doc;
}

/** Replaces the V3 journal atomically (temporary file with mode 0600, fsync, rename, directory fsync). */
export function saveBaseLayerJournal(path: string, doc: BaseLayerSubmitJournalV1): void {
  replaceJournalFile(path, doc);
}

/**
 * Reads a V3 journal back: mode 0600, its schema (a V4 journal is refused: its bytes belong to another lane), and
 * bytes that match their digest. Returns the document and the exact request bytes.
 */
export function openBaseLayerJournal(path: string): { doc: BaseLayerSubmitJournalV1; bytes: Buffer } {
  return openJournalFile<BaseLayerSubmitJournalV1>(path, 'launch-submit-journal-v3.v1.schema.json', {
    notJson: 'is not a V3 submit journal: not JSON',
    offSchema: (problems) => `is not a V3 submit journal: ${problems.join('; ')}`,
  });
}
