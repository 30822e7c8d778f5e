import type { CustomLaunchResourceV3 } from '../../../generated/types/service.ts';
import { seconds, sendResending } from '../core/resend.ts';
import { supportLine, utcNow } from '../core/support.ts';
import { apiErrorOf, type CallOptions, type Refusal, refusalOf } from '../core/transport.ts';
import { attemptRecord } from '../launches/submit.ts';
import { type BaseLayerSubmitJournalV1, saveBaseLayerJournal } from './journal.ts';

/** The V3 create path (spec/openapi/paths/v3-custom-launches.yaml). */
export const baseLayerCreatePath = '/v3/custom-launches';

/**
 * How a V3 submission ended: `data` when accepted (202, or 200 for an exact replay), otherwise `error`: a definite
 * refusal, or `unresolved` (no definite answer before the deadline, a 500, or a redirect: the launch may exist;
 * resume from the journal).
 */
export type BaseLayerSubmitResult =
  | { data: { status: 200 | 202; launch: CustomLaunchResourceV3 }; error?: undefined }
  | { data?: undefined; error: Refusal | { kind: 'unresolved'; reason: string } };

export interface BaseLayerSubmitOptions extends CallOptions {
  journalPath: string;
  journal: BaseLayerSubmitJournalV1;
  bytes: Uint8Array;
  /** Give up (unresolved) when the next attempt would start after this long. */
  maxWaitMs: number;
  sleep?: (ms: number) => Promise<void>;
  /** Progress for a person: each retry and why. */
  onProgress?: (message: string) => void;
}

function record(options: BaseLayerSubmitOptions, attempt: BaseLayerSubmitJournalV1['attempts'][number]): void {
  const { journal } = options;
  journal.attempts.push(attempt);
  if (journal.attempts.length > 1000) journal.attempts.splice(0, journal.attempts.length - 1000);
  saveBaseLayerJournal(options.journalPath, journal);
}

/**
 * Submits the V3 journal's exact bytes with its idempotency key to its origin (spec/openapi/paths/v3-custom-launches.yaml,
 * createCustomLaunchV3), under the V4 submit's rules: a timeout or a failed connection, a 429 and a 503 whose
 * `error.retryable` is true resend the same bytes with the same key after `Retry-After` or a doubling backoff; 202
 * and 200 (exact replay) are `data`; a 500 or a redirect is `unresolved`; any other answer is a refusal. Every
 * attempt and the outcome are written to the journal first.
 */
export async function submitBaseLayerWithJournal(options: BaseLayerSubmitOptions): Promise<BaseLayerSubmitResult> {
  const { journal } = options;
  const resent = await sendResending(
    {
      origin: journal.origin,
      method: 'POST',
      path: baseLayerCreatePath,
      apiKey: options.apiKey,
      headers: { 'Idempotency-Key': journal.idempotencyKey },
      body: options.bytes,
      timeoutMs: options.timeoutMs,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    },
    {
      maxWaitMs: options.maxWaitMs,
      ...(options.now ? { now: options.now } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
      onAttempt: (reply, at) => record(options, attemptRecord(reply, at)),
      onRetry: (attempt, why, waitMs) =>
        options.onProgress?.(
          `attempt ${attempt}: ${why}; resending the same bytes with the same key in ${seconds(waitMs)}`,
        ),
    },
  );
  if (resent.kind === 'gave_up') {
    return {
      error: {
        kind: 'unresolved',
        reason: `still no definite answer after ${resent.attempts} attempts (last: ${resent.why}); the next would pass --max-wait`,
      },
    };
  }
  const { reply } = resent;
  if (reply.kind === 'redirect') {
    return {
      error: {
        kind: 'unresolved',
        reason: `the origin answered ${reply.status} with a redirect; redirects are refused`,
      },
    };
  }
  if (reply.status === 202 || reply.status === 200) {
    const launch = reply.json as CustomLaunchResourceV3;
    journal.outcome = {
      state: 'accepted',
      launchId: launch.launchId,
      httpStatus: reply.status,
      code: null,
      requestId: reply.headers.get('x-request-id'),
    };
    saveBaseLayerJournal(options.journalPath, journal);
    return { data: { status: reply.status, launch } };
  }
  const error = apiErrorOf(reply);
  if (reply.status === 500) {
    const support = supportLine({
      requestId: error?.requestId ?? null,
      status: 500,
      at: utcNow(),
      code: error?.code ?? null,
    });
    return { error: { kind: 'unresolved', reason: `the service answered 500 (${support}); the launch may exist` } };
  }
  journal.outcome = {
    state: 'refused',
    launchId: null,
    httpStatus: reply.status,
    code: error?.code ?? null,
    requestId: error?.requestId ?? null,
  };
  saveBaseLayerJournal(options.journalPath, journal);
  return { error: refusalOf(reply) };
}
