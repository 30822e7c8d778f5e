import type {
  ModuleIntakeReceipt,
  ModuleIntakeReceiptList,
  ModuleSubmissionRequest,
} from '../../../generated/types/service.ts';
import { canonicalJson, sha256Digest } from '../../core/canonical-json.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { uuidPattern } from '../core/transport.ts';
import { type AuthenticatedModuleCall, exchangeJson, responseLimitBytes } from './call.ts';
import { clientFailure, type ModuleResult } from './errors.ts';

export const submissionsPath = '/v1/modules/submissions';

/**
 * Throws a TypeError (misuse) unless `submissionId` is a common.schema.json Uuid (lowercase, version 1 to 8, variant
 * 8, 9, a or b): the path is never built from anything else.
 */
export function checkSubmissionId(submissionId: string): string {
  if (!uuidPattern.test(submissionId)) {
    throw new TypeError(`"${submissionId.slice(0, 80)}" is not a submissionId (a lowercase UUID from a receipt)`);
  }
  return submissionId;
}

/**
 * The requestDigest a receipt must carry for these exact request bytes: `sha256:` of the RFC 8785 canonical JSON
 * of the request (module-intake-receipt.v0.1 requestDigest).
 */
export function requestDigestOf(requestBytes: Uint8Array): string {
  return sha256Digest(canonicalJson(JSON.parse(Buffer.from(requestBytes).toString('utf8'))));
}

/**
 * How a receipt fails to bind the request it answers, none when it binds it (spec ModuleIntakeReceipt):
 * a submissionId, the request's author (case-insensitive), reward wallet, name, version and
 * supersession, its decoded byte count, and the requestDigest of its exact bytes.
 */
export function receiptBindingProblems(receipt: unknown, requestBytes: Uint8Array): string[] {
  if (!receipt || typeof receipt !== 'object') return ['the answer is not a receipt object'];
  const r = receipt as Record<string, unknown>;
  const request = JSON.parse(Buffer.from(requestBytes).toString('utf8')) as ModuleSubmissionRequest;
  const problems: string[] = [];
  if (typeof r.submissionId !== 'string' || !uuidPattern.test(r.submissionId)) {
    problems.push('submissionId is missing or not a UUID');
  }
  const same = (field: string, want: unknown, got: unknown, caseless = false) => {
    const equal =
      caseless && typeof want === 'string' && typeof got === 'string'
        ? want.toLowerCase() === got.toLowerCase()
        : want === got;
    if (!equal) problems.push(`${field} is ${JSON.stringify(got ?? null)}, the request has ${JSON.stringify(want)}`);
  };
  same('author', request.descriptor.author, r.author, true);
  same('rewardWallet', request.descriptor.rewardWallet, r.rewardWallet, true);
  same('name', request.descriptor.name, r.name);
  same('version', request.descriptor.version, r.version);
  same('supersedesSubmissionId', request.supersedesSubmissionId ?? null, r.supersedesSubmissionId);
  // The generated type widens `bytes` to unknown (its schema's anyOf); the schema makes it a base64 string.
  const byteCount = request.files.reduce((n, f) => n + Buffer.from(f.bytes as string, 'base64').length, 0);
  same('byteCount', byteCount, r.byteCount);
  same('requestDigest', requestDigestOf(requestBytes), r.requestDigest);
  return problems;
}

/**
 * Checks a submit answer (201 or 200) against the exact request bytes: one that does not bind the request is
 * MODULE_API_RECEIPT_MISMATCH, one off the receipt schema MODULE_API_RESPONSE; both mean the submission may exist.
 */
export function bindSubmitReceipt(
  json: unknown,
  requestBytes: Uint8Array,
  httpStatus: number,
): ModuleResult<ModuleIntakeReceipt> {
  const binding = receiptBindingProblems(json, requestBytes);
  if (binding.length > 0) {
    return {
      error: clientFailure(
        'MODULE_API_RECEIPT_MISMATCH',
        `the receipt does not bind the request: ${binding.join('; ')}`,
        {
          httpStatus,
          submissionMayExist: true,
        },
      ),
    };
  }
  const problems = schemaProblems('module-intake-receipt.v0.1.schema.json', json);
  if (problems.length > 0) {
    return {
      error: clientFailure('MODULE_API_RESPONSE', `the receipt is off contract: ${problems.slice(0, 5).join('; ')}`, {
        httpStatus,
        submissionMayExist: true,
      }),
    };
  }
  return { data: json as ModuleIntakeReceipt, httpStatus };
}

