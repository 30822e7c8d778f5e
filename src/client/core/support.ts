/**
 * What a support request quotes, and nothing else (only error.requestId, HTTP status, UTC time and the
 * public code, never a key).
 */
export interface SupportFacts {
  /** The service's error.requestId (or X-Request-Id); null when no answer carried one. */
  requestId: string | null;
  /** The HTTP status of the answer; null when there was none. */
  status: number | null;
  /** The public code (the ApiError code, or the client's own refusal code); null when there is none. */
  code: string | null;
  /** When the answer came (or the client decided), UTC, ISO 8601 with Z (common.schema.json $defs.Timestamp). */
  at: string;
}

/** The UTC time of `ms` (default now) as a support line states it: ISO 8601 with milliseconds and Z. */
export function utcNow(ms: number = Date.now()): string {
  return new Date(ms).toISOString();
}

/**
 * The one support line of a failure: requestId, HTTP status, UTC time and public code, in that order; every
 * refusal the CLI prints ends with it. It takes no message, so no text the service or a caller wrote (and no key)
 * can reach it.
 */
export function supportLine(facts: SupportFacts): string {
  return `support: requestId ${facts.requestId ?? 'none'}, HTTP ${facts.status ?? 'none'}, ${facts.at}, ${facts.code ?? 'no code'}`;
}
