import { logger } from '../observability/logger.ts';
import type { RequestObservation } from './request-observer.ts';

/**
 * The request log (docs/configuration.md, Logs): one JSON line per answered request, `msg` `request`, at `info` (a 5xx
 * answer at `error`), with the request id, the operation, the status, the duration and the credential's key id (never
 * a key: the key id names the credential in `npm run admin -- keys` and in the database).
 */
export function logRequest(o: RequestObservation): void {
  const level = o.status >= 500 ? 'error' : 'info';
  logger[level](
    {
      requestId: o.requestId,
      operationId: o.operationId ?? null,
      method: o.method,
      path: o.path,
      status: o.status,
      durationMs: Math.round(o.durationMs * 100) / 100,
      keyId: o.keyId ?? null,
      ...(o.aborted ? { aborted: true } : {}),
    },
    'request',
  );
}
