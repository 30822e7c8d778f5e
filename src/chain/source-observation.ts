import type { Hex } from 'viem';
import type { SourceVerificationProviderObservationV1 } from '../../generated/types/service.ts';
import { canonicalJson, sha256Digest } from '../core/canonical-json.ts';
import { loadSourceVerificationRegistry, registryRecordsFor } from './external-references.ts';

/**
 * Where a launch target's provider observation comes from (spec/schemas/custom-launch-resource.v4.schema.json
 * sourceVerification): what a
 * source-verification provider reported for an address and runtime code. It is never authoritative
 * (`releaseAuthority: false`): exact_match needs the server's own protected build besides it.
 */
export interface SourceObservationProvider {
  /** The provider's observation for this address and runtime code hash, or null when it has none (yet). */
  observe(target: { address: Hex; runtimeCodeHash: Hex }): Promise<SourceVerificationProviderObservationV1 | null>;
}

/**
 * The observation provider over the operator's registry file (SOURCE_VERIFICATION_REGISTRY_PATH; see
 * external-references.ts). Public verification services lie outside this machine, so the server never fetches
 * them: the operator records what a service reported, and the file is read again on every attempt, so a record
 * added while the server runs is seen on the next one. The observation digest is the digest of the record as read.
 */
export function registryObservationProvider(path: string | null, now: () => number): SourceObservationProvider {
  return {
    observe: async ({ address, runtimeCodeHash }) => {
      const [record] = registryRecordsFor(loadSourceVerificationRegistry(path), address, runtimeCodeHash);
      if (!record) return null;
      return {
        providerId: record.provider,
        observedAt: new Date(now()).toISOString(),
        observationDigest: sha256Digest(canonicalJson(record)),
        releaseAuthority: false,
      };
    },
  };
}
