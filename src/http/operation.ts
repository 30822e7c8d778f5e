import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../auth/keys.ts';

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
