import { retryAfterMs } from './retry-after.ts';
import { apiErrorOf, type Exchange, exchange, type Send } from './transport.ts';

/** How resending ended: a definite exchange (an answer not to resend, or a redirect), or the max wait ran out. */
export type Resent =
  | { kind: 'definite'; reply: Exclude<Exchange, { kind: 'no_answer' }> }
  | {
      kind: 'gave_up';
      /** The last attempt's exchange: a retryable answer, or none. */
      last: Exchange;
      attempts: number;
      /** Some attempt had no answer: a write may have been committed. */
      unanswered: boolean;
      why: string;
      /** The wait the next attempt would have needed. */
      waitMs: number;
    };

export interface ResendOptions {
  /** Give up when the next attempt would start after this long. */
  maxWaitMs: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Called with every exchange, before anything else is done with it (a journal records it here). */
  onAttempt?: (reply: Exchange, at: string) => void;
  /** Called before each wait: the attempt number, why it is resent, and the wait. */
  onRetry?: (attempt: number, why: string, waitMs: number) => void;
}

/** Backoff without a Retry-After: 1 s, 2 s, 4 s … at most 30 s. */
function backoffMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

/** A wait for a person: `2 s`, `1.5 s`. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

/**
 * Sends one request and resends the identical request (same bytes, same headers, same key) on no answer, a 429 and a
 * 503 whose ApiError is retryable, after `Retry-After` (seconds or an HTTP date) or a doubling backoff, while the next
 * attempt would start within the max wait. Any other answer, a 500 included, and a redirect are definite and are
 * returned as they are; nothing about the request ever changes.
 */
export async function sendResending(send: Send, options: ResendOptions): Promise<Resent> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const started = now();
  let unanswered = false;
  for (let attempt = 1; ; attempt++) {
    const at = new Date(now()).toISOString();
    const reply = await exchange(send);
    options.onAttempt?.(reply, at);
    let waitMs: number;
    let why: string;
    if (reply.kind === 'no_answer') {
      unanswered = true;
      waitMs = backoffMs(attempt);
      why = reply.reason;
    } else {
      const error = reply.kind === 'answer' ? apiErrorOf(reply) : undefined;
      const retryable =
        reply.kind === 'answer' && (reply.status === 429 || (reply.status === 503 && error?.retryable === true));
      if (!retryable) return { kind: 'definite', reply };
      waitMs = retryAfterMs(reply.headers.get('retry-after'), now()) ?? backoffMs(attempt);
      why = `${reply.status} ${error?.code ?? ''}`.trim();
    }
    if (now() + waitMs - started > options.maxWaitMs) {
      return { kind: 'gave_up', last: reply, attempts: attempt, unanswered, why, waitMs };
    }
    options.onRetry?.(attempt, why, waitMs);
    await sleep(waitMs);
  }
}
