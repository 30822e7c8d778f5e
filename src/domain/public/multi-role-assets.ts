import { readFileSync } from 'node:fs';
import { sha256Digest } from '../../core/canonical-json.ts';

/** The release of the shared lane's reference client (spec/schemas/multi-role-capabilities.v2.schema.json). */
export const multiRoleClientRelease = '2.0.0';

const asset = (name: string) => new URL(`../../public/multi-role/${name}`, import.meta.url);
let client: Buffer | undefined;
let guide: Buffer | undefined;
let clientDigest: string | undefined;

/**
 * The exact bytes of the shared lane's reference client, src/public/multi-role/client.mjs, read once: what
 * getMultiRoleClient serves and capabilities' referenceClient.sha256 digests
 * (spec/openapi/paths/multi-role-client.yaml).
 */
export function multiRoleClientBytes(): Buffer {
  client ??= readFileSync(asset('client.mjs'));
  return client;
}

/** `sha256:` digest of multiRoleClientBytes(), computed once: capabilities' referenceClient.sha256. */
export function multiRoleClientDigest(): string {
  clientDigest ??= sha256Digest(multiRoleClientBytes());
  return clientDigest;
}

/** The exact bytes of the shared lane's guide, src/public/multi-role/guide.md, read once (multi-role-guide.yaml). */
export function multiRoleGuideBytes(): Buffer {
  guide ??= readFileSync(asset('guide.md'));
  return guide;
}
