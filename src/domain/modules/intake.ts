import { createHash, randomUUID } from 'node:crypto';
import type { IntakeLimits, ModuleIntakeReceipt, ModuleSubmissionRequest } from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { canonicalJson, sha256Digest } from '../../core/canonical-json.ts';
import { checkSubmittedFiles, compilerSourceName, ModuleFileRuleError, moduleLimits } from '../../core/module-files.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { idempotentWrite, recordAnswer } from '../idempotency.ts';
import { abiFieldProblem, abiTypeProblem } from './abi-value.ts';

type Descriptor = ModuleSubmissionRequest['descriptor'];

const zeroAddress = /^0x0{40}$/i;
const hex32 = (value: unknown) => `0x${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;

/** The family and package identities: derived from author, familySalt and name only. */
function moduleIdentity(descriptor: Descriptor): { familyId: string; packageId: string } {
  const familyId = hex32({ author: descriptor.author.toLowerCase(), familySalt: descriptor.familySalt });
  return { familyId, packageId: hex32({ familyId, name: descriptor.name }) };
}

/** A broken file rule of core/module-files.ts, as the ApiError of the same code and message. */
function asApiError<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof ModuleFileRuleError) throw new ApiError(err.code, { message: err.message });
    throw err;
  }
}

function invalid(message: string): never {
  throw new ApiError('INVALID_REQUEST', { message });
}

/**
 * The rules of a submission no JSON Schema states (the submit description in
 * spec/openapi/paths/modules-submissions.yaml), in order: author, reward wallet, the files against the inventory
 * (hashes, bytes, sizes), the total raw size, references between descriptor parts, configuration values against
 * their ABI types and bounds (abi-value.ts), fixed configuration overrides, compiler source name collisions. Returns
 * the total decoded size.
 */
function checkSubmission(
  principal: Principal,
  request: ModuleSubmissionRequest,
  limits: IntakeLimits,
): { byteCount: number } {
  const d = request.descriptor;
  if (!principal.wallet || d.author.toLowerCase() !== principal.wallet.toLowerCase()) {
    throw new ApiError('MODULE_AUTHOR_MISMATCH', {
      message: `descriptor.author ${d.author} is not the API key's wallet; use identity.author of the context.`,
    });
  }
  if (zeroAddress.test(d.rewardWallet)) {
    throw new ApiError('OPEN_ADDRESS', { message: 'descriptor.rewardWallet is the zero address.' });
  }

  const { byteCount } = asApiError(() => checkSubmittedFiles(request, limits));
  const inventory = new Set(d.source.files.map((f) => f.path));
  if (!inventory.has(d.documentation)) invalid(`documentation ${d.documentation} is not in descriptor.source.files.`);
  const componentIds = new Set<string>();
  for (const c of d.components) {
    if (componentIds.has(c.id)) invalid(`component id ${c.id} appears twice.`);
    componentIds.add(c.id);
    if (!inventory.has(c.sourcePath)) invalid(`component ${c.id}: sourcePath ${c.sourcePath} is not in the inventory.`);
  }
  const fields = new Map<string, (typeof d.configuration.fields)[number]>();
  for (const f of d.configuration.fields) {
    if (fields.has(f.name)) invalid(`configuration field ${f.name} appears twice.`);
    fields.set(f.name, f);
    const problem = abiFieldProblem(f);
    if (problem) invalid(`configuration field ${f.name}: ${problem}.`);
  }
  for (const action of d.management.actions) {
    if (!componentIds.has(action.component)) invalid(`management action names unknown component ${action.component}.`);
  }
  for (const [i, constraint] of d.constraints.entries()) {
    const left = fields.get(constraint.left);
    if (!left) invalid(`constraints[${i}] names unknown configuration field ${constraint.left}.`);
    const right = constraint.right as { field?: string; value?: unknown };
    if (right.field !== undefined && !fields.has(right.field)) {
      invalid(`constraints[${i}] names unknown configuration field ${right.field}.`);
    }
    const literal = right.value === undefined ? null : abiTypeProblem(left.type, right.value);
    if (literal) invalid(`constraints[${i}] compares ${left.name} with a literal that is not its type: ${literal}.`);
    const binding = left.binding as { mode: string; value?: unknown };
    if (
      constraint.operator === '==' &&
      binding.mode === 'fixed' &&
      right.value !== undefined &&
      canonicalJson(right.value) !== canonicalJson(binding.value)
    ) {
      throw new ApiError('OPEN_CONFIG_FIXED_OVERRIDE', {
        message: `constraints[${i}] sets the fixed field ${left.name} to another value than its fixed ${JSON.stringify(binding.value)}.`,
      });
    }
  }

  const names = new Map<string, string>();
  for (const path of inventory.keys()) {
    const name = compilerSourceName(path);
    const other = names.get(name);
    if (other !== undefined) {
      throw new ApiError('MODULE_BUILD_SOURCE_ALIAS_COLLISION', {
        message: `${other} and ${path} both compile as ${name}.`,
      });
    }
    names.set(name, path);
  }
  return { byteCount };
}

