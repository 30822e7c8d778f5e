import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * Module submissions for tests: the spec example (spec/examples/module-submission-request.v0.1.json) bound to a
 * test author, with helpers that keep the descriptor's inventory and the submitted files consistent.
 */
export const moduleAuthor = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

export type ModuleSubmission = {
  format: string;
  descriptor: Record<string, any> & {
    author: string;
    rewardWallet: string;
    familySalt: string;
    name: string;
    version: string;
    source: { files: Array<{ path: string; sha256: string; size: number }>; [k: string]: unknown };
  };
  files: Array<{ path: string; sha256: string; encoding: 'base64'; bytes: string }>;
  supersedesSubmissionId?: string;
};

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * The spec example as a first version (the example is a revision: its supersedesSubmissionId is dropped), with
 * `author` and `rewardWallet` set to `author` (default: anvil account 0) and a fresh family salt, so each call is a
 * new package family.
 */
export function moduleSubmission(author = moduleAuthor): ModuleSubmission {
  const example = JSON.parse(
    readFileSync(new URL('../../spec/examples/module-submission-request.v0.1.json', import.meta.url), 'utf8'),
  ) as ModuleSubmission;
  example.descriptor.author = author;
  example.descriptor.rewardWallet = author;
  example.descriptor.familySalt = freshFamilySalt();
  delete example.supersedesSubmissionId;
  return example;
}

/** Replaces the package's files (inventory and submitted bytes together, in the given order). */
export function setFiles(
  r: ModuleSubmission,
  files: Array<{ path: string; content: string | Buffer }>,
): ModuleSubmission {
  const entries = files.map((f) => ({
    path: f.path,
    bytes: Buffer.isBuffer(f.content) ? f.content : Buffer.from(f.content),
  }));
  r.descriptor.source.files = entries.map((e) => ({ path: e.path, sha256: sha256(e.bytes), size: e.bytes.length }));
  r.files = entries.map((e) => ({
    path: e.path,
    sha256: sha256(e.bytes),
    encoding: 'base64',
    bytes: e.bytes.toString('base64'),
  }));
  return r;
}

/** The decoded files of a submission by path. */
export function filesOf(r: ModuleSubmission): Map<string, Buffer> {
  return new Map(r.files.map((f) => [f.path, Buffer.from(f.bytes, 'base64')]));
}

/** A fresh lowercase bytes32 family salt (a new package family). */
export function freshFamilySalt(): string {
  return `0x${createHash('sha256').update(`${Date.now()}-${Math.random()}`).digest('hex')}`;
}

/** A `sha256:` digest of one repeated hex character: a stand-in digest for answers a test plays. */
export const digest = (c: string) => `sha256:${c.repeat(64)}`;

/**
 * An accepted review export (platform.modules.review-export.v1) bound to `receipt`, as a proxy plays it to the module
 * client; `edit` replaces top-level fields.
 */
export function reviewExportFor(receipt: Record<string, any>, edit: Record<string, unknown> = {}) {
  const at = new Date().toISOString();
  return {
    schemaVersion: 'platform.modules.review-export.v1',
    submissionId: receipt.submissionId,
    packageId: receipt.packageId,
    familyId: receipt.familyId,
    requestDigest: receipt.requestDigest,
    author: receipt.author,
    rewardWallet: receipt.rewardWallet,
    version: receipt.version,
    reviewRevision: 3,
    buildAttempt: 1,
    reviewedBuild: {
      subject: { submissionId: receipt.submissionId, requestDigest: receipt.requestDigest, sourceDigest: digest('d') },
      plan: { profile: 'platform.module-engine-solidity@1', planDigest: digest('e') },
      artifact: { artifactDigest: digest('f'), hostManifestDigest: digest('9'), byteCount: 1000 },
    },
    review: {
      schemaVersion: 'platform.modules.review-decision.v1',
      submissionId: receipt.submissionId,
      requestDigest: receipt.requestDigest,
      command: { expectedReviewRevision: 2, outcome: 'accept', reason: 'Reviewed.' },
      reviewRevision: 3,
      reviewerWallet: receipt.author,
      reviewerPolicyDigest: digest('c'),
      decidedAt: at,
      buildAttempt: 1,
      buildArtifactDigest: digest('f'),
      hostManifestDigest: digest('9'),
      digest: digest('8'),
    },
    registryApproved: false,
    available: false,
    exportedAt: at,
    ...edit,
  };
}
