import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Principal } from '../auth/keys.ts';
import type { ApiError } from '../errors/api-error.ts';
import type { OperationRoute } from './operation.ts';
import type { UniqueRoute } from './route-match.ts';

/** Per-request state the HTTP layer keeps on `res.locals`. */
export interface RequestState {
  requestId: string;
  principal?: Principal;
  /** The exact request body bytes, kept for request digests and idempotency. */
  rawBody?: Buffer;
  /** The ApiError raised inside the validator's security handler, restored by the error middleware. */
  authError?: ApiError;
  /** The route of the spec operation the request was matched to (none for a path of no operation). */
  route?: OperationRoute;
  /** The spec operation matched by method and path, whose handler runs once the validator admitted the request. */
  operationId?: string;
  /** The one spec path template the request's path matched, for the validator's memoized metadata step. */
  uniqueRoute?: UniqueRoute;
}

/** The request state of a request. */
export function state(res: Response): RequestState {
  return res.locals as RequestState;
}

/**
 * A fresh request id: `req_` and 32 lowercase hex digits of 128 random bits (spec/schemas/common.schema.json
 * $defs.RequestId). It never matches a UUID, so no one can poll with it as a launchId.
 */
export function newRequestId(): string {
  if (idPoolOffset + 16 > idPool.length) {
    idPool = randomBytes(4096);
    idPoolOffset = 0;
  }
  const id = `req_${idPool.toString('hex', idPoolOffset, idPoolOffset + 16)}`;
  idPoolOffset += 16;
  return id;
}

// One call into the CSPRNG per 256 ids rather than one per request: each id still takes 128 bits never used again.
let idPool = Buffer.alloc(0);
let idPoolOffset = 0;

/** Gives every request a fresh request id, echoed in `X-Request-Id` and every ApiError. */
export function requestId(_req: Request, res: Response, next: NextFunction): void {
  const id = newRequestId();
  state(res).requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
}
