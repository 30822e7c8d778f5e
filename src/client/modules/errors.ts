import type { ApiErrorCode } from '../../../generated/types/service.ts';
import { supportLine, utcNow } from '../core/support.ts';
import { apiErrorOf } from '../core/transport.ts';

/**
 * The client-side codes of the module-contribution client, one closed table: each
 * is decided by the client, never sent by the service, and carries the action to take.
 */
export const moduleClientCodes = {
  MODULE_API_KEY_CONFLICT: 'PLATFORM_API_KEY and PLATFORM_MODULES_API_KEY hold different values: unset one of them',
  MODULE_API_NETWORK: 'connectivity failure or a refused redirect; a POST may have reached the server',
  MODULE_API_TIMEOUT: 'no answer within the timeout; a POST may have reached the server',
  MODULE_API_RESPONSE:
    'not a valid answer (too large, not JSON, or off contract); it was not used: preserve the request',
  MODULE_API_RECEIPT_MISMATCH: 'the receipt does not bind the request: not a valid receipt; preserve the request',
  MODULE_CONTEXT_RESPONSE: 'inconsistent or unsupported context; infer no permission from it',
  MODULE_REVIEW_RESPONSE: 'review response inconsistent with the receipt; not a valid result',
} as const;

export type ModuleClientCode = keyof typeof moduleClientCodes;

/**
 * Why a call of the module client has no result: a client-side code of the table above, or the service's ApiError.
 * `submissionMayExist` is true when a submit may have been persisted: keep its Idempotency-Key and exact bytes
 * together and retry only that pair.
 */
export interface ModuleFailure {
  code: ModuleClientCode | ApiErrorCode;
  /** Who decided: the client (no answer, or an answer it refused to use) or the service (its ApiError). */
  source: 'client' | 'service';
  httpStatus: number | null;
  message: string;
  requestId: string | null;
  /** When the answer came or the client decided, UTC (for the support line). */
  at: string;
  retryable: boolean;
  retryAfterSeconds: number | null;
  submissionMayExist: boolean;
}

/** Every call returns data or a failure; it throws only on misuse (never on an HTTP status). */
export type ModuleResult<T> =
  | { data: T; httpStatus: number; error?: undefined }
  | { data?: undefined; error: ModuleFailure };

/** A failure the client decides. Codes of the service table (e.g. MODULE_SUBMISSIONS_UNAVAILABLE) may be reused. */
export function clientFailure(
  code: ModuleClientCode | ApiErrorCode,
  message: string,
  extra: Partial<Pick<ModuleFailure, 'httpStatus' | 'submissionMayExist' | 'retryable'>> = {},
): ModuleFailure {
  return {
    code,
    source: 'client',
    httpStatus: extra.httpStatus ?? null,
    message,
    requestId: null,
    at: utcNow(),
    retryable: extra.retryable ?? false,
    retryAfterSeconds: null,
    submissionMayExist: extra.submissionMayExist ?? false,
  };
}

/**
 * The failure an error answer states. A body that is no ApiError is MODULE_API_RESPONSE: the client cannot tell
 * what happened, so on a POST the submission may exist.
 */
export function serviceFailure(
  answer: { status: number; json: unknown; text: string },
  options: { post: boolean },
): ModuleFailure {
  const stated = apiErrorOf(answer);
  // The message is what the module client reports; an error body without one is off contract.
  const error = typeof stated?.message === 'string' ? stated : undefined;
  if (!error) {
    return clientFailure(
      'MODULE_API_RESPONSE',
      `HTTP ${answer.status} without an ApiError body: ${JSON.stringify(answer.text.slice(0, 120))}`,
      { httpStatus: answer.status, submissionMayExist: options.post },
    );
  }
  return {
    code: error.code,
    source: 'service',
    httpStatus: answer.status,
    message: error.message,
    requestId: typeof error.requestId === 'string' ? error.requestId : null,
    at: utcNow(),
    retryable: error.retryable === true,
    retryAfterSeconds: typeof error.retryAfterSeconds === 'number' ? error.retryAfterSeconds : null,
    // The service says whether the draft may be stored; a deployment that does not say is taken at its worst on a
    // 500 (a bounded internal error may come after the commit).
    submissionMayExist:
      options.post &&
      (typeof error.submissionMayExist === 'boolean' ? error.submissionMayExist : answer.status === 500),
  };
}

/**
 * One line for a person: the code first, then what happened, the HTTP status and, when the service answered with a
 * requestId, the support line (requestId, HTTP status, UTC time, code).
 */
export function describeFailure(failure: ModuleFailure): string {
  const status = failure.httpStatus !== null ? ` (HTTP ${failure.httpStatus})` : '';
  const support = failure.requestId
    ? ` [${supportLine({ requestId: failure.requestId, status: failure.httpStatus, at: failure.at, code: failure.code })}]`
    : '';
  return `${failure.code}${status}: ${failure.message}${support}`;
}
