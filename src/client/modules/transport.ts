import { checkOrigin } from '../origin.ts';
import { clientFailure, type ModuleResult, serviceFailure } from './errors.ts';

/** Largest answer the client reads, counted after decompression (modules-subkeys-developer-api.md Limits). */
export const responseLimitBytes = 1_048_576;
/** Largest review export the client reads, after decompression (Limits: "review export up to 3 MiB"). */
export const exportLimitBytes = 3_145_728;
/** Client timeout per request (Limits: default 20 s, settable 1 to 120,000 ms). */
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

/** One exchange with the service, its answer read up to a byte cap. */
export type CappedExchange =
  | { kind: 'answer'; status: number; headers: Headers; bytes: Buffer; text: string; json: unknown }
  /** The answer passed the cap: it was cut off unread and must not be parsed. */
  | { kind: 'oversize'; status: number; limitBytes: number }
  | { kind: 'redirect'; status: number; location: string | null }
  | { kind: 'no_answer'; timedOut: boolean; reason: string };

/** What one request sends. */
export interface CappedSend {
  method: 'GET' | 'POST';
  path: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Exact body bytes: sent as they are, never re-serialized. */
  body?: Uint8Array;
  limitBytes: number;
}

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
 * Sends one request to the call's origin and reads the answer up to `limitBytes` after decompression (fetch
 * decodes gzip, deflate and br; the decoded stream is what is counted, so a small compressed body cannot expand
 * past the cap). A redirect is never followed, so the key and the body go nowhere else; a timeout (which also
 * covers reading the body) or a network failure is `no_answer`. Never throws on an HTTP status; the key appears in
 * no returned value.
 */
export async function cappedExchange(call: ModuleCall, send: CappedSend): Promise<CappedExchange> {
  const { origin, timeoutMs } = resolveCall(call);
  const headers: Record<string, string> = { Accept: 'application/json', ...send.headers };
  if (send.apiKey !== undefined) headers.Authorization = `Bearer ${send.apiKey}`;
  if (send.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await (call.fetch ?? globalThis.fetch)(new URL(send.path, origin), {
      method: send.method,
      headers,
      ...(send.body !== undefined ? { body: send.body } : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    return noAnswer(err, timeoutMs, '');
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => undefined);
    return { kind: 'redirect', status: response.status, location: response.headers.get('location') };
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > send.limitBytes) {
          await reader.cancel().catch(() => undefined);
          return { kind: 'oversize', status: response.status, limitBytes: send.limitBytes };
        }
        chunks.push(value);
      }
    } catch (err) {
      return noAnswer(err, timeoutMs, 'the answer was cut off: ');
    }
  }
  const bytes = Buffer.concat(chunks, total);
  let text = '';
  let json: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { kind: 'answer', status: response.status, headers: response.headers, bytes, text, json };
}

function noAnswer(err: unknown, timeoutMs: number, prefix: string): CappedExchange {
  const e = err as { name?: string; cause?: { code?: string; message?: string }; message?: string };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') {
    return { kind: 'no_answer', timedOut: true, reason: `${prefix}no answer within ${timeoutMs} ms` };
  }
  return {
    kind: 'no_answer',
    timedOut: false,
    reason: `${prefix}no answer (${e?.cause?.code ?? e?.cause?.message ?? e?.message ?? 'network failure'})`,
  };
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
  const reply = await cappedExchange(call, send);
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
