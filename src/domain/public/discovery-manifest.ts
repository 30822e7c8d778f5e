import type { DiscoveryManifestV1 } from '../../../generated/types/service.ts';
import type { Config } from '../../config.ts';
import { clientReleases } from '../../core/client-releases.ts';
import { type RunningGates, writesGate } from './running-gates.ts';

/**
 * getDiscoveryManifest: the manifest a client reads before any authenticated preflight or submission
 * (spec/openapi/paths/discovery-manifest.yaml). Project design: a single-process deployment serves it itself and
 * both entries report the flags and state of its configuration (DISCOVERY_* variables), so an operator halts
 * clients by configuration alone; but publicWrites and releaseReady are false, with `reasons`, while the service
 * itself keeps writes closed (writesGate: no chain gates, or unverified deployment evidence), so a client stops
 * before it sends a key. serviceOrigin is PUBLIC_ORIGIN, or else the origin the request arrived at; the V4 entry
 * names the current profile's client release.
 */
export function discoveryManifest(
  config: Config,
  gates: RunningGates,
  now: number,
  listenOrigin: string,
): DiscoveryManifestV1 {
  const writes = writesGate(gates);
  const { publicAuthorization, state } = config.discovery;
  const flags = {
    publicAuthorization,
    publicWrites: config.discovery.publicWrites && writes.open,
    releaseReady: config.discovery.releaseReady && writes.open,
    state,
    reasons: writes.reasons,
  };
  return {
    schemaVersion: 'platform.custom-launch-discovery-manifest.v1',
    generatedAt: new Date(now).toISOString(),
    serviceOrigin: config.discovery.serviceOrigin ?? listenOrigin,
    versions: { v4: { apiVersion: 4, profile: '4.1.0', clientRelease: clientReleases['4.1.0'], ...flags } },
    chains: { '4663': { chainId: '4663', caip2: 'eip155:4663', ...flags } },
  };
}
