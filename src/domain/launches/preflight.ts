import type { components } from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import { canonicalJson, sha256Digest } from '../canonical-json.ts';
import { requestDigestOf } from './launch-service.ts';
import { type CreateRequestV4, checkRequestRules } from './request-rules.ts';

/** The preflight report, generated from spec/schemas/custom-launch-preflight.v2.schema.json. */
export type CustomLaunchPreflightV2 = components['schemas']['CustomLaunchPreflightV2'];
type StaticBaselineReport = CustomLaunchPreflightV2['staticBaseline'];

/** Finding: this deployment has not evaluated the static bytecode baseline (issue 4 adds the scanner). */
export const staticBaselineNotEvaluated = 'STATIC_BASELINE_NOT_EVALUATED';
/** Finding: the exact router simulation has not run (it needs the chain). */
export const routerSimulationNotRun = 'ROUTER_SIMULATION_NOT_RUN';

/**
 * preflightCustomLaunchV4: schema validation (by the validator) plus the request rules that need no chain.
 * It has no side effects: it persists nothing, allocates no nonce and never broadcasts. Until the static baseline
 * and the chain gates exist, the report says so as needs-evidence findings instead of claiming a result.
 * Spec: launch-transport.md What the service does 4, 7; Response resources (preflight).
 */
export function preflightV4(
  principal: Principal,
  request: CreateRequestV4,
  rawBody: Buffer,
  nowMs: number,
): CustomLaunchPreflightV2 {
  checkRequestRules(principal, request);
  const needsEvidence = [staticBaselineNotEvaluated, routerSimulationNotRun];
  const unsignedReport = {
    schemaVersion: 'platform.custom-launch-static-baseline-report.v1' as const,
    rulesetId: 'platform.static-baseline.not-evaluated',
    findings: [
      {
        code: staticBaselineNotEvaluated,
        severity: 'evidence_duty' as const,
        targetId: null,
        detail: 'This deployment does not run the static bytecode baseline yet; no hard-block rule was evaluated.',
      },
    ],
  };
  const staticBaseline = {
    ...unsignedReport,
    reportSha256: sha256Digest(canonicalJson(unsignedReport)),
  } as StaticBaselineReport;
  const duty = { status: 'evidence_required' as const, findingCodes: [staticBaselineNotEvaluated] };
  const axis = { status: 'not_evidenced' as const, findingCodes: [] };
  return {
    schemaVersion: 'platform.custom-launch-preflight.v2',
    chainId: '4663',
    caip2: 'eip155:4663',
    profile: request.profile,
    evaluatedAt: new Date(nowMs).toISOString(),
    requestDigest: requestDigestOf(rawBody),
    launchIntentHash: request.launchIntentHash,
    launchEligibility: { deployable: false, routable: false, featured: false },
    evidenceTier: 'declared',
    disposition: 'needs_evidence',
    blockingFindingCodes: [],
    warningFindingCodes: [],
    needsEvidenceFindingCodes: needsEvidence,
    informationalFindingCodes: [],
    riskClassification: { level: 'unclassified', basisFindingCodes: needsEvidence, safetyClaim: false },
    behaviorEvidence: {
      proxyOrDelegatecall: duty,
      mint: duty,
      tax: duty,
      pause: duty,
      transferControls: duty,
      liquidityCustody: duty,
      externalDependencies: duty,
      returnDeltaAccounting: duty,
      feeBehaviorClaim: false,
    },
    productTruthAxes: {
      deployment: axis,
      trading: axis,
      platform_fee_evidence: axis,
      source_verification: axis,
      indexing: axis,
      featured: axis,
    },
    staticBaseline,
    // Nothing to rebuild: the needs-evidence findings are the server's own pending gates, not request defects.
    remediations: [],
    platformAdmission: {
      status: 'no_blocking_static_finding',
      staticReportSha256: staticBaseline.reportSha256,
      warningFindingCodes: [],
      routerSimulationRequired: true,
      safetyClaim: false,
      feeBehaviorClaim: false,
    },
  } as CustomLaunchPreflightV2;
}
