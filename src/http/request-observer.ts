import type { NextFunction, Request, Response } from 'express';
import { state } from './request-context.ts';

/** What the server knows of one request once it has been answered (or its client went away first). */
export interface RequestObservation {
  requestId: string;
  /** The spec operation matched by method and path; absent for a path of no operation. */
  operationId?: string;
  method: string;
  /** The path without its query (a cursor or a filter stays out of the logs), at most 200 characters. */
  path: string;
  status: number;
  durationMs: number;
  /** The credential's key id (never the key), once authentication has named one. */
  keyId?: string;
  /** The client closed the connection before the answer was complete. */
  aborted: boolean;
}

export type RequestObserver = (observation: RequestObservation) => void;

/**
 * Calls `observer` once per request, when its answer is complete (`finish`) or its connection closed first. Runs
 * first on the app, so the duration covers body parsing, validation, authentication and the handler.
 */
export function observeRequests(observer: RequestObserver) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    let done = false;
    const report = (aborted: boolean) => {
      if (done) return;
      done = true;
      const s = state(res);
      const query = req.originalUrl.indexOf('?');
      observer({
        requestId: s.requestId,
        ...(s.operationId ? { operationId: s.operationId } : {}),
        method: req.method,
        path: (query === -1 ? req.originalUrl : req.originalUrl.slice(0, query)).slice(0, 200),
        status: res.statusCode,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        ...(s.principal ? { keyId: s.principal.keyId } : {}),
        aborted,
      });
    };
    res.once('finish', () => report(false));
    res.once('close', () => report(!res.writableFinished));
    next();
  };
}
