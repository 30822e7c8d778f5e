import type { FindingCode } from '../launches/finding-codes.ts';

/** The evidence states the server can be in (src/chain/verify-deployment-evidence.ts EvidenceState). */
export type EvidenceStateKind = 'verifying' | 'verified' | 'tampered' | 'unreachable' | 'disagreeing';

/**
 * The readiness check and write gate of the bound deployment evidence (getReadiness; the `writes` of
 * getCustomLaunchCapabilitiesV4): only verified evidence lets the V4 lane accept writes. Tampered evidence is a
 * verdict; verifying, unreachable and disagreeing (one provider's word) are not yet one.
 */
export function evidenceCheck(kind: EvidenceStateKind): { ok: boolean; reason: FindingCode | null } {
  if (kind === 'verified') return { ok: true, reason: null };
  return { ok: false, reason: kind === 'tampered' ? 'DEPLOYMENT_EVIDENCE_TAMPERED' : 'DEPLOYMENT_EVIDENCE_UNVERIFIED' };
}
