import type { StaticBaselineFindingV2, StaticBaselineReportV2 } from '../../../generated/types/service.ts';
import { canonicalJson, sha256Digest } from '../../core/canonical-json.ts';
import { sortFindings } from './rules.ts';

/** Identifier and revision of the rule set in `rules.ts`; bump the revision when a rule's outcome can change. */
export const staticBaselineRulesetId = 'platform.static-baseline.v2';

/**
 * Builds the exact static baseline report that the preflight result carries as `staticBaseline` and that
 * `platformAdmission` binds. Spec: spec/schemas/custom-launch-preflight.v2.schema.json (staticBaseline,
 * platformAdmission).
 *
 * @param findings Findings from `evaluateStaticBaseline`; sorted again here so the digest never depends on order.
 * @returns The report; `reportSha256` is the SHA-256 of the canonical JSON of the report without that field.
 */
export function buildStaticBaselineReport(findings: readonly StaticBaselineFindingV2[]): StaticBaselineReportV2 {
  const unsigned = {
    schemaVersion: 'platform.custom-launch-static-baseline-report.v1' as const,
    rulesetId: staticBaselineRulesetId,
    findings: sortFindings(findings).map((f) => ({ ...f })),
  };
  return { ...unsigned, reportSha256: sha256Digest(canonicalJson(unsigned)) };
}
