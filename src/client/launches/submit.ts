import type { CustomLaunchResourceV4 } from '../../../generated/types/service.ts';
import { type JournalSubmitOptions, type JournalSubmitResult, submitJournalBytes } from '../core/journal-submit.ts';
import { type LaunchSubmitJournalV1, saveJournal } from './journal.ts';

/** The V4 create path, pinned to API version 4 and chain 4663. */
export const createPath = '/v4/chains/4663/custom-launches';

/** How a V4 submission ended (core/journal-submit.ts JournalSubmitResult). */
export type SubmitResult = JournalSubmitResult<CustomLaunchResourceV4>;

export type SubmitOptions = JournalSubmitOptions<LaunchSubmitJournalV1>;

/**
 * Submits the V4 journal's exact bytes with its idempotency key to its origin
 * (spec/openapi/paths/v4-custom-launches.yaml, createCustomLaunchV4), under the resend and journal rules of
 * core/journal-submit.ts submitJournalBytes.
 */
export function submitWithJournal(options: SubmitOptions): Promise<SubmitResult> {
  return submitJournalBytes<LaunchSubmitJournalV1, CustomLaunchResourceV4>({ createPath, save: saveJournal }, options);
}
