import type { DeveloperStatusV2 } from '../../../generated/types/developer-api.ts';
import type { MultiRoleCustomLaunchCapabilitiesV2 } from '../../../generated/types/service.ts';

/** What the status is made of: the service's readiness and the writable lanes' own readiness answers. */
export interface DeveloperStatusInputs {
  /** The status of the service's readiness document (getReadiness). */
  serviceReadiness: 'ready' | 'not_ready';
  /** The V4 lane: writes open (writesGate) and the discovery manifest's publicWrites. */
  v4: { writesOpen: boolean; publicWrites: boolean };
  /** The shared lane's capabilities readiness. */
  multiRole: MultiRoleCustomLaunchCapabilitiesV2['readiness'];
  /** The V3 capabilities' acceptsNewSubmissions. */
  v3AcceptsNewSubmissions: boolean;
}

/**
 * getDeveloperStatus (spec/openapi/developer-api.openapi.yaml, spec/schemas/developer-status.v2.schema.json): ok
 * exactly when the service is ready; each lane as its own capabilities answer it; v2 and v1 are read-only history.
 */
export function developerStatus(inputs: DeveloperStatusInputs): DeveloperStatusV2 {
  const { serviceReadiness, v4, multiRole, v3AcceptsNewSubmissions } = inputs;
  const on4663 = { chainId: '4663', caip2: 'eip155:4663' } as const;
  const on1 = { chainId: '1', caip2: 'eip155:1' } as const;
  return {
    schemaVersion: 'platform.developer-status.v2',
    status: serviceReadiness === 'ready' ? 'ok' : 'degraded',
    service: { readiness: serviceReadiness },
    lanes: [
      { lane: 'v4', ...on4663, readiness: v4.writesOpen ? 'ready' : 'unavailable', publicWrites: v4.publicWrites },
      { lane: 'multi-role', ...on4663, readiness: multiRole.status, publicWrites: multiRole.publicWrites },
      {
        lane: 'v3',
        ...on1,
        readiness: v3AcceptsNewSubmissions ? 'ready' : 'unavailable',
        publicWrites: v3AcceptsNewSubmissions,
      },
      { lane: 'v2', ...on1, readiness: 'read_only', publicWrites: false },
      { lane: 'v1', ...on1, readiness: 'read_only', publicWrites: false },
    ],
  };
}
