import { createHash } from 'node:crypto';
import type { CustomLaunchCreateRequestV4 } from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { HexMemo } from '../../core/hex-bytes.ts';
import { maskOf, returnsDeltaBase } from '../../core/hook-permissions.ts';
import {
  digestOf,
  fundingPlanHashOf,
  graphBundleDigestOf,
  launchIntentHashOf,
  projectMetadataHashOf,
  runtimeCodeHashOf,
} from '../../core/request-hashes.ts';
import { ApiError } from '../../errors/api-error.ts';

/** The V4 create request (both profiles), generated from the spec. */
type Profile410 = Extract<CustomLaunchCreateRequestV4, { profile: '4.1.0' }>;
type Issue = { location: string; message: string };

/**
 * Request rules that need no chain, checked after schema validation by preflight and create. A failure is a
 * 400 INVALID_REQUEST listing every broken rule (nothing is persisted), except a foreign controller wallet,
 * which is 403 WALLET_MISMATCH.
 * Spec: the server rules of spec/schemas/custom-launch-create-request.v4.schema.json (the hashes bind the metadata,
 * graph, bundles and intent; a 4.1.0 wallet value equals the funding plan's sum and its initial buy pays the
 * controller; a wallet key's `launchWallet` is its own wallet), for preflightCustomLaunchV4 and createCustomLaunchV4.
 * `hex` decodes each runtime code once for the code hashes and both digests; preflight passes its own on to the
 * static baseline.
 */
export function checkRequestRules(
  principal: Principal,
  request: CustomLaunchCreateRequestV4,
  hex: HexMemo = new HexMemo(),
): void {
  if (principal.kind === 'wallet' && principal.wallet?.toLowerCase() !== request.launchWallet.toLowerCase()) {
    throw new ApiError('WALLET_MISMATCH');
  }
  const issues: Issue[] = [
    ...metadataIssues(request),
    ...graphIssues(request, hex),
    ...externalReferenceIssues(request),
    ...bundleIssues(request),
    ...intentIssues(request, hex),
  ];
  if (request.profile === '4.1.0') issues.push(...fundingPlanIssues(request as Profile410));
  if (issues.length > 0) {
    throw new ApiError('INVALID_REQUEST', {
      message: `The request breaks ${issues.length} request rule(s); first: ${issues[0]?.location} ${issues[0]?.message}`,
      issues,
    });
  }
}

/** 4.1.0: allocations sum to the positive wallet value, the value fits its budget, and the plan hash binds. */
function fundingPlanIssues(request: Profile410): Issue[] {
  const plan = request.fundingPlan;
  const issues: Issue[] = [];
  const a = plan.nativeAllocations;
  const sum =
    BigInt(a.initialLiquidityWei) +
    BigInt(a.initialBuyWei) +
    BigInt(a.reservesWei) +
    a.otherNativeAllocations.reduce((s, o) => s + BigInt(o.amountWei), 0n);
  if (sum !== BigInt(plan.walletTransactionValueWei)) {
    issues.push({
      location: '/fundingPlan/walletTransactionValueWei',
      message: `must equal the sum of the native allocations (${sum}); the server never adjusts amounts`,
    });
  }
  if (BigInt(plan.walletTransactionValueWei) > BigInt(plan.maxLaunchValueWei)) {
    issues.push({
      location: '/fundingPlan/maxLaunchValueWei',
      message: 'the wallet transaction value exceeds the launch-value budget',
    });
  }
  const labels = a.otherNativeAllocations.map((o) => o.label);
  if (new Set(labels).size !== labels.length) {
    issues.push({
      location: '/fundingPlan/nativeAllocations/otherNativeAllocations',
      message: 'labels must be unique',
    });
  }
  if (plan.initialBuy.recipient.toLowerCase() !== request.launchWallet.toLowerCase()) {
    issues.push({
      location: '/fundingPlan/initialBuy/recipient',
      message: 'must be the launch controller (launchWallet)',
    });
  }
  const { fundingPlanHash } = plan;
  if (fundingPlanHashOf(plan) !== fundingPlanHash) {
    issues.push({ location: '/fundingPlan/fundingPlanHash', message: 'does not match the canonical (RFC 8785) plan' });
  }
  if (request.funding.fundingPlanHash !== fundingPlanHash) {
    issues.push({ location: '/funding/fundingPlanHash', message: 'must equal fundingPlan.fundingPlanHash' });
  }
  return issues;
}

