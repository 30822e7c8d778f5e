import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../auth/keys.ts';
import { ApiError } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/codes.ts';

/** What a route handler sees: validated input only, no Express objects (STYLE habit 6). */
export interface OperationContext {
  operationId: string;
  requestId: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  body: unknown;
  rawBody: Buffer | undefined;
  principal: Principal | undefined;
  /** The http origin of the socket the request arrived on (the discovery manifest's default serviceOrigin). */
  listenOrigin: string;
}

/** What a route handler returns: a status and a JSON body, exact JSON text (replays), or plain text. */
export interface OperationResult {
  status: number;
  body?: unknown;
  rawJson?: string;
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** One spec operation's handler. */
export type OperationHandler = (ctx: OperationContext) => OperationResult | Promise<OperationResult>;

/** The validated `limit` (default 10) and `cursor` of a list operation (launch-transport.md Parameter shapes). */
export function pageOf(ctx: OperationContext): { limit: number; cursor: string | undefined } {
  return {
    limit: ctx.query.limit === undefined ? 10 : Number(ctx.query.limit),
    cursor: ctx.query.cursor === undefined ? undefined : String(ctx.query.cursor),
  };
}

/**
 * The authenticated caller. The validator's security handler sets it on every operation that declares bearerAuth;
 * `missing` is the code of the area (the module routes name it AUTHENTICATION_REQUIRED).
 */
export function principalOf(ctx: OperationContext, missing: ErrorCode = 'UNAUTHENTICATED'): Principal {
  if (!ctx.principal) throw new ApiError(missing);
  return ctx.principal;
}

/** The exact request body bytes of a JSON or octet-stream operation. */
export function rawBodyOf(ctx: OperationContext): Buffer {
  if (!ctx.rawBody) throw new ApiError('UNSUPPORTED_MEDIA_TYPE');
  return ctx.rawBody;
}

/** The validated Idempotency-Key header of a write. */
export function idempotencyKeyOf(ctx: OperationContext): string {
  return String(ctx.headers['idempotency-key']);
}
