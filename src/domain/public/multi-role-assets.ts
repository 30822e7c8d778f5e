import { readFileSync } from 'node:fs';

/** The shared lane's reference client release (spec/schemas/multi-role-capabilities.v2.schema.json referenceClient.release). */
export const multiRoleClientRelease = '2.0.0';

const assetDir = new URL('../../public/multi-role/', import.meta.url);
let client: Buffer | undefined;
let guide: Buffer | undefined;

/**
 * The exact bytes of src/public/multi-role/client.mjs, read once: what getMultiRoleClient serves
 * (spec/openapi/paths/multi-role-client.yaml) and what capabilities' referenceClient.sha256 digests.
 */
export function multiRoleClientBytes(): Buffer {
  client ??= readFileSync(new URL('client.mjs', assetDir));
  return client;
}

/** The exact bytes of src/public/multi-role/guide.md, read once: what getMultiRoleGuide serves (spec/openapi/paths/multi-role-guide.yaml). */
export function multiRoleGuideBytes(): Buffer {
  guide ??= readFileSync(new URL('guide.md', assetDir));
  return guide;
}