/** The description's bounds in UTF-8 bytes, and its floor of letters or digits (as V3 3.3.0 StrictDescription). */
const descriptionBytes = { minimum: 20, maximum: 4096 } as const;
const descriptionLettersOrDigits = 8;

/**
 * Metadata is bound by projectMetadataHash, the description is 20 to 4,096 UTF-8 bytes with at least 8 letters or
 * digits (the schema can only count code points), and the image artifact is the image the metadata names.
 * Spec: custom-launch-create-request.v4.schema.json ProjectMetadata.
 */
function metadataIssues(request: CustomLaunchCreateRequestV4): Issue[] {
  const issues: Issue[] = [];
  const { description } = request.projectMetadata;
  const length = Buffer.byteLength(description, 'utf8');
  if (length < descriptionBytes.minimum || length > descriptionBytes.maximum) {
    issues.push({
      location: '/projectMetadata/description',
      message: `is ${length} UTF-8 bytes; it must be ${descriptionBytes.minimum} to ${descriptionBytes.maximum}`,
    });
  }
  const lettersOrDigits = description.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
  if (lettersOrDigits < descriptionLettersOrDigits) {
    issues.push({
      location: '/projectMetadata/description',
      message: `has ${lettersOrDigits} letters or digits; it needs at least ${descriptionLettersOrDigits}`,
    });
  }
  if (projectMetadataHashOf(request) !== request.projectMetadataHash) {
    issues.push({
      location: '/projectMetadataHash',
      message: 'does not match the canonical (RFC 8785) projectMetadata',
    });
  }
  const artifact = request.projectMetadataImageArtifact;
  const bytes = Buffer.from(artifact.bytesBase64, 'base64');
  if (bytes.length !== artifact.byteLength) {
    issues.push({
      location: '/projectMetadataImageArtifact/byteLength',
      message: `is ${artifact.byteLength} but the bytes are ${bytes.length}`,
    });
  }
  if (`sha256:${createHash('sha256').update(bytes).digest('hex')}` !== artifact.sha256) {
    issues.push({ location: '/projectMetadataImageArtifact/sha256', message: 'does not match the image bytes' });
  }
  if (request.projectMetadata.image.sha256 !== artifact.sha256) {
    issues.push({
      location: '/projectMetadata/image/sha256',
      message: 'must equal projectMetadataImageArtifact.sha256',
    });
  }
  if (request.projectMetadata.image.mediaType !== artifact.mediaType) {
    issues.push({
      location: '/projectMetadata/image/mediaType',
      message: 'must equal projectMetadataImageArtifact.mediaType',
    });
  }
  return issues;
}

/**
 * The graph: its digest binds the targets; each target's runtimeCodeHash is the keccak-256 of its code; targets
 * are distinct physical contracts (unique ids, never the same code at the same CREATE2 salt, so token and hook never
 * share an address); the hook's mask is exactly its fourteen flags, and no returns-delta flag stands without its
 * base flag (as Uniswap v4-core's `Hooks.sol` requires). Spec: `graphBundle` of
 * spec/schemas/custom-launch-create-request.v4.schema.json.
 */
