import type {
  ModuleIntakeReceipt,
  ModuleReviewCapabilities,
  ModuleReviewExport,
  ModuleReviewStatus,
} from '../../../generated/types/service.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import {
  type AuthenticatedModuleCall,
  exchangeJson,
  exportLimitBytes,
  type ModuleCall,
  responseLimitBytes,
} from './call.ts';
import { clientFailure, describeFailure, type ModuleFailure, type ModuleResult } from './errors.ts';
import { checkSubmissionId, fetchModuleReceipt, submissionsPath } from './receipt.ts';

export const reviewCapabilitiesPath = '/v1/modules/review-capabilities';

/** Where a review read stopped: the public readiness check (no key sent), the receipt read, or the review read. */
type ReviewStage = 'readiness' | 'receipt' | 'review';
export type ReviewResult<T> =
  | { data: T; httpStatus: number; error?: undefined }
  | { data?: undefined; error: ModuleFailure; stage: ReviewStage };

/**
 * Reads public review readiness (GET /v1/modules/review-capabilities, no key; spec getModuleReviewCapabilities).
 * An answer off the schema is MODULE_API_RESPONSE.
 */
export async function fetchModuleReviewCapabilities(call: ModuleCall): Promise<ModuleResult<ModuleReviewCapabilities>> {
  const reply = await exchangeJson(call, {
    method: 'GET',
    path: reviewCapabilitiesPath,
    limitBytes: responseLimitBytes,
  });
  if (reply.error) return reply;
  const problems = schemaProblems('module-review-capabilities.v1.schema.json', reply.data.json);
  if (problems.length > 0) {
    return {
      error: clientFailure(
        'MODULE_API_RESPONSE',
        `the review capabilities are off contract: ${problems.slice(0, 5).join('; ')}`,
        {
          httpStatus: reply.httpStatus,
        },
      ),
    };
  }
  return { data: reply.data.json as ModuleReviewCapabilities, httpStatus: reply.httpStatus };
}

/**
 * The check before credentials go to a review read (review readiness is checked before credentials
 * are sent to a review read): the public review capabilities must report `statusReadAvailable: true`. Anything else,
 * including no readable answer, is MODULE_REVIEW_UNAVAILABLE: keep the receipt and check readiness later.
 */
async function requireStatusReads(call: ModuleCall): Promise<ModuleResult<ModuleReviewCapabilities>> {
  const readiness = await fetchModuleReviewCapabilities({
    origin: call.origin,
    timeoutMs: call.timeoutMs,
    fetch: call.fetch,
  });
  if (readiness.error) {
    return {
      error: clientFailure(
        'MODULE_REVIEW_UNAVAILABLE',
        `review readiness is unknown (${describeFailure(readiness.error)}); no key was sent. Keep the receipt and check later`,
        { httpStatus: readiness.error.httpStatus },
      ),
    };
  }
  if (!readiness.data.statusReadAvailable) {
    return {
      error: clientFailure(
        'MODULE_REVIEW_UNAVAILABLE',
        'the review capabilities report statusReadAvailable: false; no key was sent. Keep the receipt and check later',
        { httpStatus: readiness.httpStatus },
      ),
    };
  }
  return readiness;
}

function differs(field: string, want: unknown, got: unknown, caseless = false): string | null {
  const equal =
    caseless && typeof want === 'string' && typeof got === 'string'
      ? want.toLowerCase() === got.toLowerCase()
      : want === got;
  return equal ? null : `${field} is ${JSON.stringify(got ?? null).slice(0, 80)}, expected ${JSON.stringify(want)}`;
}

/** The receipt identity a review answer must carry, compared field by field. */
function identityProblems(
  answer: Record<string, unknown>,
  receipt: ModuleIntakeReceipt,
  fields: readonly string[],
): string[] {
  const r = receipt as unknown as Record<string, unknown>;
  return fields
    .map((f) => differs(f, r[f], answer[f], f === 'author' || f === 'rewardWallet'))
    .filter((p): p is string => p !== null);
}

async function receiptFor(
  call: AuthenticatedModuleCall,
  submissionId: string,
  given: ModuleIntakeReceipt | undefined,
): Promise<ReviewResult<ModuleIntakeReceipt>> {
  if (given) {
    if (given.submissionId !== submissionId) {
      throw new TypeError(`the saved receipt is of ${given.submissionId}, not ${submissionId}`);
    }
    return { data: given, httpStatus: 200 };
  }
  const read = await fetchModuleReceipt(call, submissionId);
  return read.error ? { error: read.error, stage: 'receipt' } : read;
}

function reviewFailure(what: string, problems: string[], httpStatus: number): ModuleFailure {
  return clientFailure(
    'MODULE_REVIEW_RESPONSE',
    `the ${what} is not a valid result: ${problems.slice(0, 6).join('; ')}`,
    {
      httpStatus,
    },
  );
}

/**
 * Reads the review status of a submission (GET /v1/modules/submissions/{id}/review, `modules:read`, owner; spec
 * getModuleReviewStatus), after the public readiness check and bound to the receipt identity (the saved `receipt`,
 * or the one read first): an answer of another submission, with another identity, or off the schema is
 * MODULE_REVIEW_RESPONSE. The client never polls by itself (Events).
 */
