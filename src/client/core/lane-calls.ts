import { retryAfterMs } from './retry-after.ts';
import { utcNow } from './support.ts';
import {
  apiErrorOf,
  type CallOptions,
  exchange,
  type Refusal,
  redirectRefusal,
  refusalOf,
  type Send,
} from './transport.ts';

/** No answer at all (a timeout, a refused connection, a cut stream): the call may be made again. */
export interface NoAnswer {
  kind: 'no_answer';
  reason: string;
}

/** A lane call's outcome: `data`, or a definite refusal or no answer. */
export type LaneCallResult<T> = { data: T; error?: undefined } | { data?: undefined; error: Refusal | NoAnswer };

/** Where a lane's call goes and with what. */
export interface LaneCallOptions extends CallOptions {
  origin: string;
}

/** Checks an answer's JSON: null when it is what was asked for, else what was asked for (for the refusal). */
export type Pin = (json: unknown) => string | null;

/** The refusal of a 200 whose body is not the resource asked for. */
export function pinnedMismatch(what: string, requestId: string | null): Refusal {
  return {
    kind: 'refused',
    status: 200,
    code: 'PINNED_RESOURCE_MISMATCH',
    message: `the answer is not ${what}`,
    requestId,
    at: utcNow(),
  };
}

/** One exchange whose `accept` statuses are `data` (checked by `pin`); anything else is a refusal or no answer. */
export async function pinnedCall<T>(
  send: Send,
  accept: readonly number[],
  pin: Pin,
): Promise<LaneCallResult<{ status: number; body: T }>> {
  const reply = await exchange(send);
  if (reply.kind === 'no_answer') return { error: { kind: 'no_answer', reason: reply.reason } };
  if (reply.kind === 'redirect') return { error: redirectRefusal(reply) };
  if (!accept.includes(reply.status)) return { error: refusalOf(reply, send.apiKey) };
  const mismatch = pin(reply.json);
  if (mismatch) return { error: pinnedMismatch(mismatch, reply.headers.get('x-request-id')) };
  return { data: { status: reply.status, body: reply.json as T } };
}

/** The Send of a lane call: the options' origin, timeout and fetch, plus the request. */
export function laneSend(
  options: Omit<LaneCallOptions, 'apiKey'>,
  send: Omit<Send, 'origin' | 'timeoutMs' | 'fetch'>,
): Send {
  return {
    origin: options.origin,
    timeoutMs: options.timeoutMs,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...send,
  };
}

/** A read to repeat: no answer, a 429 or a retryable 503 (after `waitMs` when the answer gave one). */
export interface ReadAgain {
  kind: 'retry';
  why: string;
  waitMs: number | undefined;
}

/** One pinned read of a launch: `data`, a `retry`, or a refusal. */
export type PinnedReadResult<L> =
  | { data: { launch: L }; error?: undefined }
  | { data?: undefined; error: ReadAgain | Refusal };

/**
 * One GET of a launch resource, pinned by `pin`: 200 with the resource asked for is `data`; no answer, a 429 and a
 * 503 whose ApiError is retryable are `retry` (with Retry-After); anything else is a refusal.
 */
export async function readPinned<L>(send: Send, pin: Pin, now: () => number = Date.now): Promise<PinnedReadResult<L>> {
  const reply = await exchange(send);
  if (reply.kind === 'no_answer') return { error: { kind: 'retry', why: reply.reason, waitMs: undefined } };
  if (reply.kind === 'redirect') return { error: redirectRefusal(reply) };
  const error = apiErrorOf(reply);
  if (reply.status === 429 || (reply.status === 503 && error?.retryable === true)) {
    const waitMs = retryAfterMs(reply.headers.get('retry-after'), now());
    return { error: { kind: 'retry', why: `${reply.status} ${error?.code ?? ''}`.trim(), waitMs } };
  }
  if (reply.status !== 200) return { error: refusalOf(reply, send.apiKey) };
  const mismatch = pin(reply.json);
  if (mismatch) return { error: pinnedMismatch(mismatch, reply.headers.get('x-request-id')) };
  return { data: { launch: reply.json as L } };
}

/** How a poll ended: the goal, the lane's own stop (`E`), a refusal, or `timeout` with the last launch read. */
export type PollResult<L, E> =
  | { data: { launch: L }; error?: undefined }
  | { data?: undefined; error: E | Refusal | { kind: 'timeout'; launch: L | undefined } };

/** What a poll of one launch needs: its read, when it is done or must stop, and its pacing. */
export interface PollOptions<L, E> {
  read: () => Promise<PinnedReadResult<L>>;
  /** `done` at the goal, a stop `E` (the launch cannot get there by waiting), or undefined to keep polling. */
  verdict: (launch: L) => 'done' | E | undefined;
  /** A note for the progress line of a launch read, if any. */
  note?: (launch: L) => string | undefined;
  status: (launch: L) => string;
  intervalMs: number;
  maxWaitMs: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  onProgress?: (status: string | undefined, elapsedMs: number, note?: string) => void;
}

/**
 * Polls a launch with `read` every intervalMs until the verdict is `done` (`data`) or a stop, a read is refused, or
 * maxWaitMs would pass before the next read (`timeout`). A `retry` read waits its Retry-After when it gave one.
 */
export async function pollLaunch<L, E>(options: PollOptions<L, E>): Promise<PollResult<L, E>> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const started = now();
  let last: L | undefined;
  for (;;) {
    const result = await options.read();
    let waitMs = options.intervalMs;
    if (result.error?.kind === 'refused') return { error: result.error };
    if (result.data) {
      last = result.data.launch;
      options.onProgress?.(options.status(last), now() - started, options.note?.(last));
      const verdict = options.verdict(last);
      if (verdict === 'done') return { data: { launch: last } };
      if (verdict !== undefined) return { error: verdict };
    } else {
      waitMs = result.error.waitMs ?? options.intervalMs;
      options.onProgress?.(last ? options.status(last) : undefined, now() - started, `${result.error.why}; retrying`);
    }
    if (now() - started + waitMs > options.maxWaitMs) return { error: { kind: 'timeout', launch: last } };
    await sleep(waitMs);
  }
}
