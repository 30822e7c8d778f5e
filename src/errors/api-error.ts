import type { ApiError as ApiErrorBody } from '../../generated/types/service.ts';
import { type ErrorCode, errorTable } from './codes.ts';

/** The ApiError response body, generated from spec/schemas/api-error.schema.json. */
type ApiErrorIssue = NonNullable<ApiErrorBody['error']['issues']>[number];

/** Options of an ApiError beyond its code. */
export interface ApiErrorOptions {
  message?: string;
  retryAfterSeconds?: number;
  submissionMayExist?: boolean;
  issues?: ApiErrorIssue[];
  /** The launch that already holds the intent (LAUNCH_INTENT_CONFLICT), only for a credential that may read it. */
  existingLaunchId?: string;
  /** Extra response headers, such as `Allow` on a 405. */
  headers?: Record<string, string>;
}

/**
 * The one error class. Domain code throws it with a public code; the error middleware turns it into an ApiError
 * body with the request id (spec: api-error.schema.json).
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;
  readonly submissionMayExist: boolean | undefined;
  readonly issues: ApiErrorIssue[] | undefined;
  readonly existingLaunchId: string | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    const entry = errorTable[code];
    super(options.message ?? entry.message);
    this.name = 'ApiError';
    this.code = code;
    this.status = entry.status;
    this.retryable = entry.retryable;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.submissionMayExist = options.submissionMayExist;
    this.issues = options.issues?.slice(0, 50);
    this.existingLaunchId = options.existingLaunchId;
    this.headers = options.headers ?? {};
    if ((entry.status === 429 || entry.status === 503) && this.retryAfterSeconds === undefined) {
      this.retryAfterSeconds = code === 'UNAVAILABLE' ? 5 : 1;
    }
  }

  /** The same error with other options (the message, code and headers kept). */
  with(options: Pick<ApiErrorOptions, 'submissionMayExist'>): ApiError {
    return new ApiError(this.code, {
      message: this.message,
      ...(this.retryAfterSeconds !== undefined ? { retryAfterSeconds: this.retryAfterSeconds } : {}),
      ...(this.issues !== undefined ? { issues: this.issues } : {}),
      ...(this.existingLaunchId !== undefined ? { existingLaunchId: this.existingLaunchId } : {}),
      headers: this.headers,
      ...(this.submissionMayExist !== undefined ? { submissionMayExist: this.submissionMayExist } : {}),
      ...options,
    });
  }

  /** The response body for this error, bound to one request id. */
  toBody(requestId: string): ApiErrorBody {
    const error: ApiErrorBody['error'] = {
      code: this.code,
      message: this.message.slice(0, 1024),
      requestId,
      retryable: this.retryable,
    };
    if (this.retryAfterSeconds !== undefined) error.retryAfterSeconds = this.retryAfterSeconds;
    if (this.submissionMayExist !== undefined) error.submissionMayExist = this.submissionMayExist;
    if (this.existingLaunchId !== undefined) error.existingLaunchId = this.existingLaunchId;
    if (this.issues !== undefined && this.issues.length > 0) error.issues = this.issues;
    return { error };
  }
}
