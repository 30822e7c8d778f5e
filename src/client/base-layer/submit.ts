import type { CustomLaunchResourceV3 } from '../../../generated/types/service.ts';
import { type JournalSubmitOptions, type JournalSubmitResult, submitJournalBytes } from '../core/journal-submit.ts';
import { type BaseLayerSubmitJournalV1, saveBaseLayerJournal } from './journal.ts';

/** The V3 create path (spec/openapi/paths/v3-custom-launches.yaml). */
export const baseLayerCreatePath = '/v3/custom-launches';

/** How a V3 submission ended (core/journal-submit.ts JournalSubmitResult). */
export type BaseLayerSubmitResult = JournalSubmitResult<CustomLaunchResourceV3>;

export type BaseLayerSubmitOptions = JournalSubmitOptions<BaseLayerSubmitJournalV1>;

/**
 * Submits the V3 journal's exact bytes with its idempotency key to its origin
 * (spec/openapi/paths/v3-custom-launches.yaml, createCustomLaunchV3), under the same resend and journal rules as the
 * V4 submit (core/journal-submit.ts submitJournalBytes).
 */
export function submitBaseLayerWithJournal(options: BaseLayerSubmitOptions): Promise<BaseLayerSubmitResult> {
  return submitJournalBytes<BaseLayerSubmitJournalV1, CustomLaunchResourceV3>(
    { createPath: baseLayerCreatePath, save: saveBaseLayerJournal },
    options,
  );
}
