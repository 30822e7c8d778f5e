import type {
  LaunchSubmitJournalAttempt,
  LaunchSubmitJournalOutcome,
} from '../../../generated/schemas/launch-submit-journal.v1.ts';
import { seconds, sendResending } from './resend.ts';
import { supportLine, utcNow } from './support.ts';
import { apiErrorOf, type CallOptions, type Exchange, type Refusal, refusalOf } from './transport.ts';

/** One attempt as a submit journal records it (the V4 and the V3 journals record attempts alike). */
export type JournalAttempt = LaunchSubmitJournalAttempt;

/** What a launch submit journal shares across lanes: where the bytes go, with which key, and what happened. */
export interface SubmitJournal {
  origin: string;
  idempotencyKey: string;
  outcome: LaunchSubmitJournalOutcome;
  attempts: JournalAttempt[];
}

/**
 * How a submission ended: `data` when accepted (202, or 200 for an exact replay), otherwise `error`: a definite
 * refusal, or `unresolved` (no definite answer before the deadline, a 500, or a redirect: the launch may exist;
 * resume from the journal).
 */
export type JournalSubmitResult<L> =
  | { data: { status: 200 | 202; launch: L }; error?: undefined }
  | { data?: undefined; error: Refusal | { kind: 'unresolved'; reason: string } };

/** The caller's side of a journal submit: the journal, where it lives, the exact bytes and how long to keep trying. */
export interface JournalSubmitOptions<J extends SubmitJournal> extends CallOptions {
  journalPath: string;
  journal: J;
  bytes: Uint8Array;
  /** Give up (unresolved) when the next attempt would start after this long. */
  maxWaitMs: number;
  sleep?: (ms: number) => Promise<void>;
  /** Progress for a person: each retry and why. */
  onProgress?: (message: string) => void;
}

/** The lane's side: its create path and how its journal is saved. */
export interface JournalLane<J extends SubmitJournal> {
  createPath: string;
  save: (path: string, journal: J) => void;
}

/** The journal's record of one attempt. */
export function attemptRecord(reply: Exchange, at: string): JournalAttempt {
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

function record<J extends SubmitJournal>(
  lane: JournalLane<J>,
  options: JournalSubmitOptions<J>,
  attempt: JournalAttempt,
) {
  const { journal } = options;
  journal.attempts.push(attempt);
  if (journal.attempts.length > 1000) journal.attempts.splice(0, journal.attempts.length - 1000);
  lane.save(options.journalPath, journal);
}

/**
 * Submits the journal's exact bytes with its idempotency key to its origin and the lane's create path. A timeout or a
 * failed connection, a 429, and a 503 whose `error.retryable` is true resend the same bytes with the same key after
 * `Retry-After` (seconds or an HTTP date) or a doubling backoff; nothing about the request ever changes. 202 and 200
 * (exact replay) are accepted and returned as `data`; a 500 or a redirect is an `unresolved` error (reconcile by
 * resuming, which resends the same bytes); any other answer is a refusal error. Every attempt and the outcome are
 * written to the journal first.
 */
export async function submitJournalBytes<J extends SubmitJournal, L extends { launchId: string }>(
  lane: JournalLane<J>,
  options: JournalSubmitOptions<J>,
): Promise<JournalSubmitResult<L>> {
  const { journal } = options;
  const resent = await sendResending(
    {
      origin: journal.origin,
      method: 'POST',
      path: lane.createPath,
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
      onAttempt: (reply, at) => record(lane, options, attemptRecord(reply, at)),
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
  return settle<J, L>(lane, options, reply);
}

/** The journal's outcome of a definite answer: accepted, unresolved (500) or refused. */
function settle<J extends SubmitJournal, L extends { launchId: string }>(
  lane: JournalLane<J>,
  options: JournalSubmitOptions<J>,
  reply: Extract<Exchange, { kind: 'answer' }>,
): JournalSubmitResult<L> {
  const { journal } = options;
  if (reply.status === 202 || reply.status === 200) {
    const launch = reply.json as L;
    journal.outcome = {
      state: 'accepted',
      launchId: launch.launchId,
      httpStatus: reply.status,
      code: null,
      requestId: reply.headers.get('x-request-id'),
    };
    lane.save(options.journalPath, journal);
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
  lane.save(options.journalPath, journal);
  return { error: refusalOf(reply) };
}
