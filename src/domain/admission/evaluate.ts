import type {
  CustomLaunchCreateRequestV4,
  CustomLaunchFindingV4,
  ExternalReferenceBindingV2,
  StaticBaselineReportV2,
} from '../../../generated/types/service.ts';
import { addressHookBits } from '../../core/create2.ts';
import { followsFundingNonceDerivation } from '../../core/funding-nonce.ts';
import type { HexMemo } from '../../core/hex-bytes.ts';
import { callbackFlags } from '../../core/hook-permissions.ts';
import { inspectImage } from '../../core/image.ts';
import { predictedHookAddress } from '../../core/request-hashes.ts';
import { findingCodes } from '../launches/finding-codes.ts';
import { buildStaticBaselineReport } from '../static-baseline/report.ts';
import { evaluateStaticBaseline } from '../static-baseline/rules.ts';

/** One admission finding: the launch resource's Finding (generated from the spec), its code from the one table. */
export type AdmissionFinding = CustomLaunchFindingV4 & { code: keyof typeof findingCodes };

/** What the chain-free gates found for one request. */
export interface AdmissionResult {
  findings: AdmissionFinding[];
  staticReport: StaticBaselineReportV2;
  /** Codes of the static report's hard blocks (the platformAdmission action_required case). */
  staticHardBlocks: string[];
}

/** Deployment facts admission checks against (per-chain configuration, never a global constant). */
export interface AdmissionConfig {
  canonicalPoolManager: string;
}

/** Evidence read from the chain for this evaluation; null where the source is missing or not fresh. */
export interface AdmissionEvidence {
  /** Minimum native amount worth USD 1 by a fresh quote (at most 60 s old). */
  minimumInitialBuyWei: bigint | null;
  /** The chain gates run next and bind external references themselves (the worker with a configured chain). */
  chainBindsExternalReferences?: boolean;
  /** Preflight: the read-only reference binding's outcome (absent: not run, every reference stays unbound). */
  externalReferenceBinding?: ExternalReferenceBindingV2;
  /** This server holds another 4.1.0 request of the same wallet with the same nonce (funding-nonce-reuse.ts). */
  fundingNonceConflict?: boolean;
}

/**
 * The blocking finding of an external reference that does not bind (EXTERNAL_REFERENCE_UNBOUND), with the binding's
 * reasons; the preflight report and the chain gates word it the same way.
 */
export function unboundReferenceFinding(
  ref: { referenceId: string; address: string },
  reasons: readonly string[],
): AdmissionFinding {
  return {
    code: 'EXTERNAL_REFERENCE_UNBOUND',
    severity: 'blocking',
    targetId: null,
    message: `External reference ${ref.referenceId} at ${ref.address} does not bind: ${reasons.join('; ')}. It gains no trust.`,
  };
}

const severityOf = { hard_block: 'blocking', evidence_duty: 'warning', warning: 'warning', info: 'info' } as const;

/**
 * The admission gates that need no chain, for preflight (`stage: 'preflight'`) and for the permit decision
 * (`stage: 'permit'`, where a build-only plan blocks). Spec: spec/openapi/paths/v4-custom-launches-preflight.yaml
 * preflightCustomLaunchV4 and spec/openapi/paths/v4-custom-launches.yaml createCustomLaunchV4:
 * - the metadata image is decoded (PNG or single-frame GIF only);
 * - the static baseline runs over every target's runtime code: its hard blocks block, its evidence duties warn;
 *   its report also holds the role-bound rule on the hook's CREATE2 address (graph factory, router, salt, code),
 *   which must carry the permission mask in its low 14 bits;
 * - each enabled hook callback and its guard wait for the chain checks (needs evidence);
 * - an external contract reference gains no trust until it is bound: preflight passes the outcome of the read-only
 *   binding (LaunchAuthorizer.bindExternalReferences), and a reference it did not bind, or every reference when the
 *   binding did not run, blocks; the worker's chain gates bind them themselves (see LaunchAuthorizer);
 * - 4.1.0: FUNDING_NONCE_CONFORMANCE_UNPROVEN when the nonce does not follow the funding-nonce derivation, and
 *   FUNDING_NONCE_DERIVATION_CONFLICT_SUSPECTED on `evidence.fundingNonceConflict`; both warnings, never blocks
 *   (spec/schemas/custom-launch-create-request.v4.schema.json LaunchNonce);
 * - 4.1.0: the initial buy is worth at least USD 1 by a fresh quote: below it blocks (the server never raises the
 *   amount); without a fresh quote it needs evidence.
 * `hex`: the request rules' decodes of the same runtime code (preflight), so no code is decoded twice.
 */
