import type { CustomLaunchResourceV4 } from '../../../generated/types/service.ts';
import { seconds, sendResending } from '../core/resend.ts';
import { supportLine, utcNow } from '../core/support.ts';
import { apiErrorOf, type CallOptions, type Exchange, type Refusal, refusalOf } from '../core/transport.ts';
import { type LaunchSubmitJournalV1, saveJournal } from './journal.ts';

/** The V4 create path, pinned to API version 4 and chain 4663. */
export const createPath = '/v4/chains/4663/custom-launches';

/**
 * How a submission ended: `data` when accepted (202, or 200 for an exact replay), otherwise `error`: a definite
 * refusal, or `unresolved` (no definite answer before the deadline, a 500, or a redirect: the launch may exist;
 * resume from the journal).
 */
export type SubmitResult =
  | { data: { status: 200 | 202; launch: CustomLaunchResourceV4 }; error?: undefined }
  | { data?: undefined; error: Refusal | { kind: 'unresolved'; reason: string } };

export interface SubmitOptions extends CallOptions {
  journalPath: string;
  journal: LaunchSubmitJournalV1;
  bytes: Uint8Array;
  /** Give up (unresolved) when the next attempt would start after this long. */
  maxWaitMs: number;
  sleep?: (ms: number) => Promise<void>;
  /** Progress for a person: each retry and why. */
  onProgress?: (message: string) => void;
}

function record(options: SubmitOptions, attempt: LaunchSubmitJournalV1['attempts'][number]): void {
  const { journal } = options;
  journal.attempts.push(attempt);
  if (journal.attempts.length > 1000) journal.attempts.splice(0, journal.attempts.length - 1000);
  saveJournal(options.journalPath, journal);
}

/**
 * Submits the journal's exact bytes with its idempotency key to its origin
 * (spec/openapi/paths/v4-custom-launches.yaml, createCustomLaunchV4). A timeout or a failed connection, a 429, and a 503 whose `error.retryable` is true resend the same bytes with
 * the same key after `Retry-After` (seconds or an HTTP date) or a doubling backoff; nothing about the request ever
 * changes. 202 and 200 (exact replay) are accepted and returned as `data`; a 500 is an `unresolved` error (reconcile
 * by resuming, which resends the same bytes); any other answer is a refusal error. Every attempt and the outcome are
 * written to the journal first.
 */
export async function submitWithJournal(options: SubmitOptions): Promise<SubmitResult> {
  const { journal } = options;
  const resent = await sendResending(
    {
      origin: journal.origin,
      method: 'POST',
      path: createPath,
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
    const launch = reply.json as CustomLaunchResourceV4;
    journal.outcome = {
      state: 'accepted',
      launchId: launch.launchId,
      httpStatus: reply.status,
      code: null,
      requestId: reply.headers.get('x-request-id'),
    };
    saveJournal(options.journalPath, journal);
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
  saveJournal(options.journalPath, journal);
  return { error: refusalOf(reply) };
}

/** The journal's record of one attempt (the V4 and the V3 journals record attempts alike). */
export function attemptRecord(reply: Exchange, at: string): LaunchSubmitJournalV1['attempts'][number] {
  if (reply.kind === 'no_answer') return { at, result: 'no_answer', detail: reply.reason.slice(0, 512) };
  if (reply.kind === 'redirect') return { at, result: 'redirect', httpStatus: reply.status };
  const error = apiErrorOf(reply);
  return {
    at,
    result: 'answer',
    httpStatus: reply.status,
    ...(error ? { code: error.code.slice(0, 128), requestId: error.requestId.slice(0, 128) } : {}),
  };
}