interface SubmissionRow {
  submission_id: string;
  author: string;
  family_id: string;
  package_id: string;
  name: string;
  version: string;
  receipt_json: string;
}

/**
 * submitModule (spec/openapi/paths/modules-submissions.yaml): checks the submission, then in one immediate
 * transaction replays an exact retry (200, the first body byte for byte) or refuses other bytes under the key (409
 * MODULE_IDEMPOTENCY_CONFLICT), applies the identity rules (version, package and lineage conflicts) and stores the
 * immutable draft. 201 only after the commit is on disk (synchronous=FULL). Every refusal stores nothing.
 */
export function submitModule(
  db: Db,
  input: {
    principal: Principal;
    idempotencyKey: string;
    request: ModuleSubmissionRequest;
    rawBody: Buffer;
    now: number;
    /** The deployment's published intake limits (config modulesLimits). */
    limits: IntakeLimits;
  },
): { status: 200 | 201; body: string } {
  const { principal, request } = input;
  const idem = {
    keyId: principal.keyId,
    operation: 'submitModule',
    idempotencyKey: input.idempotencyKey,
    requestDigest: sha256Digest(input.rawBody),
  };
  return idempotentWrite(
    db,
    idem,
    {
      // The checks read no state, so they run before the write lock is taken (decoding 16 MiB takes a while).
      check: () => checkSubmission(principal, request, input.limits),
      first: ({ byteCount }) => {
        const identity = moduleIdentity(request.descriptor);
        checkIdentityRules(db, request, identity);
        const receipt = draftReceipt(request, identity, byteCount, new Date(input.now).toISOString());
        const body = JSON.stringify(receipt);
        storeDraft(db, { receipt, body, keyId: principal.keyId, rawBody: input.rawBody });
        recordAnswer(db, idem, { status: 201, body }, receipt.createdAt);
        return { status: 201 as const, body };
      },
    },
    'MODULE_IDEMPOTENCY_CONFLICT',
  );
}

/**
 * The identity rules against the stored submissions of the package family. A first submission (no
 * supersedesSubmissionId) needs a family without submissions: its version already submitted is
 * MODULE_VERSION_ALREADY_SUBMITTED, any other submission of the family MODULE_PACKAGE_CONFLICT. A revision must
 * supersede the latest submission of the same author's package in the family, one nobody superseded yet
 * (MODULE_REVISION_LINEAGE_INVALID), with a version the family has not had (MODULE_VERSION_ALREADY_SUBMITTED).
 */
function checkIdentityRules(
  db: Db,
  request: ModuleSubmissionRequest,
  { familyId, packageId }: { familyId: string; packageId: string },
): void {
  const d = request.descriptor;
  const family = statement(
    db,
    'SELECT submission_id, author, family_id, package_id, name, version, receipt_json FROM module_submissions WHERE family_id = ?',
  ).all(familyId) as SubmissionRow[];
  const supersedes = request.supersedesSubmissionId ?? null;
  const versionTaken = () =>
    new ApiError('MODULE_VERSION_ALREADY_SUBMITTED', {
      message: `Version ${d.version} of this package was already submitted; submit a new linked version.`,
    });
  if (supersedes === null) {
    if (family.some((s) => s.package_id === packageId && s.version === d.version)) throw versionTaken();
    if (family.length > 0) {
      throw new ApiError('MODULE_PACKAGE_CONFLICT', {
        message: `This package family already has submission ${family.at(-1)?.submission_id}; submit a revision with supersedesSubmissionId.`,
      });
    }
    return;
  }
  const predecessor = family.find((s) => s.submission_id === supersedes);
  const successor = statement(db, 'SELECT 1 AS taken FROM module_submissions WHERE supersedes_submission_id = ?').get(
    supersedes,
  );
  if (!predecessor || predecessor.author !== d.author.toLowerCase() || predecessor.name !== d.name || successor) {
    throw new ApiError('MODULE_REVISION_LINEAGE_INVALID', {
      message: `supersedesSubmissionId ${supersedes} is not the latest submission of this author's package ${d.name} in this family.`,
    });
  }
  if (family.some((s) => s.version === d.version)) throw versionTaken();
}

