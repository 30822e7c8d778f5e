import type { ApiError } from '../../../generated/types/service.ts';
import { utcNow } from './support.ts';

/** One exchange with the service: an HTTP answer, or none (timeout, refused connection, cut stream). */
export type Exchange =
  | { kind: 'answer'; status: number; headers: Headers; bytes: Buffer; text: string; json: unknown }
  | { kind: 'redirect'; status: number; location: string | null }
  | { kind: 'no_answer'; timedOut: boolean; reason: string };

/** An exchange whose answer is read up to a byte cap: past it, `oversize`, cut off unread and never parsed. */
export type CappedExchange = Exchange | { kind: 'oversize'; status: number; limitBytes: number };

/** What a request sends: always to the one configured origin, with or without the key. */
export interface Send {
  origin: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Exact body bytes: sent as they are, never re-serialized. */
  body?: Uint8Array;
  /** The body's media type; JSON unless named (a source file goes as application/octet-stream). */
  contentType?: string;
  timeoutMs: number;
  fetch?: typeof globalThis.fetch;
}

/**
 * Sends one request to the configured origin and reads the whole answer. Redirects are never followed (a 3xx is
 * returned as `redirect`, so a key never travels to another place); a timeout (which also covers reading the body) or
 * a network failure is `no_answer`, which callers treat as ambiguous. Never throws on an HTTP status. The key appears
 * in no returned value or message.
 */
export async function exchange(send: Send): Promise<Exchange> {
  return (await read(send, Number.POSITIVE_INFINITY)) as Exchange;
}

/**
 * exchange, with the answer read up to `limitBytes` after decompression (fetch decodes gzip, deflate and br; the
 * decoded stream is what is counted, so a small compressed body cannot expand past the cap).
 */
export function cappedExchange(send: Send & { limitBytes: number }): Promise<CappedExchange> {
  return read(send, send.limitBytes);
}

async function read(send: Send, limitBytes: number): Promise<CappedExchange> {
  const headers: Record<string, string> = { Accept: 'application/json', ...send.headers };
  if (send.apiKey !== undefined) headers.Authorization = `Bearer ${send.apiKey}`;
  if (send.body !== undefined) headers['Content-Type'] = send.contentType ?? 'application/json';
  let response: Response;
  try {
    response = await (send.fetch ?? globalThis.fetch)(new URL(send.path, send.origin), {
      method: send.method,
      headers,
      ...(send.body !== undefined ? { body: send.body } : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(send.timeoutMs),
    });
  } catch (err) {
    return noAnswer(err, send.timeoutMs, '');
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
        if (total > limitBytes) {
          await reader.cancel().catch(() => undefined);
          return { kind: 'oversize', status: response.status, limitBytes };
        }
        chunks.push(value);
      }
    } catch (err) {
      return noAnswer(err, send.timeoutMs, 'the answer was cut off: ');
    }
  }
  const bytes = Buffer.concat(chunks, total);
  const text = new TextDecoder('utf-8').decode(bytes);
  let json: unknown;
  try {
    // Only well-formed UTF-8 is JSON; the text of anything else is for messages alone.
    json = text ? JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) : undefined;
  } catch {
    json = undefined;
  }
  return { kind: 'answer', status: response.status, headers: response.headers, bytes, text, json };
}

function noAnswer(err: unknown, timeoutMs: number, prefix: string): Extract<Exchange, { kind: 'no_answer' }> {
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

/** What every authenticated call of the client flow takes. */
export interface CallOptions {
  apiKey: string;
  /** Per-request timeout. */
  timeoutMs: number;
  fetch?: typeof globalThis.fetch;
  now?: () => number;
}

/**
 * Codes the client gives a refusal that carries no ApiError of the service (project design): a redirect it refused,
 * an answer that is not the pinned V4 chain-4663 launch, or a status whose body is no ApiError.
 */
export type ClientRefusalCode =
  | 'REDIRECT_REFUSED'
  | 'PINNED_RESOURCE_MISMATCH'
  | 'NOT_AN_API_ERROR'
  | 'SUBKEY_RESPONSE_INVALID';

/** The refusal codes the client itself gives (ClientRefusalCode), for telling them from the service's. */
export const clientRefusalCodes: readonly ClientRefusalCode[] = [
  'REDIRECT_REFUSED',
  'PINNED_RESOURCE_MISMATCH',
  'NOT_AN_API_ERROR',
  'SUBKEY_RESPONSE_INVALID',
];

/** The contract's UUID (common.schema.json $defs.Uuid): launchId, submissionId, subkeyId. */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The contract's request id (common.schema.json $defs.RequestId): never a UUID, so never a launchId. */
export const requestIdPattern = /^req_[0-9a-f]{32}$/;

/** A definite refusal: what a support request quotes. */
export interface Refusal {
  kind: 'refused';
  status: number;
  code: ApiError['error']['code'] | ClientRefusalCode;
  message: string;
  requestId: string | null;
  /** When the answer came, UTC (for the support line). */
  at: string;
}

/** The ApiError of an answer, when its body is one. */
export function apiErrorOf(answer: { json: unknown }): ApiError['error'] | undefined {
  const body = answer.json as Partial<ApiError> | undefined;
  const error = body?.error;
  return error && typeof error === 'object' && typeof error.code === 'string' ? error : undefined;
}

/**
 * The refusal an answer states: its ApiError, or NOT_AN_API_ERROR with the start of the body. `secret` (the key sent)
 * is blanked out of the quoted text, whatever the service put there.
 */
export function refusalOf(
  answer: { status: number; text: string; json: unknown },
  secret?: string,
  at: string = utcNow(),
): Refusal {
  const error = apiErrorOf(answer);
  const text = error?.message ?? answer.text.slice(0, 200);
  return {
    kind: 'refused',
    status: answer.status,
    code: error?.code ?? 'NOT_AN_API_ERROR',
    message: secret ? text.split(secret).join('[redacted]') : text,
    requestId: error?.requestId ?? null,
    at,
  };
}

/** The refusal of a redirect: never followed, so a key goes nowhere but the configured origin. */
export function redirectRefusal(redirect: { status: number }): Refusal {
  return {
    kind: 'refused',
    status: redirect.status,
    code: 'REDIRECT_REFUSED',
    message: `the origin answered ${redirect.status} with a redirect; redirects are refused, so the key goes nowhere else`,
    requestId: null,
    at: utcNow(),
  };
}
