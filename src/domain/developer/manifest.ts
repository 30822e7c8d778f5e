import type { DeveloperManifestV2 } from '../../../generated/types/developer-api.ts';
import type {
  ChainDeploymentV1,
  CustomLaunchCapabilitiesV2,
  CustomLaunchCapabilitiesV3,
  MultiRoleCustomLaunchCapabilitiesV2,
} from '../../../generated/types/service.ts';
import type { BaseDeployment } from '../../chain/base-deployment.ts';
import type { MultiRoleDeployment } from '../../chain/multi-role-deployment.ts';

/** What the manifest is made of: the deployments bound (null when not) and the lanes' capabilities documents. */
export interface DeveloperManifestInputs {
  chainDeployment: ChainDeploymentV1 | null;
  baseDeployment: BaseDeployment | null;
  multiRoleDeployment: MultiRoleDeployment | null;
  v4: CustomLaunchCapabilitiesV2;
  v3: CustomLaunchCapabilitiesV3;
  multiRole: MultiRoleCustomLaunchCapabilitiesV2;
}

type Contracts = Array<{ name: string; address: string }>;

/** Named contracts in the document's own order. */
function contractsOf(contracts: Record<string, { address: string }>): Contracts {
  return Object.entries(contracts).map(([name, binding]) => ({ name, address: binding.address }));
}

/**
 * getDeveloperManifest (spec/openapi/developer-api.openapi.yaml, spec/schemas/developer-manifest.v2.schema.json):
 * the deployments bound, the API versions served with the profiles their capabilities name, and the client release
 * of each writable lane. Only the shared lane's reference client is served by this service, so only it has a
 * sha256 (its capabilities' digest of the exact bytes served); the others are never given a made-up digest.
 */
export function developerManifest(inputs: DeveloperManifestInputs): DeveloperManifestV2 {
  const { chainDeployment, baseDeployment, multiRoleDeployment, v4, v3, multiRole } = inputs;
  return {
    schemaVersion: 'platform.developer-manifest.v2',
    deployments: {
      chain4663: chainDeployment
        ? {
            chainDeploymentId: chainDeployment.chainDeploymentId,
            chainId: '4663',
            caip2: 'eip155:4663',
            finality: chainDeployment.finality,
            contracts: contractsOf(chainDeployment.contracts),
          }
        : null,
      baseLayer: baseDeployment
        ? { chainId: '1', caip2: 'eip155:1', contracts: contractsOf(baseDeployment.contracts) }
        : null,
      multiRole: multiRoleDeployment
        ? { chainId: '4663', caip2: 'eip155:4663', contracts: contractsOf(multiRoleDeployment.contracts) }
        : null,
    },
    apiVersions: [
      {
        api: 'custom-launch-v4',
        pathPrefix: '/v4/chains/{chainId}/custom-launches',
        access: 'read_write',
        profiles: v4.profiles.map((p) => p.profile),
      },
      {
        api: 'multi-role-custom-launch-v2',
        pathPrefix: '/v4/chains/{chainId}/multi-role-custom-launches',
        access: 'read_write',
        profiles: multiRole.profiles.map((p) => `revision:${p.revision}`),
      },
      {
        api: 'custom-launch-v3',
        pathPrefix: '/v3/custom-launches',
        access: 'read_write',
        profiles: v3.profiles.map((p) => p.version),
      },
      { api: 'custom-launch-v2', pathPrefix: '/v2/custom-launches', access: 'read_only', profiles: [] },
      { api: 'custom-launch-v1', pathPrefix: '/v1/custom-launches', access: 'read_only', profiles: [] },
      { api: 'developer-v2', pathPrefix: '/api/v2', access: 'read_only', profiles: [] },
    ],
    clientReleases: [
      ...v4.profiles.map((p) => ({
        lane: 'v4' as const,
        profile: p.profile,
        release: p.clientRelease,
        sha256: null,
        path: null,
      })),
      {
        lane: 'multi-role',
        profile: null,
        release: multiRole.referenceClient.release,
        sha256: multiRole.referenceClient.sha256,
        path: multiRole.referenceClient.path,
      },
      { lane: 'v3', profile: null, release: v3.clientRelease, sha256: null, path: null },
    ],
  };
}
