import type {
  ModuleIntakeReceipt,
  ModuleReviewDecision,
  ModuleReviewExport,
  ModuleReviewStatus,
  ModuleSubmissionRequest,
} from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { canonicalJson, sha256Digest } from '../../core/canonical-json.ts';
import { ApiError } from '../../errors/api-error.ts';
import { pinnedCompilerVersion, solidityBuildSettings } from '../../solidity/compile-contracts.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';
import { authorOf, readReceipt } from './intake.ts';

type ReviewState = ModuleReviewStatus['review']['state'];
type NextAction = ModuleReviewStatus['review']['nextAction'];
type ReviewOutcome = ModuleReviewDecision['command']['outcome'];

/** Each review state and the nextAction reported with it (spec/schemas/module-review-status.v1.schema.json). */
const nextActionOf: Record<ReviewState, NextAction> = {
  awaiting_plan: 'await_review_plan',
  queued: 'await_build',
  running: 'await_build',
  built: 'await_reviewer_decision',
  build_failed: 'await_review_plan',
  changes_requested: 'submit_new_version',
  rejected: 'review_rejection',
  accepted: 'await_registry_admission',
};

/** A review plan: the profile that reviews the package, its runtime and the pinned build. */
export interface ReviewPlan {
  profile: 'platform.native-solidity@1' | 'platform.module-engine-solidity@1' | 'platform.engine-quote-v4-v3@1';
  runtime: string;
  /** The exact source the quote test environment profile is bound to; null for the other profiles. */
  sourceDigest: string | null;
  compilerVersion: string;
  settings: typeof solidityBuildSettings;
  /** The engine dependency aliases apply (engine compilation only). */
  engineAliases: boolean;
  /** Total submitted source including dependencies and documentation. */
  maxSourceBytes: number;
  /** The encoded configuration (platform.abi-tuple@1). */
  maxEncodedConfigurationBytes: number;
  /** Engine profiles: the limits of the run on the local EVM; null for the native profile. */
  engineExecution: {
    maxInitializationDataBytes: number;
    maxOperationDataBytes: number;
    maxExecutionGas: number;
  } | null;
}

/**
 * The review profiles' data limits and the engine execution budget: 16 KiB of encoded configuration; engine
 * initialization data and operation data 16 KiB each; at most 3,000,000 gas (the maxima of review.profiles and
 * review.limits in spec/schemas/modules-context.v1.schema.json, where the context publishes them).
 */
export const reviewDataLimits = {
  maxEncodedConfigurationBytes: 16_384,
  maxEngineInitializationDataBytes: 16_384,
  maxEngineOperationDataBytes: 16_384,
  maxEngineExecutionGas: 3_000_000,
} as const;

/** The review profiles' limits: 4 MiB of source, 16 KiB of encoded configuration each. */
const profileLimits = {
  maxSourceBytes: 4_194_304,
  maxEncodedConfigurationBytes: reviewDataLimits.maxEncodedConfigurationBytes,
} as const;
const runtimeProfiles = [
  { name: 'platform.native-solidity@1', runtime: 'platform.module-native-runtime@1', ...profileLimits },
  { name: 'platform.module-engine-solidity@1', runtime: 'platform.module-engine-solidity@1', ...profileLimits },
] as const;
const quoteProfileName = 'platform.engine-quote-v4-v3@1';

/**
 * The profiles this deployment reviews, as the context lists them: native and engine, plus the fixed quote test
 * environment bound to its exact source digest when one is configured.
 */
export function reviewProfiles(quoteEnvironmentSourceDigest: string | null) {
  return [
    ...runtimeProfiles.map((p) => ({ ...p, sourceDigest: null })),
    ...(quoteEnvironmentSourceDigest
      ? [
          {
            name: quoteProfileName,
            runtime: 'platform.module-engine-solidity@1',
            sourceDigest: quoteEnvironmentSourceDigest,
            ...profileLimits,
          },
        ]
      : []),
  ];
}

/**
 * Host capabilities this deployment's review covers. Any other requirement, like a runtime no profile reviews or
 * components of several runtimes, leaves the review in awaiting_plan: an unknown requirement waits for a review plan.
 */
const reviewedHostCapabilities: readonly string[] = ['platform.native-fee-routing@1'];

