import type { components } from '../../../generated/types/service.ts';
import type { Principal } from '../../auth/keys.ts';
import {
  type AdmissionConfig,
  type AdmissionEvidence,
  type AdmissionFinding,
  evaluateAdmission,
} from '../admission/evaluate.ts';
import { sha256Digest } from '../canonical-json.ts';
import { findingCodes } from './finding-codes.ts';
import { type CreateRequestV4, checkRequestRules } from './request-rules.ts';

/** The preflight report, generated from spec/schemas/custom-launch-preflight.v2.schema.json. */
export type CustomLaunchPreflightV2 = components['schemas']['CustomLaunchPreflightV2'];
type Duty = CustomLaunchPreflightV2['behaviorEvidence']['mint'];

const codes = (findings: AdmissionFinding[], severity: AdmissionFinding['severity']) => [
  ...new Set(findings.filter((f) => f.severity === severity).map((f) => f.code)),
];

/** Which findings bind which behaviour-evidence duty (launch-transport.md Errors: bound evidence duties). */
const dutyCodes: Record<Exclude<keyof CustomLaunchPreflightV2['behaviorEvidence'], 'feeBehaviorClaim'>, string[]> = {
  proxyOrDelegatecall: ['PROXY_OR_DELEGATECALL'],
  mint: ['MINT_CONTROL'],
  tax: ['TAX_CONTROL'],
  pause: ['PAUSE_CONTROL'],
  transferControls: ['TRANSFER_CONTROL'],
  liquidityCustody: ['LIQUIDITY_CUSTODY'],
  externalDependencies: ['EXTERNAL_DEPENDENCY', 'EXTERNAL_REFERENCE_UNBOUND', 'POOL_MANAGER_NOT_STATIC'],
  returnDeltaAccounting: ['RETURN_DELTA_ACCOUNTING'],
};

/**
 * preflightCustomLaunchV4: the request rules (400 on a broken one), then the admission gates that need no chain,
 * reported without side effects: no launch is persisted, no nonce allocated, nothing broadcast.
 * Disposition: any blocking finding → unsupported; else any needs-evidence finding → needs_evidence; else any
 * warning → supported_with_warnings; else supported. Deployable means nothing blocks and nothing needs evidence,
 * and then TX_SIMULATION_PENDING says the exact router simulation follows submission.
 * Spec: launch-transport.md What the service does 4, 7; Response resources (preflight); Errors (TX_SIMULATION_PENDING).
 */
export function preflightV4(
  principal: Principal,
  request: CreateRequestV4,
  rawBody: Buffer,
  nowMs: number,
  config: AdmissionConfig,
  evidence: AdmissionEvidence,
): CustomLaunchPreflightV2 {
  checkRequestRules(principal, request);
  const { findings, staticReport, staticHardBlocks } = evaluateAdmission(request, config, 'preflight', evidence);
  const blocking = codes(findings, 'blocking');
  const needsEvidence = codes(findings, 'needs_evidence');
  const warnings = codes(findings, 'warning');
  const deployable = blocking.length === 0 && needsEvidence.length === 0;
  const informational = [...codes(findings, 'info'), ...(deployable ? ['TX_SIMULATION_PENDING' as const] : [])];
  const disposition =
    blocking.length > 0
      ? 'unsupported'
      : needsEvidence.length > 0
        ? 'needs_evidence'
        : warnings.length > 0
          ? 'supported_with_warnings'
          : 'supported';
  const duty = (dutyFindings: string[]): Duty => {
    const found = [...new Set(findings.filter((f) => dutyFindings.includes(f.code)).map((f) => f.code))];
    return { status: found.length > 0 ? 'evidence_required' : 'not_observed', findingCodes: found };
  };
  const behaviorEvidence = Object.fromEntries(
    Object.entries(dutyCodes).map(([name, dutyFindings]) => [name, duty(dutyFindings)]),
  ) as Omit<CustomLaunchPreflightV2['behaviorEvidence'], 'feeBehaviorClaim'>;
  const axis = { status: 'not_evidenced' as const, findingCodes: [] };
  return {
    schemaVersion: 'platform.custom-launch-preflight.v2',
    chainId: '4663',
    caip2: 'eip155:4663',
    profile: request.profile,
    evaluatedAt: new Date(nowMs).toISOString(),
    requestDigest: sha256Digest(rawBody),
    launchIntentHash: request.launchIntentHash,
    launchEligibility: { deployable, routable: deployable, featured: false },
    evidenceTier: 'static_baseline',
    disposition,
    blockingFindingCodes: blocking,
    warningFindingCodes: warnings,
    needsEvidenceFindingCodes: needsEvidence,
    informationalFindingCodes: informational,
    riskClassification: {
      level: blocking.length > 0 ? 'high' : needsEvidence.length + warnings.length > 0 ? 'elevated' : 'standard',
      basisFindingCodes: [...blocking, ...needsEvidence, ...warnings],
      safetyClaim: false,
    },
    behaviorEvidence: { ...behaviorEvidence, feeBehaviorClaim: false },
    productTruthAxes: {
      deployment: axis,
      trading: axis,
      platform_fee_evidence: axis,
      source_verification: axis,
      indexing: axis,
      featured: axis,
    },
    staticBaseline: staticReport,
    remediations: blocking.map((code) => ({
      findingCodes: [code],
      action: `${findingCodes[code].obligation} Rebuild and submit a new immutable request.`,
      newRequestRequired: true as const,
    })),
    platformAdmission:
      staticHardBlocks.length > 0
        ? {
            status: 'action_required',
            blockingFindingCodes: [...new Set(staticHardBlocks)],
            staticReport,
            safetyClaim: false,
            feeBehaviorClaim: false,
          }
        : {
            status: 'no_blocking_static_finding',
            staticReportSha256: staticReport.reportSha256,
            warningFindingCodes: warnings,
            routerSimulationRequired: true,
            safetyClaim: false,
            feeBehaviorClaim: false,
          },
  } as CustomLaunchPreflightV2;
}
