import type { CustomLaunchCreateRequestV4, CustomLaunchPreflightV2 } from '../../../generated/types/service.ts';
import { type Principal, redactKeys } from '../../auth/keys.ts';
import { sha256Digest } from '../../core/canonical-json.ts';
import { HexMemo } from '../../core/hex-bytes.ts';
import { logger } from '../../observability/logger.ts';
import {
  type AdmissionConfig,
  type AdmissionEvidence,
  type AdmissionFinding,
  evaluateAdmission,
} from '../admission/evaluate.ts';
import { type FindingCode, findingCodes } from './finding-codes.ts';
import { checkRequestRules } from './request-rules.ts';

/** The preflight report, generated from spec/schemas/custom-launch-preflight.v2.schema.json. */
type Duty = CustomLaunchPreflightV2['behaviorEvidence']['mint'];
type ExternalReferenceBinding = CustomLaunchPreflightV2['externalReferenceBinding'];

/** The chain gates' read-only reference binding (LaunchAuthorizer.bindExternalReferences). */
export interface ExternalReferenceBinder {
  bindExternalReferences(request: CustomLaunchCreateRequestV4): Promise<ExternalReferenceBinding>;
}

/** What preflight reads besides the request: the chain gates' binding (null: none configured) and stored requests. */
export interface PreflightSources {
  binder: ExternalReferenceBinder | null;
  /** Whether this server holds another 4.1.0 request of the same wallet with the same nonce (read only). */
  fundingNonceConflict: (request: CustomLaunchCreateRequestV4) => boolean;
}

/** Tooling warnings: neither a conformance nor a safety claim, so they are no basis of the risk classification. */
const toolingWarnings: readonly FindingCode[] = [
  'FUNDING_NONCE_CONFORMANCE_UNPROVEN',
  'FUNDING_NONCE_DERIVATION_CONFLICT_SUSPECTED',
];

/** Runs the binding; a chain that cannot be read is reported as such (never its error text, which may name a URL). */
async function bindReferences(request: CustomLaunchCreateRequestV4, binder: ExternalReferenceBinder | null) {
  if (request.externalContracts.length === 0) return { status: 'not_run', reason: 'no_external_references' } as const;
  if (!binder) return { status: 'not_run', reason: 'chain_gates_not_configured' } as const;
  try {
    return await binder.bindExternalReferences(request);
  } catch (err) {
    logger.error({ detail: redactKeys(String(err)).slice(0, 500) }, 'preflight reference binding failed');
    return { status: 'not_run', reason: 'chain_unavailable' } as const;
  }
}

const codes = (findings: AdmissionFinding[], severity: AdmissionFinding['severity']) => [
  ...new Set(findings.filter((f) => f.severity === severity).map((f) => f.code)),
];

/** Which findings bind which behaviour-evidence duty (the `behaviorEvidence` of the preflight schema). */
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
 * preflightCustomLaunchV4 (spec/openapi/paths/v4-custom-launches-preflight.yaml): the request rules (400 on a broken
 * one), then, with chain gates configured, the read-only binding of the external references (reported per reference
 * in externalReferenceBinding), then the admission gates, reported without side effects: no launch is persisted, no
 * nonce allocated, nothing signed or broadcast (the binding and the funding-nonce lookup only read). The report's
 * shape is spec/schemas/custom-launch-preflight.v2.schema.json.
 */