export async function fetchModuleReviewStatus(
  call: AuthenticatedModuleCall,
  submissionId: string,
  options: { receipt?: ModuleIntakeReceipt } = {},
): Promise<ReviewResult<{ receipt: ModuleIntakeReceipt; review: ModuleReviewStatus }>> {
  const read = await readBound(call, submissionId, options.receipt, {
    path: 'review',
    label: 'review status',
    limitBytes: responseLimitBytes,
    problems: (answer, receipt) => [
      ...identityProblems(answer, receipt, ['packageId', 'familyId', 'requestDigest', 'author']),
      ...schemaProblems('module-review-status.v1.schema.json', answer),
    ],
  });
  if (read.error) return read;
  return {
    data: { receipt: read.data.receipt, review: read.data.answer as ModuleReviewStatus },
    httpStatus: read.httpStatus,
  };
}

/** How an export disagrees with itself: the accepted decision, the build and the subject must name one another. */
function exportConsistencyProblems(e: ModuleReviewExport): string[] {
  const { review } = e;
  const { subject, artifact } = e.reviewedBuild;
  return [
    differs('reviewedBuild.subject.submissionId', e.submissionId, subject.submissionId),
    differs('reviewedBuild.subject.requestDigest', e.requestDigest, subject.requestDigest),
    differs('review.submissionId', e.submissionId, review.submissionId),
    differs('review.requestDigest', e.requestDigest, review.requestDigest),
    differs('review.reviewRevision', e.reviewRevision, review.reviewRevision),
    differs('reviewRevision', review.command.expectedReviewRevision + 1, e.reviewRevision),
    differs('review.buildAttempt', e.buildAttempt, review.buildAttempt),
    differs('review.buildArtifactDigest', artifact.artifactDigest, review.buildArtifactDigest),
    differs('review.hostManifestDigest', artifact.hostManifestDigest, review.hostManifestDigest),
  ].filter((p): p is string => p !== null);
}

/**
 * Exports the accepted build of a submission (GET /v1/modules/submissions/{id}/review-export, `modules:read`, same
 * principal and author wallet, no query or body; spec getModuleReviewExport), read up to 3 MiB after decompression,
 * after the public readiness check and bound to the receipt identity: an export of another submission, with another
 * identity, inconsistent in itself or off the schema is MODULE_REVIEW_RESPONSE. Returns the exact bytes too.
 */
export async function fetchModuleReviewExport(
  call: AuthenticatedModuleCall,
  submissionId: string,
  options: { receipt?: ModuleIntakeReceipt } = {},
): Promise<ReviewResult<{ receipt: ModuleIntakeReceipt; reviewExport: ModuleReviewExport; bytes: Buffer }>> {
  const read = await readBound(call, submissionId, options.receipt, {
    path: 'review-export',
    label: 'review export',
    limitBytes: exportLimitBytes,
    problems: (answer, receipt) => {
      const schema = schemaProblems('module-review-export.v1.schema.json', answer);
      return [
        ...identityProblems(answer, receipt, [
          'packageId',
          'familyId',
          'requestDigest',
          'author',
          'rewardWallet',
          'version',
        ]),
        ...schema,
        ...(schema.length === 0 ? exportConsistencyProblems(answer as ModuleReviewExport) : []),
      ];
    },
  });
  if (read.error) return read;
  return {
    data: { receipt: read.data.receipt, reviewExport: read.data.answer as ModuleReviewExport, bytes: read.data.bytes },
    httpStatus: read.httpStatus,
  };
}

/**
 * The shared review read: the public readiness check, the receipt identity (the saved one, or read first), then the
 * capped GET of `submissions/{id}/{path}`; an answer of another submission or with `problems` is
 * MODULE_REVIEW_RESPONSE.
 */
async function readBound(
  call: AuthenticatedModuleCall,
  submissionId: string,
  saved: ModuleIntakeReceipt | undefined,
  read: {
    path: 'review' | 'review-export';
    label: string;
    limitBytes: number;
    problems: (answer: Record<string, unknown>, receipt: ModuleIntakeReceipt) => string[];
  },
): Promise<ReviewResult<{ receipt: ModuleIntakeReceipt; answer: Record<string, unknown>; bytes: Buffer }>> {
  checkSubmissionId(submissionId);
  const ready = await requireStatusReads(call);
  if (ready.error) return { error: ready.error, stage: 'readiness' };
  const receipt = await receiptFor(call, submissionId, saved);
  if (receipt.error) return receipt;
  const reply = await exchangeJson(call, {
    method: 'GET',
    path: `${submissionsPath}/${submissionId}/${read.path}`,
    apiKey: call.apiKey,
    limitBytes: read.limitBytes,
  });
  if (reply.error) return { error: reply.error, stage: 'review' };
  const answer = reply.data.json as Record<string, unknown>;
  if (answer.submissionId !== submissionId) {
    const problem = differs('submissionId', submissionId, answer.submissionId) as string;
    return { error: reviewFailure(read.label, [problem], reply.httpStatus), stage: 'review' };
  }
  const problems = read.problems(answer, receipt.data);
  if (problems.length > 0) return { error: reviewFailure(read.label, problems, reply.httpStatus), stage: 'review' };
  return { data: { receipt: receipt.data, answer, bytes: reply.data.bytes }, httpStatus: reply.httpStatus };
}