export function evaluateAdmission(
  request: CustomLaunchCreateRequestV4,
  config: AdmissionConfig,
  stage: 'preflight' | 'permit',
  evidence: AdmissionEvidence = { minimumInitialBuyWei: null },
  hex?: HexMemo,
): AdmissionResult {
  const findings: AdmissionFinding[] = [];
  const artifact = request.projectMetadataImageArtifact;
  const image = inspectImage(Buffer.from(artifact.bytesBase64, 'base64'), artifact.mediaType);
  if (!image.ok) findings.push({ code: image.code, severity: 'blocking', targetId: null, message: image.detail });
  const staticReport = staticBaselineOf(request, config, hex);
  for (const f of staticReport.findings) {
    findings.push({
      code: f.code as AdmissionFinding['code'],
      severity: severityOf[f.severity],
      targetId: f.targetId,
      message: f.detail,
    });
  }
  findings.push(...callbackFindings(request), ...referenceFindings(request, evidence));
  if (request.profile === '4.1.0') findings.push(...fundingFindings(request, stage, evidence));
  const staticHardBlocks = staticReport.findings.filter((f) => f.severity === 'hard_block').map((f) => f.code);
  return { findings, staticReport, staticHardBlocks };
}

/**
 * The static baseline over every target's runtime code, with the role-bound rule on the hook's CREATE2 address
 * (graph factory, router, salt, code), which must carry the permission mask in its low 14 bits.
 */
function staticBaselineOf(
  request: CustomLaunchCreateRequestV4,
  config: AdmissionConfig,
  hex: HexMemo | undefined,
): StaticBaselineReportV2 {
  const targets = request.graphBundle.targets;
  const staticFindings = evaluateStaticBaseline(
    targets.map((t) => ({
      targetId: t.targetId,
      role: t.role,
      runtimeBytecode: t.runtimeBytecode,
      hookPermissionMask: t.hookPermissions?.mask,
    })),
    config,
    hex,
  ).findings;
  // The role-bound rule on the hook's address belongs to the same static baseline: it is in the report.
  const hookAddress = predictedHookAddress(request);
  for (const target of targets) {
    const flags = target.hookPermissions;
    if (!flags || !hookAddress || addressHookBits(hookAddress) === flags.mask) continue;
    staticFindings.push({
      code: 'HOOK_ROLE_BINDING_INVALID',
      severity: 'hard_block',
      targetId: target.targetId,
      detail: `The graph factory puts the hook at ${hookAddress}, whose low 14 bits are ${addressHookBits(hookAddress)}, not its permission mask ${flags.mask}: mine its CREATE2 salt for the mask.`,
    });
  }
  return buildStaticBaselineReport(staticFindings);
}

/** Each target's enabled hook callbacks wait for the chain checks of their implementation and guard. */
function callbackFindings(request: CustomLaunchCreateRequestV4): AdmissionFinding[] {
  const findings: AdmissionFinding[] = [];
  for (const target of request.graphBundle.targets) {
    const flags = target.hookPermissions;
    if (!flags) continue;
    const enabled = callbackFlags.filter((flag) => flags[flag] === true);
    if (enabled.length > 0) {
      findings.push({
        code: 'CALLBACK_GUARD_UNDECIDED',
        severity: 'needs_evidence',
        targetId: target.targetId,
        message: `Enabled callbacks ${enabled.join(', ')}: their implementation and pool-manager guard are decided on the chain.`,
      });
    }
  }
  return findings;
}

