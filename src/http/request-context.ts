import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Principal } from '../auth/keys.ts';
import type { ApiError } from '../errors/api-error.ts';

/** Per-request state the HTTP layer keeps on `res.locals`. */
export interface RequestState {
  requestId: string;
  principal?: Principal;
  /** The exact request body bytes, kept for request digests and idempotency. */
  rawBody?: Buffer;
  /** The ApiError raised inside the validator's security handler, restored by the error middleware. */
  authError?: ApiError;
}

/** The request state of a request. */
export function state(res: Response): RequestState {
  return res.locals as RequestState;
}

/** Gives every request a fresh request id, echoed in `X-Request-Id` and every ApiError. */
export function requestId(_req: Request, res: Response, next: NextFunction): void {
  const id = randomUUID();
  state(res).requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
}