/** The digest of a package's file inventory (the reviewed source; the export's reviewedBuild.subject.sourceDigest). */
export function sourceDigestOf(request: ModuleSubmissionRequest): string {
  return sha256Digest(canonicalJson(request.descriptor.source.files));
}

/**
 * The plan for a package, or the requirements no plan covers yet. An engine package whose exact source is the fixed
 * quote test environment (`quoteEnvironmentSourceDigest`, MODULES_QUOTE_ENVIRONMENT_SOURCE_DIGEST) is reviewed under
 * platform.engine-quote-v4-v3@1 bound to that digest; any other engine package under the engine profile.
 */
export function planOf(
  request: ModuleSubmissionRequest,
  quoteEnvironmentSourceDigest: string | null = null,
): { plan: ReviewPlan } | { unplanned: string[] } {
  const runtimes = [...new Set(request.descriptor.components.map((c) => c.runtime))];
  const unknownHosts = request.descriptor.requiresHost.filter((h) => !reviewedHostCapabilities.includes(h));
  const profile = runtimes.length === 1 ? runtimeProfiles.find((p) => p.runtime === runtimes[0])?.name : undefined;
  if (!profile || unknownHosts.length > 0) {
    const unplanned = [
      ...(runtimes.length > 1 ? [`components of several runtimes: ${runtimes.join(', ')}`] : []),
      ...(runtimes.length === 1 && !profile ? [`runtime ${runtimes[0]}`] : []),
      ...unknownHosts.map((h) => `host capability ${h}`),
    ];
    return { unplanned };
  }
  const sourceDigest = sourceDigestOf(request);
  const quote = profile === 'platform.module-engine-solidity@1' && sourceDigest === quoteEnvironmentSourceDigest;
  return {
    plan: {
      profile: quote ? quoteProfileName : profile,
      runtime: runtimes[0] as string,
      sourceDigest: quote ? sourceDigest : null,
      compilerVersion: pinnedCompilerVersion(),
      settings: solidityBuildSettings,
      engineAliases: profile === 'platform.module-engine-solidity@1',
      maxSourceBytes: profileLimits.maxSourceBytes,
      maxEncodedConfigurationBytes: profileLimits.maxEncodedConfigurationBytes,
      engineExecution:
        profile === 'platform.module-engine-solidity@1'
          ? {
              maxInitializationDataBytes: reviewDataLimits.maxEngineInitializationDataBytes,
              maxOperationDataBytes: reviewDataLimits.maxEngineOperationDataBytes,
              maxExecutionGas: reviewDataLimits.maxEngineExecutionGas,
            }
          : null,
    },
  };
}

/** The closed set of review error codes (spec: module-review-status.v1, review.lastError.code). */
export type ReviewErrorCode = NonNullable<ModuleReviewStatus['review']['lastError']>['code'];