/** The receipt of a new draft (ModuleIntakeReceipt): unreviewed, not approved, not available. */
function draftReceipt(
  request: ModuleSubmissionRequest,
  { familyId, packageId }: { familyId: string; packageId: string },
  byteCount: number,
  createdAt: string,
): ModuleIntakeReceipt {
  const d = request.descriptor;
  return {
    contract: 'platform.modules.api.v0.1',
    submissionId: randomUUID(),
    status: 'draft_received',
    reviewStatus: 'unreviewed',
    approved: false,
    available: false,
    packageId,
    familyId,
    requestDigest: sha256Digest(canonicalJson(request)),
    author: d.author.toLowerCase(),
    rewardWallet: d.rewardWallet.toLowerCase(),
    byteCount,
    name: d.name,
    version: d.version,
    supersedesSubmissionId: request.supersedesSubmissionId ?? null,
    createdAt,
  };
}

/**
 * Stores the draft: the request bytes as received and the receipt body as answered, and with it, in the same
 * transaction, the durable review job awaiting its plan.
 */
function storeDraft(
  db: Db,
  draft: { receipt: ModuleIntakeReceipt; body: string; keyId: string; rawBody: Buffer },
): void {
  const { receipt } = draft;
  statement(
    db,
    `INSERT INTO module_submissions (submission_id, author, key_id, family_id, package_id, name, version,
           supersedes_submission_id, request_bytes, receipt_json, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    receipt.submissionId,
    receipt.author,
    draft.keyId,
    receipt.familyId,
    receipt.packageId,
    receipt.name,
    receipt.version,
    receipt.supersedesSubmissionId,
    draft.rawBody,
    draft.body,
    receipt.createdAt,
  );
  statement(
    db,
    `INSERT INTO module_reviews (submission_id, state, revision, attempt, created_at, updated_at)
         VALUES (?, 'awaiting_plan', 0, 0, ?, ?)`,
  ).run(receipt.submissionId, receipt.createdAt, receipt.createdAt);
}

/** The wallet whose receipts a key may read: its own (receipts are private to the author wallet's principal). */
export function authorOf(principal: Principal): string {
  if (!principal.wallet) throw new ApiError('MODULE_SUBMISSION_NOT_FOUND');
  return principal.wallet.toLowerCase();
}

/** getModuleSubmission: the receipt as answered at creation; another wallet's or an unknown id is 404. */
export function readReceipt(db: Db, principal: Principal, submissionId: string): string {
  const row = statement(db, 'SELECT receipt_json FROM module_submissions WHERE submission_id = ? AND author = ?').get(
    submissionId,
    authorOf(principal),
  ) as { receipt_json: string } | undefined;
  if (!row) {
    throw new ApiError('MODULE_SUBMISSION_NOT_FOUND', {
      message: `No submission ${submissionId} for this wallet.`,
    });
  }
  return row.receipt_json;
}

/**
 * listModuleSubmissions: the wallet's receipts newest first, 20 a page; the cursor is the submissionId of the last
 * item of the previous page (a UUID), refused with 400 unless it is one of this wallet's submissions.
 */
export function listReceipts(db: Db, principal: Principal, cursor: string | undefined): string {
  const author = authorOf(principal);
  let before = Number.MAX_SAFE_INTEGER;
  if (cursor !== undefined) {
    const at = statement(db, 'SELECT seq FROM module_submissions WHERE submission_id = ? AND author = ?').get(
      cursor,
      author,
    ) as { seq: number } | undefined;
    if (!at) invalid(`cursor ${cursor} is not a position in this wallet's receipt list; pass nextCursor unchanged.`);
    before = at.seq;
  }
  const limit = moduleLimits.maxListPageItems;
  const rows = statement(
    db,
    'SELECT submission_id, receipt_json FROM module_submissions WHERE author = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
  ).all(author, before, limit + 1) as Array<{ submission_id: string; receipt_json: string }>;
  const page = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? (page.at(-1)?.submission_id ?? null) : null;
  // The stored receipts are already the exact JSON answered at creation.
  return `{"items":[${page.map((r) => r.receipt_json).join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}`;
}
