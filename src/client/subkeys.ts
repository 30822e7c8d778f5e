import type {
  PartnerSubkeyListV1,
  PartnerSubkeyRequestV1,
  PartnerSubkeyV1,
  paths,
} from '../../generated/types/service.ts';
import { schemaProblems } from '../spec/schema-registry.ts';
import { idempotencyKeyPattern } from './core/journal-file.ts';
import { seconds, sendResending } from './core/resend.ts';
import { utcNow } from './core/support.ts';
import {
  apiErrorOf,
  type Exchange,
  type Refusal,
  redirectRefusal,
  refusalOf,
  type Send,
  uuidPattern,
} from './core/transport.ts';

/** Types of the partner subkey routes, all generated from spec/ (spec/openapi/paths/partner-subkey*.yaml). */
type ListPath = '/v1/partner/subkeys';
type RotatePath = '/v1/partner/subkeys/{subkeyId}/rotate';
type RevokePath = '/v1/partner/subkeys/{subkeyId}';
type IssueAnswer = paths[ListPath]['post']['responses'][201]['content']['application/json'];
type ListAnswer = paths[ListPath]['get']['responses'][200]['content']['application/json'];
type RotateAnswer = paths[RotatePath]['post']['responses'][201]['content']['application/json'];
type RevokeAnswer = paths[RevokePath]['delete']['responses'][200]['content']['application/json'];

/** A subkey as first delivered: the one answer that carries its secret. */
export type IssuedSubkey = PartnerSubkeyV1 & { secretState: 'delivered-once'; apiKey: string };
/** A subkey as every later answer shows it: the secret was delivered before and is never shown again. */
export type DeliveredSubkey = PartnerSubkeyV1 & { secretState: 'already-delivered'; apiKey: null };

export const subkeysPath: ListPath = '/v1/partner/subkeys';

/**
 * How a subkey call ended besides success: a refusal (the service's ApiError, or a client code: a refused redirect, a
 * status whose body is no ApiError, SUBKEY_RESPONSE_INVALID for a 2xx that is not the subkey answer asked for) or no
 * definite answer.
 */
export type SubkeyFailure =
  | Refusal
  /**
   * No definite answer within the max wait, or a 500: a write may have been committed. Resend the same bytes with the
   * same Idempotency-Key (an exact replay answers 200 and never issues a second subkey).
   */
  | {
      kind: 'unresolved';
      reason: string;
      status: number | null;
      code: string | null;
      requestId: string | null;
      /** When the client gave up or the last answer came, UTC (for the support line). */
      at: string;
    };

/** A subkey call that ended without its answer: `error` says how. */
export type SubkeyFailed = { data?: undefined; error: SubkeyFailure };

/** The result of issue and rotate. */
export type SubkeyWriteResult =
  | {
      /**
       * `issued` (201): the new subkey with its one-time apiKey. `replayed` (200): an exact replay of the same
       * Idempotency-Key and bytes; the secret went out with the first answer.
       */
      data: { outcome: 'issued'; subkey: IssuedSubkey } | { outcome: 'replayed'; subkey: DeliveredSubkey };
      requestId: string | null;
      error?: undefined;
    }
  | SubkeyFailed;

export type SubkeyListResult =
  | { data: PartnerSubkeyListV1; requestId: string | null; error?: undefined }
  | SubkeyFailed;
export type SubkeyRevokeResult = { data: DeliveredSubkey; requestId: string | null; error?: undefined } | SubkeyFailed;

/** What every subkey call takes. The root key is passed in by the caller; this module reads it from nowhere else. */
export interface SubkeyCallOptions {
  /** The service origin, already checked with checkOrigin. */
  origin: string;
  /** The partner root's key (partner-subkeys:manage). Sent only to `origin`, never returned or put in a message. */
  apiKey: string;
  /** Per-request timeout. */
  timeoutMs: number;
  /**
   * Give up when the next attempt would start after this long (no answer, 429 or a retryable 503 are resent after
   * Retry-After or a doubling backoff). Default 60 s.
   */
  maxWaitMs?: number;
  fetch?: typeof globalThis.fetch;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Progress for a person: each resend and why. Never carries a key. */
  onRetry?: (message: string) => void;
}

/** Issue and rotate bind one Idempotency-Key to the exact body bytes; only that pair is ever (re)sent. */
export interface SubkeyWriteOptions extends SubkeyCallOptions {
  idempotencyKey: string;
  /** The exact body bytes (a PartnerSubkeyRequestV1), sent as they are and never re-serialized. */
  body: Uint8Array;
}

