import type { MultiRoleCustomLaunchCapabilitiesV2 } from '../../../generated/types/service.ts';
import type { MultiRoleDeployment } from '../../chain/multi-role-deployment.ts';
import { laneDeploymentView } from './lane-deployment.ts';
import { multiRoleClientRelease } from './multi-role-assets.ts';

/** The profile revisions of the shared lane that accept new submissions: revision 1 is the one active revision. */
export const multiRoleActiveRevisions: readonly number[] = [1];

/** What the shared lane's capabilities are made of. */
export interface MultiRoleCapabilitiesContext {
  /** The lane's contracts (MULTI_ROLE_DEPLOYMENT_PATH); null when this deployment has not bound them. */
  deployment: MultiRoleDeployment | null;
  /** The pinned solc long version. */
  compilerVersion: string;
  /** `sha256:` digest of the exact bytes getMultiRoleClient serves. */
  clientSha256: string;
}

/**
 * Whether the shared lane admits requests: its contracts are bound and a profile revision is active. A missing
 * chain-4663 provider or permit attester does not close it (launches then wait in the lifecycle). Preflight and create
 * answer 503 MULTI_ROLE_LANE_UNAVAILABLE otherwise (spec/openapi/paths/multi-role-preflight.yaml,
 * multi-role-custom-launches.yaml).
 */
export function multiRoleReadiness(
  deployment: MultiRoleDeployment | null,
): MultiRoleCustomLaunchCapabilitiesV2['readiness'] {
  const reasons: MultiRoleCustomLaunchCapabilitiesV2['readiness']['reasons'] = [];
  if (!deployment) reasons.push('deployment_not_configured');
  if (multiRoleActiveRevisions.length === 0) reasons.push('no_active_profile');
  const ready = reasons.length === 0;
  return { status: ready ? 'ready' : 'unavailable', publicWrites: ready, reasons };
}

/**
 * getMultiRoleCapabilitiesV2: readiness, the profile revisions, the pinned compiler, the reference client (release
 * and the SHA-256 of the exact bytes served), the structural format, the limits and the lane's contracts (null when
 * unbound). Spec: spec/openapi/paths/multi-role-capabilities.yaml, spec/schemas/multi-role-capabilities.v2.schema.json.
 */
export function multiRoleCapabilities(ctx: MultiRoleCapabilitiesContext): MultiRoleCustomLaunchCapabilitiesV2 {
  const { deployment } = ctx;
  return {
    schemaVersion: 'platform.multi-role-custom-launch-capabilities.v2',
    chainId: '4663',
    caip2: 'eip155:4663',
    readiness: multiRoleReadiness(deployment),
    profiles: multiRoleActiveRevisions.map((revision) => ({
      schemaVersion: 'platform.multi-role-launch-profile.v2' as const,
      revision,
      acceptsNewSubmissions: true,
    })),
    compilerVersion: ctx.compilerVersion,
    referenceClient: {
      release: multiRoleClientRelease,
      sha256: ctx.clientSha256,
      path: '/v4/chains/4663/multi-role-custom-launches/client.mjs',
    },
    structuralFormat: { tokenAndHookShareAddress: true, imageMediaTypes: ['image/png', 'image/gif'] },
    limits: {
      graphTargets: { min: 2, max: 16 },
      maxInlineSources: 2048,
      applicantRateCapHundredthsBip: 100_000,
      pageSize: { default: 10, min: 1, max: 25 },
      funding: { autoRaise: false },
    },
    deployment: laneDeploymentView(deployment),
  };
}
