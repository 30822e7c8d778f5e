import type { NextFunction, Request, Response } from 'express';
import { redactKeys } from '../auth/keys.ts';
import { ApiError } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/codes.ts';
import { logger } from '../observability/logger.ts';
import { countSqliteBusy } from '../observability/metrics.ts';
import { state } from './request-context.ts';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  message?: string;
  headers?: Record<string, string>;
  errors?: Array<{ path?: string; message?: string }>;
}

const statusCodes: Record<number, ErrorCode> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'INSUFFICIENT_SCOPE',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/**
 * Maps anything thrown to an ApiError: our own, body-parser's (malformed JSON, oversized body), and the
 * validator's (400 with issues, 401 security, 404/405 unknown routes, 415 media type). Anything else is a bounded
 * 500 that carries the request id and no message, stack or secret of the failure.
 */
export function toApiError(err: unknown, res: Response): ApiError {
  if (err instanceof ApiError) return err;
  const e = (err ?? {}) as HttpLikeError;
  // The validator re-wraps whatever its security handler throws; the ApiError it stashed is the real cause.
  const authError = state(res).authError;
  if (authError) return authError;
  const status = e.status ?? e.statusCode;
  const storage = storageRefusal((err as { code?: unknown } | null)?.code);
  if (storage) return storage;
  if (e.type === 'entity.parse.failed') return new ApiError('MALFORMED_JSON');
  if (e.type === 'entity.too.large') return new ApiError('PAYLOAD_TOO_LARGE');
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
    return new ApiError('UNSUPPORTED_MEDIA_TYPE');
  const code = status !== undefined ? statusCodes[status] : undefined;
  if (code === undefined) return new ApiError('INTERNAL');
  const route = state(res).route;
  // The module routes name a missing key AUTHENTICATION_REQUIRED (spec/openapi/paths/modules-*.yaml).
  if (code === 'UNAUTHENTICATED' && route?.auth !== undefined && route.auth !== 'wallet') {
    return new ApiError('AUTHENTICATION_REQUIRED');
  }
  if (code !== 'INVALID_REQUEST') return new ApiError(code, { headers: e.headers ?? {} });
  // Only a validation failure lists its issues: they describe the caller's input, never the server's state.
  const issues = (e.errors ?? []).map((i) => ({
    location: String(i.path ?? '').slice(0, 512),
    message: String(i.message ?? '').slice(0, 512),
  }));
  const message = issues.length > 0 ? `Invalid request: ${issues[0]?.location} ${issues[0]?.message}` : undefined;
  const specific = issues.length > 0 ? route?.errors?.issueCode?.(issues.map((i) => i.location)) : undefined;
  return new ApiError(specific ?? code, { issues, headers: e.headers ?? {}, ...(message ? { message } : {}) });
}

/**
 * The retryable 503 of a SQLite failure that left nothing stored (spec/openapi/components/responses.yaml
 * Unavailable): the database stayed locked past the busy timeout (SQLITE_BUSY and its extended codes) → UNAVAILABLE;
 * the disk or the database file is full (SQLITE_FULL, whose transaction SQLite rolls back) → STORAGE_FULL. Any other
 * code is not a storage refusal (undefined).
 */
export function storageRefusal(code: unknown): ApiError | undefined {
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_')) {
    countSqliteBusy('request');
    return new ApiError('UNAVAILABLE', { retryAfterSeconds: 1 });
  }
  if (code === 'SQLITE_FULL') return new ApiError('STORAGE_FULL', { retryAfterSeconds: storageFullRetrySeconds });
  return undefined;
}

// Space comes back only when an operator frees it: an early retry would meet the same full disk.
const storageFullRetrySeconds = 30;

/** Logs a failure that is not a public ApiError, with the request id and without request data. */
export function logInternal(requestId: string, err: unknown): void {
  const detail = redactKeys(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
  logger.error({ requestId, detail: detail.slice(0, 2000) }, 'unhandled failure');
}

/**
 * Whether a failed module submit may have stored the draft (spec/openapi/paths/modules-submissions.yaml,
 * submitModule): a bounded 500 may come after the write transaction began or committed (an insert, the commit, the
 * answer after it), so the server cannot say the draft is absent. Every other refusal of the route is decided before
 * the write or rolls it back (validation, authentication, the rules, conflicts, rate limits, a busy database at the
 * start of the transaction), so the draft certainly was not stored.
 */
function submissionMayExist(res: Response, apiError: ApiError): boolean | undefined {
  if (!state(res).route?.errors?.writeMayHaveCommitted) return apiError.submissionMayExist;
  return apiError.submissionMayExist ?? apiError.code === 'INTERNAL';
}

/** The one error middleware: every failure leaves as an ApiError body (spec/schemas/api-error.schema.json). */
export function errorMiddleware(err: unknown, _req: Request, res: Response, _next: NextFunction): void {
  const { requestId } = state(res);
  const found = toApiError(err, res);
  const mayExist = submissionMayExist(res, found);
  const apiError =
    mayExist === found.submissionMayExist ? found : found.with({ submissionMayExist: mayExist as boolean });
  if (apiError.code === 'INTERNAL' && !(err instanceof ApiError)) logInternal(requestId, err);
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(apiError.headers)) res.setHeader(name, value);
  if (apiError.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(apiError.retryAfterSeconds));
  res
    .status(apiError.status)
    .type('application/json')
    .send(JSON.stringify(apiError.toBody(requestId)));
}
