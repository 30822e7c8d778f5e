import { checkOrigin } from '../core/origin.ts';
import { cappedExchange, type Send } from '../core/transport.ts';
import { clientFailure, type ModuleResult, serviceFailure } from './errors.ts';

/** Largest answer the client reads, counted after decompression (1 MiB). */
export const responseLimitBytes = 1_048_576;
/** Largest review export the client reads, after decompression (3 MiB). */
export const exportLimitBytes = 3_145_728;
/** Client timeout per request (default 20 s, settable 1 to 120,000 ms). */
export const timeoutBounds = { defaultMs: 20_000, minMs: 1, maxMs: 120_000 } as const;

/** Where and how long: what every call of the module client takes. */
export interface ModuleCall {
  /** Service origin: https, or http on localhost, 127.0.0.1 or [::1]. The key is sent only here. */
  origin: string;
  /** Per-request timeout in ms, 1 to 120000; default 20000. */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/** A call that sends the API key (read it with moduleApiKey, never from a flag, file or prompt). */
export interface AuthenticatedModuleCall extends ModuleCall {
  apiKey: string;
}

/** What one request of the module client sends (the transport's Send, GET or POST, with its answer cap). */
export type CappedSend = Omit<Send, 'origin' | 'timeoutMs' | 'fetch' | 'contentType' | 'method'> & {
  method: 'GET' | 'POST';
  limitBytes: number;
};

/**
 * Checks a call's origin and timeout; throws a TypeError that says what to fix (misuse, not a failure).
 * Returns the normalized origin and the timeout to use.
 */
export function resolveCall(call: ModuleCall): { origin: string; timeoutMs: number } {
  const origin = checkOrigin(call.origin);
  const timeoutMs = call.timeoutMs ?? timeoutBounds.defaultMs;
  if (!Number.isInteger(timeoutMs) || timeoutMs < timeoutBounds.minMs || timeoutMs > timeoutBounds.maxMs) {
    throw new TypeError(`timeoutMs must be an integer from 1 to 120000, got ${String(call.timeoutMs)}`);
  }
  return { origin, timeoutMs };
}

/**
 * One request whose success is a JSON body with one of `okStatuses`: the JSON and its exact bytes, or the failure.
 * No answer, a redirect, an oversize or unparseable answer are client failures; on a POST each means the submission
 * may exist (the request may have reached the server). Other statuses are the service's ApiError.
 */
export async function exchangeJson(
  call: ModuleCall,
  send: CappedSend,
  okStatuses: readonly number[] = [200],
): Promise<ModuleResult<{ json: unknown; bytes: Buffer; headers: Headers }>> {
  const post = send.method === 'POST';
  const reply = await cappedExchange({ ...resolveCall(call), ...send, ...(call.fetch ? { fetch: call.fetch } : {}) });
  const what = `${send.method} ${send.path.split('?')[0]}`;
  switch (reply.kind) {
    case 'no_answer':
      return {
        error: clientFailure(reply.timedOut ? 'MODULE_API_TIMEOUT' : 'MODULE_API_NETWORK', `${what}: ${reply.reason}`, {
          submissionMayExist: post,
        }),
      };
    case 'redirect':
      return {
        error: clientFailure(
          'MODULE_API_NETWORK',
          `${what} was answered with a ${reply.status} redirect; redirects are refused, so nothing went elsewhere`,
          { httpStatus: reply.status, submissionMayExist: post },
        ),
      };
    case 'oversize':
      return {
        error: clientFailure(
          'MODULE_API_RESPONSE',
          `${what}: the answer exceeds ${reply.limitBytes} bytes after decompression; it was not read or parsed`,
          { httpStatus: reply.status, submissionMayExist: post },
        ),
      };
    case 'answer':
      if (!okStatuses.includes(reply.status)) return { error: serviceFailure(reply, { post }) };
      if (reply.json === undefined || reply.json === null || typeof reply.json !== 'object') {
        return {
          error: clientFailure('MODULE_API_RESPONSE', `${what}: HTTP ${reply.status} without a JSON object body`, {
            httpStatus: reply.status,
            submissionMayExist: post,
          }),
        };
      }
      return { data: { json: reply.json, bytes: reply.bytes, headers: reply.headers }, httpStatus: reply.status };
  }
}