/** Why a build failed: recorded as the review's lastError. */
export class BuildFailure extends Error {
  constructor(
    readonly code: ReviewErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The reviewer policy: which wallets may decide (MODULES_REVIEWER_WALLETS), and its digest. */
export function reviewerPolicy(wallets: readonly string[]): { reviewers: string[]; digest: string | null } {
  const reviewers = [...new Set(wallets.map((w) => w.toLowerCase()))].sort();
  if (reviewers.length === 0) return { reviewers, digest: null };
  return {
    reviewers,
    digest: sha256Digest(canonicalJson({ schemaVersion: 'platform.modules.reviewer-policy.v1', reviewers })),
  };
}

/** One review job as stored. */
export interface ReviewRow {
  submission_id: string;
  state: ReviewState;
  revision: number;
  attempt: number;
  plan_json: string | null;
  last_error_json: string | null;
  build_json: string | null;
  decision_json: string | null;
  created_at: string;
  updated_at: string;
}

/** What a successful build recorded (the reviewed build's subject, plan and artifact, and the host manifest). */
export interface BuildRecord {
  attempt: number;
  subject: { submissionId: string; requestDigest: string; packageId: string; version: string };
  plan: ReviewPlan;
  artifact: {
    compilerVersion: string;
    compilerInputDigest: string;
    components: Array<{
      id: string;
      sourceName: string;
      entrypoint: string;
      creationCodeHash: string;
      runtimeCodeHash: string;
    }>;
    /** The encoded configuration's byte count (absent from builds recorded before it was measured). */
    encodedConfigurationBytes?: number;
    /** Engine profiles: the budget and what each engine component used on the local EVM. */
    engineExecution?: {
      budgetGas: number;
      execution: Array<{
        component: string;
        initializationDataBytes: number;
        deploymentGasUsed: number;
        operations: Array<{ dataBytes: number; gasUsed: number }>;
      }>;
    };
    digest: string;
  };
  hostManifest: { requiresHost: string[]; ports: unknown; digest: string };
}

const reviewColumns =
  'r.submission_id, r.state, r.revision, r.attempt, r.plan_json, r.last_error_json, r.build_json, r.decision_json, r.created_at, r.updated_at';

/**
 * getModuleReviewStatus: the owner's review progress. Another wallet's or an unknown submission is 404; a
 * submission without its durable review job is 503 MODULE_REVIEW_JOB_UNAVAILABLE, never a waiting state.
 */
export function readReviewStatus(db: Db, principal: Principal, submissionId: string): ModuleReviewStatus {
  return reviewStore('MODULE_REVIEW_UNAVAILABLE', () => reviewStatusOf(db, principal, submissionId));
}

/**
 * Runs a read of the review store: a failure that is not a public answer (the store cannot be read) is the
 * retryable `code` (503 with Retry-After): keep the receipt and check readiness later, no duplicate submission.
 */
function reviewStore<T>(code: 'MODULE_REVIEW_UNAVAILABLE' | 'MODULE_REVIEW_EXPORT_UNAVAILABLE', read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(code, { retryAfterSeconds: 30 });
  }
}

function reviewStatusOf(db: Db, principal: Principal, submissionId: string): ModuleReviewStatus {
  const receipt = JSON.parse(readReceipt(db, principal, submissionId)) as ModuleIntakeReceipt;
  const row = statement(db, `SELECT ${reviewColumns} FROM module_reviews r WHERE r.submission_id = ?`).get(
    submissionId,
  ) as ReviewRow | undefined;
  if (!row) throw new ApiError('MODULE_REVIEW_JOB_UNAVAILABLE');
  const decision = row.decision_json ? (JSON.parse(row.decision_json) as ModuleReviewDecision) : null;
  return {
    schemaVersion: 'platform.modules.review-status.v1',
    submissionId,
    packageId: receipt.packageId,
    familyId: receipt.familyId,
    requestDigest: receipt.requestDigest,
    author: receipt.author,
    review: {
      state: row.state,
      nextAction: nextActionOf[row.state],
      revision: row.revision,
      attempt: row.attempt,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      lastError: row.last_error_json ? JSON.parse(row.last_error_json) : null,
      buildEvidenceRecorded: row.build_json !== null,
      latestDecision: decision
        ? {
            outcome: decision.command.outcome,
            reason: decision.command.reason,
            reviewerWallet: decision.reviewerWallet,
            decidedAt: decision.decidedAt,
            digest: decision.digest,
            buildArtifactDigest: decision.buildArtifactDigest,
            hostManifestDigest: decision.hostManifestDigest,
          }
        : null,
    },
    sourceRevisionVerified: false,
    runtimeVerified: false,
    approved: false,
    available: false,
  } as ModuleReviewStatus;
}

const decidedState: Record<ReviewOutcome, ReviewState> = {
  accept: 'accepted',
  request_changes: 'changes_requested',
  reject: 'rejected',
};

/**
 * The reviewer's decision (an operator command, never an API route): only on a built review, only by a wallet of
 * the reviewer policy, and only against the revision the reviewer saw (expectedReviewRevision), so a decision on a
 * stale view is refused. The record binds the request, the build attempt and, for accept, the artifact and host
 * manifest; its digest is over the RFC 8785 canonical JSON of the record without the digest.
 */
export function decideReview(
  db: Db,
  input: {
    submissionId: string;
    outcome: ReviewOutcome;
    reason: string;
    reviewerWallet: string;
    expectedReviewRevision: number;
    policy: { reviewers: string[]; digest: string | null };
    now: number;
  },
): ModuleReviewDecision {
  const reviewer = input.reviewerWallet.toLowerCase();
  if (!input.policy.digest || !input.policy.reviewers.includes(reviewer)) {
    throw new Error(`${input.reviewerWallet} is not a reviewer of the policy (MODULES_REVIEWER_WALLETS)`);
  }
  if (input.reason.length < 1 || input.reason.length > 4096) throw new Error('the reason takes 1 to 4096 characters');
  return db
    .transaction(() => {
      const row = statement(db, `SELECT ${reviewColumns} FROM module_reviews r WHERE r.submission_id = ?`).get(
        input.submissionId,
      ) as ReviewRow | undefined;
      if (!row) throw new Error(`no review job for submission ${input.submissionId}`);
      if (row.state !== 'built') throw new Error(`the review is ${row.state}; a decision needs a built review`);
      if (row.revision !== input.expectedReviewRevision) {
        throw new Error(
          `the review is at revision ${row.revision}, not ${input.expectedReviewRevision}; read it again`,
        );
      }
      const submission = statement(db, 'SELECT receipt_json FROM module_submissions WHERE submission_id = ?').get(
        input.submissionId,
      ) as { receipt_json: string };
      const receipt = JSON.parse(submission.receipt_json) as ModuleIntakeReceipt;
      const build = JSON.parse(row.build_json as string) as BuildRecord;
      const accepted = input.outcome === 'accept';
      const decidedAt = new Date(input.now).toISOString();
      const record = {
        schemaVersion: 'platform.modules.review-decision.v1' as const,
        submissionId: input.submissionId,
        requestDigest: receipt.requestDigest,
        command: {
          expectedReviewRevision: input.expectedReviewRevision,
          outcome: input.outcome,
          reason: input.reason,
        },
        reviewRevision: row.revision + 1,
        reviewerWallet: reviewer,
        reviewerPolicyDigest: input.policy.digest as string,
        decidedAt,
        buildAttempt: build.attempt,
        buildArtifactDigest: accepted ? build.artifact.digest : null,
        hostManifestDigest: accepted ? build.hostManifest.digest : null,
      };
      const decision = { ...record, digest: sha256Digest(canonicalJson(record)) } as ModuleReviewDecision;
      statement(
        db,
        `UPDATE module_reviews SET state = ?, revision = ?, decision_json = ?, updated_at = ?
         WHERE submission_id = ? AND revision = ?`,
      ).run(
        decidedState[input.outcome],
        row.revision + 1,
        JSON.stringify(decision),
        decidedAt,
        input.submissionId,
        row.revision,
      );
      return decision;
    })
    .immediate();
}

/** The largest review export served: 3 MiB (spec/openapi/paths/modules-submission-review-export.yaml). */
const maxExportBytes = 3 * 1024 * 1024;

/**
 * getModuleReviewExport: the accepted build of a submission, only to the author wallet's principal (the lineage of
 * the key that submitted it; another wallet or lineage sees 404), only when the review is accepted (409
 * MODULE_REVIEW_EXPORT_NOT_ACCEPTED otherwise). Every stored binding is checked again first: the request against its
 * digest, the decision record against its digest and the review revision, the build artifact and host manifest
 * against the digests the decision names, and the build attempt. Any inconsistency is 503
 * MODULE_REVIEW_EXPORT_BINDING_INVALID and nothing of the export is sent. Returns the exact JSON text.
 */
export function reviewExport(db: Db, principal: Principal, submissionId: string, now: number): string {
  return reviewStore('MODULE_REVIEW_EXPORT_UNAVAILABLE', () => exportOf(db, principal, submissionId, now));
}

function exportOf(db: Db, principal: Principal, submissionId: string, now: number): string {
  const row = acceptedReview(db, principal, submissionId);
  const { receipt, request, build, decision } = verifiedBindings(row, submissionId);
  const body: ModuleReviewExport = {
    schemaVersion: 'platform.modules.review-export.v1',
    submissionId,
    packageId: receipt.packageId,
    familyId: receipt.familyId,
    requestDigest: receipt.requestDigest,
    author: receipt.author,
    rewardWallet: receipt.rewardWallet,
    version: receipt.version,
    reviewRevision: decision.reviewRevision,
    buildAttempt: build.attempt,
    reviewedBuild: {
      subject: {
        submissionId,
        requestDigest: receipt.requestDigest,
        sourceDigest: sourceDigestOf(request),
      },
      plan: { profile: build.plan.profile, planDigest: sha256Digest(canonicalJson(build.plan)) },
      artifact: {
        artifactDigest: build.artifact.digest,
        hostManifestDigest: build.hostManifest.digest,
        byteCount: receipt.byteCount,
      },
    },
    review: decision,
    registryApproved: false,
    available: false,
    exportedAt: new Date(now).toISOString(),
  } as ModuleReviewExport;
  const text = JSON.stringify(body);
  if (Buffer.byteLength(text) > maxExportBytes) throw new ApiError('MODULE_REVIEW_EXPORT_UNAVAILABLE');
  return text;
}

type ExportRow = ReviewRow & { request_bytes: Buffer; receipt_json: string; lineage_id: string };

/**
 * The stored submission and its review, when the principal may export it: the author wallet's submission from the
 * principal's key lineage (else 404), with its review job (else 503 MODULE_REVIEW_JOB_UNAVAILABLE), accepted (else
 * 409 MODULE_REVIEW_EXPORT_NOT_ACCEPTED with the next action).
 */
function acceptedReview(db: Db, principal: Principal, submissionId: string): ExportRow {
  const row = statement(
    db,
    `SELECT s.request_bytes, s.receipt_json, k.lineage_id, ${reviewColumns}
     FROM module_submissions s JOIN api_keys k ON k.key_id = s.key_id
     LEFT JOIN module_reviews r ON r.submission_id = s.submission_id
     WHERE s.submission_id = ? AND s.author = ?`,
  ).get(submissionId, authorOf(principal)) as ExportRow | undefined;
  if (!row || row.lineage_id !== principal.lineageId) {
    throw new ApiError('MODULE_SUBMISSION_NOT_FOUND', { message: `No submission ${submissionId} for this principal.` });
  }
  if (row.submission_id === null) throw new ApiError('MODULE_REVIEW_JOB_UNAVAILABLE');
  if (row.state !== 'accepted') {
    throw new ApiError('MODULE_REVIEW_EXPORT_NOT_ACCEPTED', {
      message: `The review is ${row.state}; next action: ${nextActionOf[row.state]}.`,
    });
  }
  return row;
}

/**
 * The accepted review's stored records, each checked against its binding: the request against the receipt's
 * digest, the decision record against its digest, the decision against the submission, the review revision, the
 * build attempt and the build's artifact and host manifest digests, and these against their contents. The first
 * inconsistency is 503 MODULE_REVIEW_EXPORT_BINDING_INVALID.
 */
function verifiedBindings(
  row: ExportRow,
  submissionId: string,
): {
  receipt: ModuleIntakeReceipt;
  request: ModuleSubmissionRequest;
  build: BuildRecord;
  decision: ModuleReviewDecision;
} {
  const broken = (what: string): never => {
    throw new ApiError('MODULE_REVIEW_EXPORT_BINDING_INVALID', {
      message: `The stored ${what} does not match its binding; no export is served.`,
    });
  };
  let receipt: ModuleIntakeReceipt;
  let request: ModuleSubmissionRequest;
  let build: BuildRecord;
  let decision: ModuleReviewDecision;
  try {
    receipt = JSON.parse(row.receipt_json);
    request = JSON.parse(row.request_bytes.toString('utf8'));
    build = JSON.parse(row.build_json ?? 'null');
    decision = JSON.parse(row.decision_json ?? 'null');
  } catch {
    return broken('review record');
  }
  if (!build || !decision) return broken('build or decision');
  if (sha256Digest(canonicalJson(request)) !== receipt.requestDigest) broken('source upload');
  const { digest: decisionDigest, ...decisionRecord } = decision;
  if (sha256Digest(canonicalJson(decisionRecord)) !== decisionDigest) broken('decision record');
  const { digest: artifactDigest, ...artifact } = build.artifact;
  const { digest: hostManifestDigest, ...hostManifest } = build.hostManifest;
  if (
    decision.submissionId !== submissionId ||
    decision.requestDigest !== receipt.requestDigest ||
    build.subject.submissionId !== submissionId ||
    build.subject.requestDigest !== receipt.requestDigest ||
    decision.command.outcome !== 'accept' ||
    decision.reviewRevision !== row.revision ||
    decision.reviewRevision !== decision.command.expectedReviewRevision + 1 ||
    decision.buildAttempt !== build.attempt ||
    decision.buildArtifactDigest !== artifactDigest ||
    decision.hostManifestDigest !== hostManifestDigest
  ) {
    broken('decision binding');
  }
  if (sha256Digest(canonicalJson(artifact)) !== artifactDigest) broken('build artifact');
  if (sha256Digest(canonicalJson(hostManifest)) !== hostManifestDigest) broken('host manifest');
  return { receipt, request, build, decision };
}