/**
 * The body of issue and rotate with its fields in one fixed order, so the same values always give the same bytes
 * (an exact replay needs the same bytes). Scopes are deduplicated and put in their canonical order.
 */
export function subkeyRequestBytes(request: PartnerSubkeyRequestV1): Uint8Array {
  const canonical: PartnerSubkeyRequestV1['scopes'] = (['custom-launch:create', 'custom-launch:read'] as const).filter(
    (scope) => request.scopes.includes(scope),
  );
  const ordered: PartnerSubkeyRequestV1 = {
    displayName: request.displayName,
    scopes: canonical.length > 0 ? canonical : request.scopes,
    prepareRequestsPerHour: request.prepareRequestsPerHour,
    readRequestsPerMinute: request.readRequestsPerMinute,
    expiresAt: request.expiresAt,
  };
  return new TextEncoder().encode(JSON.stringify(ordered));
}

/** GET /v1/partner/subkeys: every subkey of the root, newest first, without secrets. */
export async function listSubkeys(options: SubkeyCallOptions): Promise<SubkeyListResult> {
  const outcome = await withRetries(options, { method: 'GET', path: subkeysPath });
  if (outcome.kind !== 'answer') return { error: outcome };
  const { reply } = outcome;
  if (reply.status !== 200) return { error: refusalOf(reply, options.apiKey) };
  const list = reply.json as ListAnswer;
  const problems = schemaProblems('partner-subkey-list.v1.schema.json', list);
  if (problems.length > 0) {
    return {
      error: invalid(
        reply,
        `the 200 answer is not a platform.partner-subkey.v1 list: ${problems.slice(0, 3).join('; ')}`,
      ),
    };
  }
  return { data: list, requestId: reply.headers.get('x-request-id') };
}

/**
 * POST /v1/partner/subkeys: issues a subkey. 201 `issued` with the one-time apiKey; 200 `replayed` (the same key and
 * bytes were answered before: `already-delivered`, no key). No answer, 429 and a retryable 503 resend the same bytes
 * with the same Idempotency-Key after Retry-After (or a doubling backoff) until `maxWaitMs`; nothing else is resent.
 */
export function issueSubkey(options: SubkeyWriteOptions): Promise<SubkeyWriteResult> {
  return write(options, subkeysPath, null);
}

/**
 * POST /v1/partner/subkeys/{subkeyId}/rotate: revokes the subkey and issues its replacement in the same lineage, with
 * the same results and resend rule as issueSubkey. The answer must name `subkeyId` as rotatedFromSubkeyId.
 */
export function rotateSubkey(options: SubkeyWriteOptions & { subkeyId: string }): Promise<SubkeyWriteResult> {
  checkSubkeyId(options.subkeyId);
  return write(options, `/v1/partner/subkeys/${options.subkeyId}/rotate`, options.subkeyId);
}

/** DELETE /v1/partner/subkeys/{subkeyId}: revokes the subkey (idempotent: an already revoked or rotated one answers 200 unchanged). */
export async function revokeSubkey(options: SubkeyCallOptions & { subkeyId: string }): Promise<SubkeyRevokeResult> {
  checkSubkeyId(options.subkeyId);
  const outcome = await withRetries(options, { method: 'DELETE', path: `/v1/partner/subkeys/${options.subkeyId}` });
  if (outcome.kind !== 'answer') return { error: outcome };
  const { reply } = outcome;
  if (reply.status !== 200) return { error: refusalOf(reply, options.apiKey) };
  const subkey = reply.json as RevokeAnswer | undefined;
  const problem =
    shapeProblem(subkey, 'already-delivered') ??
    (subkey?.subkeyId !== options.subkeyId ? 'it names another subkeyId' : undefined) ??
    (subkey?.status !== 'revoked' && subkey?.status !== 'rotated' ? `its status is ${subkey?.status}` : undefined);
  if (problem) return { error: invalid(reply, `the 200 answer is not the revoked subkey: ${problem}`) };
  return { data: subkey as DeliveredSubkey, requestId: reply.headers.get('x-request-id') };
}

