import type { DiscoveryManifestV1 } from '../../../generated/types/service.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { exchange } from '../core/transport.ts';

/** Where a site serves the discovery manifest (project design of the file name; spec path getDiscoveryManifest). */
export const discoveryPath = '/.well-known/platform-custom-launch-discovery.json';

/** The manifest says stop, or could not be read: no authenticated request may follow. The CLI exits 4. */
export class DiscoveryStop extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiscoveryStop';
  }
}

/**
 * Why a discovery manifest stops a V4 client, or null when it may go on
 * (spec/schemas/discovery-manifest.v1.schema.json): both `versions.v4` and `chains.4663` must be present and complete and report `publicAuthorization`,
 * `publicWrites` and `releaseReady` true, neither may report `pending-public-discovery-promotion` (nor any state
 * other than `public`), and its `serviceOrigin` must be the client's configured origin. A stop names the entry's
 * `reasons` (the service's own, such as CHAIN_NOT_CONFIGURED) when it gives any.
 */
export function discoveryStopReason(manifest: unknown, origin: string): string | null {
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) {
    return 'the discovery manifest is not a JSON object';
  }
  const doc = manifest as Partial<DiscoveryManifestV1>;
  const entries: Array<[string, Record<string, unknown> | undefined]> = [
    ['versions.v4', doc.versions?.v4 as Record<string, unknown> | undefined],
    ['chains.4663', doc.chains?.['4663'] as Record<string, unknown> | undefined],
  ];
  for (const [name, entry] of entries) {
    if (!entry || typeof entry !== 'object') return `the discovery manifest has no ${name} entry`;
    // The service's own reasons for closing writes (DiscoveryReasons), named so a user knows why it stops.
    const reasons = Array.isArray(entry.reasons) && entry.reasons.length > 0 ? ` (${entry.reasons.join(', ')})` : '';
    for (const flag of ['publicAuthorization', 'publicWrites', 'releaseReady'] as const) {
      if (!(flag in entry)) return `the discovery manifest's ${name} entry is incomplete: no ${flag}`;
      if (entry[flag] !== true)
        return `the discovery manifest's ${name} entry reports ${flag}: ${JSON.stringify(entry[flag])}${reasons}`;
    }
    if (entry.state === 'pending-public-discovery-promotion') {
      return `the discovery manifest's ${name} entry reports pending-public-discovery-promotion`;
    }
    if (entry.state !== 'public') return `the discovery manifest's ${name} entry reports state ${String(entry.state)}`;
  }
  // The flags are read first so their message wins; anything else off-schema is still a stop.
  const problems = schemaProblems('discovery-manifest.v1.schema.json', manifest);
  if (problems.length > 0) return `the discovery manifest is incomplete or malformed: ${problems.join('; ')}`;
  if (doc.serviceOrigin !== origin) {
    return `the discovery manifest names the service origin ${doc.serviceOrigin}, not the configured ${origin}`;
  }
  return null;
}

/**
 * Reads the discovery manifest at `{siteUrl}/.well-known/...` (no key is sent) and throws DiscoveryStop unless it
 * lets a V4 client on chain 4663 go on. Called before every authenticated preflight or submission.
 */
export async function requireDiscovery(options: {
  siteUrl: string;
  origin: string;
  timeoutMs: number;
  fetch?: typeof globalThis.fetch;
}): Promise<DiscoveryManifestV1> {
  const where = `${options.siteUrl}${discoveryPath}`;
  const reply = await exchange({
    origin: options.siteUrl,
    method: 'GET',
    path: discoveryPath,
    timeoutMs: options.timeoutMs,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  if (reply.kind === 'no_answer')
    throw new DiscoveryStop(`cannot read the discovery manifest at ${where}: ${reply.reason}`);
  if (reply.kind === 'redirect')
    throw new DiscoveryStop(`the discovery manifest at ${where} redirects; redirects are refused`);
  if (reply.status !== 200) throw new DiscoveryStop(`the discovery manifest at ${where} answered HTTP ${reply.status}`);
  const reason = discoveryStopReason(reply.json, options.origin);
  if (reason) throw new DiscoveryStop(`${reason} (${where}); stopping before any authenticated request`);
  return reply.json as DiscoveryManifestV1;
}
