import type { MultiRoleCustomLaunchResourceV2 } from '../../../generated/types/service.ts';
import { type JournalSubmitOptions, type JournalSubmitResult, submitJournalBytes } from '../core/journal-submit.ts';
import { multiRoleLanePath } from './calls.ts';
import { type MultiRoleSubmitJournalV1, saveMultiRoleJournal } from './journal.ts';

/** How a shared-lane submission ended (core/journal-submit.ts JournalSubmitResult). */
export type MultiRoleSubmitResult = JournalSubmitResult<MultiRoleCustomLaunchResourceV2>;

export type MultiRoleSubmitOptions = JournalSubmitOptions<MultiRoleSubmitJournalV1>;

/**
 * Submits the shared-lane journal's exact bytes with its idempotency key to its origin
 * (spec/openapi/paths/multi-role-custom-launches.yaml, createMultiRoleCustomLaunch), under the same resend and
 * journal rules as the V4 and V3 submits (core/journal-submit.ts submitJournalBytes).
 */
export function submitMultiRoleWithJournal(options: MultiRoleSubmitOptions): Promise<MultiRoleSubmitResult> {
  return submitJournalBytes<MultiRoleSubmitJournalV1, MultiRoleCustomLaunchResourceV2>(
    { createPath: multiRoleLanePath, save: saveMultiRoleJournal },
    options,
  );
}