async function write(
  options: SubkeyWriteOptions,
  path: string,
  rotatedFrom: string | null,
): Promise<SubkeyWriteResult> {
  if (!idempotencyKeyPattern.test(options.idempotencyKey)) {
    throw new TypeError('idempotencyKey must be 16 to 128 of letters, digits, dots, underscores, colons or hyphens');
  }
  const outcome = await withRetries(options, {
    method: 'POST',
    path,
    headers: { 'Idempotency-Key': options.idempotencyKey },
    body: options.body,
  });
  if (outcome.kind !== 'answer') return { error: outcome };
  const { reply } = outcome;
  const requestId = reply.headers.get('x-request-id');
  if (reply.status !== 201 && reply.status !== 200) return { error: refusalOf(reply, options.apiKey) };
  const state = reply.status === 201 ? 'delivered-once' : 'already-delivered';
  const subkey = reply.json as IssueAnswer | RotateAnswer | undefined;
  const problem =
    shapeProblem(subkey, state) ??
    (rotatedFrom !== null && subkey?.rotatedFromSubkeyId !== rotatedFrom
      ? `rotatedFromSubkeyId is not ${rotatedFrom}`
      : undefined);
  if (problem) {
    // Never echo the body: a 201 carries a secret.
    const issued = '; a subkey may have been issued: list the subkeys and revoke one you cannot use';
    return {
      error: invalid(
        reply,
        `the ${reply.status} answer is not a platform.partner-subkey.v1 subkey: ${problem}${reply.status === 201 ? issued : ''}`,
      ),
    };
  }
  return reply.status === 201
    ? { data: { outcome: 'issued', subkey: subkey as IssuedSubkey }, requestId }
    : { data: { outcome: 'replayed', subkey: subkey as DeliveredSubkey }, requestId };
}

/**
 * Why a body is not a platform.partner-subkey.v1 subkey whose secret is in `state` (the schema binds the apiKey to the
 * secretState), or undefined when it is one. The problems name paths only, never a value: a 201 carries a secret.
 */
function shapeProblem(body: PartnerSubkeyV1 | undefined, state: PartnerSubkeyV1['secretState']): string | undefined {
  const problems = schemaProblems('partner-subkey.v1.schema.json', body);
  if (problems.length > 0) return problems.slice(0, 3).join('; ');
  if (body?.secretState !== state) return `secretState is not ${state}`;
  return undefined;
}

type Attempted = { kind: 'answer'; reply: Extract<Exchange, { kind: 'answer' }> } | SubkeyFailure;

/**
 * Sends one request through sendResending (no answer, 429 and a retryable 503 are resent, honoring Retry-After).
 * Giving up is a refusal when every attempt was answered (429 or 503: nothing was done), and unresolved when one was
 * not (a write may have been committed). A 500 is unresolved, never resent; a redirect is refused.
 */
async function withRetries(
  options: SubkeyCallOptions,
  request: Pick<Send, 'method' | 'path' | 'headers' | 'body'>,
): Promise<Attempted> {
  const resent = await sendResending(
    {
      origin: options.origin,
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs,
      ...request,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    },
    {
      maxWaitMs: options.maxWaitMs ?? 60_000,
      ...(options.now ? { now: options.now } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
      onRetry: (attempt, why, waitMs) =>
        options.onRetry?.(`attempt ${attempt}: ${why}; resending the same request in ${seconds(waitMs)}`),
    },
  );
  if (resent.kind === 'gave_up') {
    const { last, why } = resent;
    if (last.kind !== 'answer') {
      return {
        kind: 'unresolved',
        reason: last.kind === 'no_answer' ? last.reason : why,
        status: null,
        code: null,
        requestId: null,
        at: utcNow(),
      };
    }
    const refusal = refusalOf(last, options.apiKey);
    return resent.unanswered
      ? {
          kind: 'unresolved',
          reason: `an earlier attempt had no answer, and the last was ${why}`,
          status: refusal.status,
          code: refusal.code,
          requestId: refusal.requestId,
          at: refusal.at,
        }
      : { ...refusal, message: `${refusal.message} (Retry-After ${seconds(resent.waitMs)} passes the max wait)` };
  }
  const { reply } = resent;
  if (reply.kind === 'redirect') return redirectRefusal(reply);
  if (reply.status === 500) {
    const error = apiErrorOf(reply);
    return {
      kind: 'unresolved',
      reason: `the service answered 500 ${error?.code ?? 'NOT_AN_API_ERROR'}`,
      status: 500,
      code: error?.code ?? null,
      requestId: error?.requestId ?? null,
      at: utcNow(),
    };
  }
  return { kind: 'answer', reply };
}

function invalid(reply: { status: number; headers: Headers }, message: string): Refusal {
  return {
    kind: 'refused',
    status: reply.status,
    code: 'SUBKEY_RESPONSE_INVALID',
    message,
    requestId: reply.headers.get('x-request-id'),
    at: utcNow(),
  };
}

function checkSubkeyId(subkeyId: string): void {
  if (!uuidPattern.test(subkeyId)) throw new TypeError(`"${subkeyId.slice(0, 80)}" is not a subkeyId (a UUID)`);
}