export async function preflightV4(
  principal: Principal,
  request: CustomLaunchCreateRequestV4,
  rawBody: Buffer,
  nowMs: number,
  config: AdmissionConfig,
  evidence: AdmissionEvidence,
  sources: PreflightSources,
): Promise<CustomLaunchPreflightV2> {
  // Each runtime code is decoded once, for the request rules and the static baseline alike.
  const hex = new HexMemo();
  checkRequestRules(principal, request, hex);
  const binding = await bindReferences(request, sources.binder);
  const allBound = binding.status === 'ran' && binding.references.every((r) => r.status === 'bound');
  const { findings, staticReport, staticHardBlocks } = evaluateAdmission(
    request,
    config,
    'preflight',
    {
      ...evidence,
      externalReferenceBinding: binding,
      fundingNonceConflict: sources.fundingNonceConflict(request),
    },
    hex,
  );
  const verdict = verdictOf(findings);
  const { blocking, needsEvidence, warnings, deployable } = verdict;
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
    // The evidence tier is verified_references when the binding ran and bound every reference.
    evidenceTier: allBound ? 'verified_references' : 'static_baseline',
    disposition: verdict.disposition,
    blockingFindingCodes: blocking,
    warningFindingCodes: warnings,
    needsEvidenceFindingCodes: needsEvidence,
    informationalFindingCodes: verdict.informational,
    riskClassification: verdict.riskClassification,
    behaviorEvidence: { ...behaviorEvidenceOf(findings, allBound), feeBehaviorClaim: false },
    externalReferenceBinding: binding,
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
    platformAdmission: platformAdmissionOf(staticReport, staticHardBlocks, warnings),
  } as CustomLaunchPreflightV2;
}

/**
 * The findings sorted by severity, and what they decide. Disposition: any blocking finding → unsupported; else any
 * needs-evidence finding → needs_evidence; else any warning → supported_with_warnings; else supported. Deployable
 * means nothing blocks and nothing needs evidence, and then TX_SIMULATION_PENDING says the exact router simulation
 * follows submission. The funding-nonce warnings count as warnings but are no basis of the risk classification.
 */
function verdictOf(findings: AdmissionFinding[]) {
  const blocking = codes(findings, 'blocking');
  const needsEvidence = codes(findings, 'needs_evidence');
  const warnings = codes(findings, 'warning');
  const riskWarnings = warnings.filter((code) => !toolingWarnings.includes(code));
  const deployable = blocking.length === 0 && needsEvidence.length === 0;
  const informational = [...codes(findings, 'info'), ...(deployable ? ['TX_SIMULATION_PENDING' as const] : [])];
  const disposition: CustomLaunchPreflightV2['disposition'] =
    blocking.length > 0
      ? 'unsupported'
      : needsEvidence.length > 0
        ? 'needs_evidence'
        : warnings.length > 0
          ? 'supported_with_warnings'
          : 'supported';
  const riskClassification: CustomLaunchPreflightV2['riskClassification'] = {
    level: blocking.length > 0 ? 'high' : needsEvidence.length + riskWarnings.length > 0 ? 'elevated' : 'standard',
    basisFindingCodes: [...blocking, ...needsEvidence, ...riskWarnings],
    safetyClaim: false,
  };
  return { blocking, needsEvidence, warnings, informational, deployable, disposition, riskClassification };
}

/**
 * Each behaviour-evidence duty: evidence_required with the findings that bind it; else, for the external-dependency
 * duty when every external reference was bound, evidence_bound; else not_observed.
 */
function behaviorEvidenceOf(
  findings: AdmissionFinding[],
  allBound: boolean,
): Omit<CustomLaunchPreflightV2['behaviorEvidence'], 'feeBehaviorClaim'> {
  const duty = (dutyFindings: string[]): Duty => {
    const found = [...new Set(findings.filter((f) => dutyFindings.includes(f.code)).map((f) => f.code))];
    if (found.length > 0) return { status: 'evidence_required', findingCodes: found };
    // Bound external references are external dependencies whose evidence the server bound.
    const bound = allBound && dutyFindings.includes('EXTERNAL_REFERENCE_UNBOUND');
    return { status: bound ? 'evidence_bound' : 'not_observed', findingCodes: [] };
  };
  return Object.fromEntries(
    Object.entries(dutyCodes).map(([name, dutyFindings]) => [name, duty(dutyFindings)]),
  ) as Omit<CustomLaunchPreflightV2['behaviorEvidence'], 'feeBehaviorClaim'>;
}

/** The platform admission: action_required with the static baseline's hard blocks, else its report digest. */
function platformAdmissionOf(
  staticReport: ReturnType<typeof evaluateAdmission>['staticReport'],
  staticHardBlocks: readonly string[],
  warnings: string[],
): CustomLaunchPreflightV2['platformAdmission'] {
  return staticHardBlocks.length > 0
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
      };
}