function graphIssues(request: CustomLaunchCreateRequestV4, hex: HexMemo): Issue[] {
  const issues: Issue[] = [];
  const { targets } = request.graphBundle;
  if (graphBundleDigestOf(request.graphBundle, hex) !== request.graphBundle.graphBundleDigest) {
    issues.push({
      location: '/graphBundle/graphBundleDigest',
      message: 'does not match the canonical (RFC 8785) graph bundle',
    });
  }
  const ids = new Set<string>();
  const placements = new Set<string>();
  targets.forEach((target, i) => {
    const at = `/graphBundle/targets/${i}`;
    if (ids.has(target.targetId)) issues.push({ location: `${at}/targetId`, message: 'target ids must be unique' });
    ids.add(target.targetId);
    if (runtimeCodeHashOf(target.runtimeBytecode, hex) !== target.runtimeCodeHash.toLowerCase()) {
      issues.push({ location: `${at}/runtimeCodeHash`, message: 'is not the keccak-256 of runtimeBytecode' });
    }
    const placement = `${target.runtimeCodeHash}:${target.create2Salt ?? `unsalted-${i}`}`;
    if (placements.has(placement)) {
      issues.push({
        location: at,
        message: 'two targets with the same code and CREATE2 salt would be one physical contract',
      });
    }
    placements.add(placement);
    if (target.hookPermissions) {
      const { mask, ...flags } = target.hookPermissions;
      if (maskOf(flags) !== mask) {
        issues.push({
          location: `${at}/hookPermissions/mask`,
          message: `must equal the mask of the fourteen flags (${maskOf(flags)})`,
        });
      }
      for (const [flag, base] of Object.entries(returnsDeltaBase)) {
        if (flags[flag as keyof typeof flags] && !flags[base]) {
          issues.push({ location: `${at}/hookPermissions/${flag}`, message: `needs ${base}` });
        }
      }
    }
  });
  return issues;
}

/** Each external contract reference has its own referenceId. Spec: custom-launch-create-request.v4.schema.json. */
function externalReferenceIssues(request: CustomLaunchCreateRequestV4): Issue[] {
  const seen = new Set<string>();
  const issues: Issue[] = [];
  request.externalContracts.forEach((ref, i) => {
    if (seen.has(ref.referenceId)) {
      issues.push({ location: `/externalContracts/${i}/referenceId`, message: 'referenceId values must be unique' });
    }
    seen.add(ref.referenceId);
  });
  return issues;
}

/**
 * The source manifest's paths are unique and sorted by UTF-8 bytes; the verification bundle binds the stated graph
 * digest and the manifest's digest, and names no target twice.
 * Spec: custom-launch-create-request.v4.schema.json SourceBundleManifest, VerificationBundle.
 */
function bundleIssues(request: CustomLaunchCreateRequestV4): Issue[] {
  const issues: Issue[] = [];
  const { files } = request.sourceBundleManifest;
  for (let i = 1; i < files.length; i++) {
    const [before, path] = [files[i - 1]?.path ?? '', files[i]?.path ?? ''];
    if (Buffer.compare(Buffer.from(before, 'utf8'), Buffer.from(path, 'utf8')) >= 0) {
      issues.push({
        location: `/sourceBundleManifest/files/${i}/path`,
        message: 'paths must be unique and sorted by UTF-8 bytes',
      });
    }
  }
  const bundle = request.verificationBundle;
  if (bundle.graphBundleDigest !== request.graphBundle.graphBundleDigest) {
    issues.push({
      location: '/verificationBundle/graphBundleDigest',
      message: 'must equal graphBundle.graphBundleDigest',
    });
  }
  if (bundle.sourceBundleManifestDigest !== digestOf(request.sourceBundleManifest)) {
    issues.push({
      location: '/verificationBundle/sourceBundleManifestDigest',
      message: 'does not match the canonical (RFC 8785) sourceBundleManifest',
    });
  }
  const named = new Set<string>();
  bundle.targets.forEach((target, i) => {
    if (named.has(target.targetId)) {
      issues.push({ location: `/verificationBundle/targets/${i}/targetId`, message: 'names a target twice' });
    }
    named.add(target.targetId);
  });
  return issues;
}

/** launchIntentHash binds the whole request except itself and the agent attestation. */
function intentIssues(request: CustomLaunchCreateRequestV4, hex: HexMemo): Issue[] {
  if (launchIntentHashOf(request, hex) !== request.launchIntentHash) {
    return [
      {
        location: '/launchIntentHash',
        message: 'does not match the canonical (RFC 8785) request without launchIntentHash and agentAttestation',
      },
    ];
  }
  return [];
}