/**
 * Each external reference the binding did not bind (every one when it did not run), unless the chain gates bind them.
 */
function referenceFindings(request: CustomLaunchCreateRequestV4, evidence: AdmissionEvidence): AdmissionFinding[] {
  const findings: AdmissionFinding[] = [];
  const binding = evidence.externalReferenceBinding;
  request.externalContracts.forEach((ref, i) => {
    if (evidence.chainBindsExternalReferences) return;
    const outcome = binding?.status === 'ran' ? binding.references[i] : undefined;
    if (outcome?.status === 'bound' && outcome.referenceId === ref.referenceId) return;
    const notRun = binding?.status === 'not_run' ? binding.reason : 'chain_gates_not_configured';
    findings.push(unboundReferenceFinding(ref, outcome ? outcome.reasons : [`the binding did not run (${notRun})`]));
  });
  return findings;
}

/** The 4.1.0 funding rules: the nonce derivation warnings, then the build-only plan or the USD 1 initial buy. */
function fundingFindings(
  request: Extract<CustomLaunchCreateRequestV4, { profile: '4.1.0' }>,
  stage: 'preflight' | 'permit',
  evidence: AdmissionEvidence,
): AdmissionFinding[] {
  const findings: AdmissionFinding[] = [];
  if (!followsFundingNonceDerivation(request)) {
    findings.push({
      code: 'FUNDING_NONCE_CONFORMANCE_UNPROVEN',
      severity: 'warning',
      targetId: null,
      message: `The nonce ${request.nonce} does not follow the funding-nonce derivation from its entropy half, launchWallet and fundingPlanHash; a tooling warning, neither a conformance nor a safety claim.`,
    });
  }
  if (evidence.fundingNonceConflict) {
    findings.push({
      code: 'FUNDING_NONCE_DERIVATION_CONFLICT_SUSPECTED',
      severity: 'warning',
      targetId: null,
      message: `This server holds another request of ${request.launchWallet} with the nonce ${request.nonce}; a tooling warning, neither a conformance nor a safety claim.`,
    });
  }
  const initialBuy = initialBuyFinding(request, stage, evidence.minimumInitialBuyWei);
  if (initialBuy) findings.push(initialBuy);
  return findings;
}

/** A build-only plan (blocking at the permit stage), else the initial buy against a fresh USD 1 minimum. */
function initialBuyFinding(
  request: Extract<CustomLaunchCreateRequestV4, { profile: '4.1.0' }>,
  stage: 'preflight' | 'permit',
  minimumInitialBuyWei: bigint | null,
): AdmissionFinding | null {
  if (request.fundingPlan.mode === 'build-only') {
    return {
      code: 'BUILD_ONLY_PLAN',
      severity: stage === 'permit' ? 'blocking' : 'info',
      targetId: null,
      message: findingCodes.BUILD_ONLY_PLAN.obligation,
    };
  }
  if (minimumInitialBuyWei === null) {
    return {
      code: 'INITIAL_BUY_USD_UNPROVEN',
      severity: 'needs_evidence',
      targetId: null,
      message: findingCodes.INITIAL_BUY_USD_UNPROVEN.obligation,
    };
  }
  if (BigInt(request.fundingPlan.nativeAllocations.initialBuyWei) < minimumInitialBuyWei) {
    return {
      code: 'INITIAL_BUY_BELOW_USD_1',
      severity: 'blocking',
      targetId: null,
      message: `The initial buy of ${request.fundingPlan.nativeAllocations.initialBuyWei} wei is worth less than USD 1 (at least ${minimumInitialBuyWei} wei by a fresh quote); the server never raises it.`,
    };
  }
  return null;
}