/**
 * Reads one intake receipt (GET /v1/modules/submissions/{submissionId}, `modules:read`; spec getModuleSubmission).
 * A receipt of another submission is MODULE_API_RECEIPT_MISMATCH; one off the schema MODULE_API_RESPONSE.
 */
export async function fetchModuleReceipt(
  call: AuthenticatedModuleCall,
  submissionId: string,
): Promise<ModuleResult<ModuleIntakeReceipt>> {
  checkSubmissionId(submissionId);
  const reply = await exchangeJson(call, {
    method: 'GET',
    path: `${submissionsPath}/${submissionId}`,
    apiKey: call.apiKey,
    limitBytes: responseLimitBytes,
  });
  if (reply.error) return reply;
  const json = reply.data.json as { submissionId?: unknown };
  if (json.submissionId !== submissionId) {
    return {
      error: clientFailure(
        'MODULE_API_RECEIPT_MISMATCH',
        `asked for submission ${submissionId}, the receipt is of ${JSON.stringify(json.submissionId ?? null).slice(0, 60)}`,
        { httpStatus: reply.httpStatus },
      ),
    };
  }
  const problems = schemaProblems('module-intake-receipt.v0.1.schema.json', json);
  if (problems.length > 0) {
    return {
      error: clientFailure('MODULE_API_RESPONSE', `the receipt is off contract: ${problems.slice(0, 5).join('; ')}`, {
        httpStatus: reply.httpStatus,
      }),
    };
  }
  return { data: json as ModuleIntakeReceipt, httpStatus: reply.httpStatus };
}

/**
 * Reads every intake receipt of the key's principal (GET /v1/modules/submissions, `modules:read`; spec
 * listModuleSubmissions), newest first, following `nextCursor` until it is null (no offset or limit).
 * A page off the schema, a cursor seen before, or a receipt repeated across pages is MODULE_API_RESPONSE.
 */
export async function listModuleReceipts(
  call: AuthenticatedModuleCall,
  options: { maxPages?: number; onPage?: (page: number, items: number) => void } = {},
): Promise<ModuleResult<ModuleIntakeReceipt[]>> {
  const maxPages = options.maxPages ?? 1000;
  const items: ModuleIntakeReceipt[] = [];
  const ids = new Set<string>();
  const cursors = new Set<string>();
  let cursor: string | null = null;
  for (let page = 1; ; page++) {
    const reply = await exchangeJson(call, {
      method: 'GET',
      path: cursor ? `${submissionsPath}?cursor=${encodeURIComponent(cursor)}` : submissionsPath,
      apiKey: call.apiKey,
      limitBytes: responseLimitBytes,
    });
    if (reply.error) return reply;
    const fail = (message: string) => ({
      error: clientFailure('MODULE_API_RESPONSE', `receipt list page ${page}: ${message}`, {
        httpStatus: reply.httpStatus,
      }),
    });
    const problems = schemaProblems('module-intake-receipt-list.v0.1.schema.json', reply.data.json);
    if (problems.length > 0) return fail(`off contract: ${problems.slice(0, 5).join('; ')}`);
    const list = reply.data.json as ModuleIntakeReceiptList;
    for (const item of list.items) {
      if (ids.has(item.submissionId)) return fail(`receipt ${item.submissionId} was already listed`);
      ids.add(item.submissionId);
      items.push(item);
    }
    options.onPage?.(page, list.items.length);
    if (list.nextCursor === null) return { data: items, httpStatus: reply.httpStatus };
    if (cursors.has(list.nextCursor)) return fail(`nextCursor ${list.nextCursor} repeats an earlier page`);
    if (page >= maxPages) return fail(`still a nextCursor after ${maxPages} pages`);
    cursors.add(list.nextCursor);
    cursor = list.nextCursor;
  }
}
