import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../auth/keys.ts';
import { ApiError } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/codes.ts';

/** What a route handler sees: validated input only, no Express objects. */
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

/**
 * What a route handler returns: a status and a JSON body, exact JSON text (replays), or plain text. A body with its
 * JSON text beside it (`rawJson` = JSON.stringify(body)) is sent as that text, or validated as the body when responses
 * are validated.
 */
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

/**
 * How an operation's request body is read, before validation and authentication: JSON (any JSON value; its exact
 * bytes are kept for digests) or the raw bytes of one media type. A body over `limit` bytes is 413
 * PAYLOAD_TOO_LARGE; a body of another media type is left unread for the validator to refuse.
 */
export type BodyPolicy = { kind: 'json'; limit: number } | { kind: 'raw'; mediaType: string; limit: number };

/**
 * The bearer authentication of an operation that declares bearerAuth in the spec: `wallet` checks a wallet or
 * partner key, its scopes and the path's chain grant (authenticate); `modules` names the module routes' codes
 * (authenticateModules), and `reviewExport` keeps 403 INSUFFICIENT_SCOPE for a key without the scope.
 */
export type AuthPolicy = 'wallet' | 'modules' | { modules: { reviewExport: true } };

/** One spec operation's route: its handler (none: 501 NOT_IMPLEMENTED) and what is checked before it runs. */
export interface OperationRoute {
  handler?: OperationHandler;
  body: BodyPolicy;
  /** Present exactly when the operation declares bearerAuth. */
  auth?: AuthPolicy;
  /**
   * The chain every request of a lane whose paths name no chain is bound to (the base-layer V3 lane: "1"): the
   * key's grant for it is checked as for a chainId path parameter (403 CHAIN_NOT_ALLOWED).
   */
  laneChainId?: string;
  /** Checked before the body is read or the request validated; an ApiError refuses the request. */
  gate?: () => ApiError | undefined;
  /** How a refusal of this operation is named beyond the generic mapping (error-middleware.ts). */
  errors?: ErrorPolicy;
}

/** An operation's own naming of refusals. */
export interface ErrorPolicy {
  /** The code of a schema failure whose issues all lie at one kind of location (none: INVALID_REQUEST). */
  issueCode?: (locations: string[]) => ErrorCode | undefined;
  /** A bounded 500 may come after the operation's write began, so `submissionMayExist` is true on it. */
  writeMayHaveCommitted?: boolean;
}

/** Every route by its spec operationId. */
export type RouteTable = Record<string, OperationRoute>;

/** A JSON body of at most `limit` bytes. */
export const jsonBody = (limit: number): BodyPolicy => ({ kind: 'json', limit });

/** The routes of several operations that share one policy, each with its handler. */
export function routesOf(
  handlers: Record<string, OperationHandler>,
  policy: Omit<OperationRoute, 'handler'>,
): RouteTable {
  return Object.fromEntries(
    Object.entries(handlers).map(([operationId, handler]) => [operationId, { ...policy, handler }]),
  );
}

/** The validated `limit` (default 10) and `cursor` of a list operation (spec/openapi/components/parameters.yaml). */
export function pageOf(ctx: Pick<OperationContext, 'query'>): { limit: number; cursor: string | undefined } {
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
