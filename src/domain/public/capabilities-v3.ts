import type { CustomLaunchCapabilitiesV3 } from '../../../generated/types/service.ts';
import type { BaseDeployment } from '../../chain/base-deployment.ts';
import type { Config } from '../../config.ts';
import { laneDeploymentView } from './lane-deployment.ts';

/** The current base-layer client release (spec/schemas/custom-launch-capabilities.v3.schema.json clientRelease). */
export const baseLayerClientRelease = '3.3.9';

type ProfileEntry = CustomLaunchCapabilitiesV3['profiles'][number];

const schema = 'platform.direct-native-hook-graph-profile.v3' as const;
const targets = { min: 3, max: 16 };

/** The five V3 profiles in version order; 3.4.0 is active only once activated. */
function profilesV3(profile340Active: boolean): ProfileEntry[] {
  const entry = (
    version: ProfileEntry['version'],
    revision: 2 | 3,
    state: ProfileEntry['state'],
    metadataPolicy: ProfileEntry['metadataPolicy'],
  ): ProfileEntry => ({ version, profileSchema: schema, revision, state, metadataPolicy, graphTargets: targets });
  return [
    entry('3.0.0', 2, 'readable_retryable', 'optional'),
    entry('3.1.0', 2, 'readable_retryable', 'optional'),
    entry('3.2.0', 2, 'readable_retryable', 'required_nullable_image'),
    entry('3.3.0', 3, 'default', 'required_strict'),
    {
      ...entry('3.4.0', 3, profile340Active ? 'active' : 'preparatory', 'required_strict'),
      graphTargets: { min: 4, max: 16 },
    },
  ];
}

/**
 * getCustomLaunchCapabilitiesV3: the base-layer profiles and limits of this deployment, its pinned compiler, the
 * funding tokens and the lane's contracts as the base deployment document names them (the token's EIP-712 domain
 * fields are the document's, read from the token when the deployment was made). Without a base deployment nothing is
 * admitted: no tokens, deployment null, acceptsNewSubmissions false. Profile 3.4.0 is preparatory until
 * V3_PROFILE_340_ACTIVE. Spec: spec/openapi/paths/v3-capabilities.yaml,
 * spec/schemas/custom-launch-capabilities.v3.schema.json.
 */
export function capabilitiesV3(
  config: Config,
  deployment: BaseDeployment | null,
  compilerVersion: string,
): CustomLaunchCapabilitiesV3 {
  const token = deployment?.contracts.fundingToken;
  return {
    schemaVersion: 'platform.custom-launch-capabilities.v3',
    chainId: '1',
    caip2: 'eip155:1',
    acceptsNewSubmissions: deployment !== null,
    defaultProfileVersion: '3.3.0',
    profiles: profilesV3(config.v3.profile340Active),
    clientRelease: baseLayerClientRelease,
    imageMediaTypes: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'],
    limits: {
      maxRequestBytes: 8_388_608,
      maxDecodedStandardJsonBytesPerUnit: 5_242_880,
      maxDecodedStandardJsonBytesTotal: 5_242_880,
      maxInlineSources: 2048,
      graphTargets: { min: 3, max: 16 },
      graphTargetsProfile340: { min: 4, max: 16 },
      routerPrimitiveTargets: { min: 2, max: 16 },
      hookPermissionMask: { min: 0, max: 16383 },
      descriptionUtf8Bytes: { min: 20, max: 4096 },
      descriptionMinLettersOrDigits: 8,
      platformShareHundredthsBip: 1000,
      applicantRateCapHundredthsBip: 100_000,
      applicantRateModes: ['additive', 'inclusive'],
      pageSize: { default: 10, min: 1, max: 25 },
      cursorLength: { min: 16, max: 512 },
      idempotencyKeyLength: { min: 16, max: 128 },
      // The published quota is the contract's; a deployment may run tighter (ADMISSION_PER_HOUR, ADMISSION_PER_DAY).
      newRequestAdmission: { perHour: 120, perDay: 500 },
    },
    compilerVersion,
    fundingTokens: token
      ? [
          {
            address: token.address,
            name: token.name,
            version: token.version,
            symbol: token.symbol,
            decimals: token.decimals,
          },
        ]
      : [],
    fundingAuthorizationWindowSeconds: config.v3.fundingAuthorizationWindowSeconds,
    deployment: laneDeploymentView(deployment),
  };
}
