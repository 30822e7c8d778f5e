import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BaseLayerProjectManifestV1 } from '../../../generated/schemas/launch-project-manifest-v3.v1.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { LocalCheckError } from '../core/local-check-error.ts';

export type { BaseLayerProjectManifestV1 };

/** The manifest file of a base-layer (V3) launch project folder. */
export const baseLayerManifestFile = 'launch-v3.json';

/**
 * Reads and validates `<project>/launch-v3.json` against spec/schemas/launch-project-manifest-v3.v1.schema.json plus
 * the graph rules a schema cannot state (checkBaseLayerManifest). Local only: nothing is sent anywhere.
 */
export function readBaseLayerManifest(projectDir: string): BaseLayerProjectManifestV1 {
  const path = join(projectDir, baseLayerManifestFile);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new LocalCheckError('PROJECT_MANIFEST_MISSING', `no ${baseLayerManifestFile} in ${projectDir}`);
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (err) {
    throw new LocalCheckError('PROJECT_MANIFEST_INVALID', `${path} is not JSON: ${(err as Error).message}`);
  }
  return checkBaseLayerManifest(manifest, path);
}

/**
 * Checks a V3 manifest value: its schema, then exactly one token and one hook, one initializer for a direct graph and
 * none for a router primitive, unique target ids, and constructor arguments that name existing targets.
 */
export function checkBaseLayerManifest(manifest: unknown, path: string): BaseLayerProjectManifestV1 {
  const problems = schemaProblems('launch-project-manifest-v3.v1.schema.json', manifest);
  if (problems.length > 0) {
    throw new LocalCheckError(
      'PROJECT_MANIFEST_INVALID',
      `${path} does not match its schema:\n  ${problems.join('\n  ')}`,
    );
  }
  const valid = manifest as BaseLayerProjectManifestV1;
  const wanted = { token: 1, hook: 1, initializer: valid.graphKind === 'direct' ? 1 : 0 } as const;
  for (const [role, want] of Object.entries(wanted)) {
    const count = valid.targets.filter((t) => t.role === role).length;
    if (count !== want) {
      throw new LocalCheckError(
        'PROJECT_MANIFEST_INVALID',
        `${path}: a ${valid.graphKind} graph needs exactly ${want} ${role}${want === 1 ? '' : 's'}, found ${count}`,
      );
    }
  }
  const ids = valid.targets.map((t) => t.targetId);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate)
    throw new LocalCheckError('PROJECT_MANIFEST_INVALID', `${path}: targetId "${duplicate}" is used twice`);
  for (const target of valid.targets) {
    for (const arg of target.constructorArgs ?? []) {
      if ('target' in arg && !ids.includes(arg.target)) {
        throw new LocalCheckError(
          'PROJECT_MANIFEST_INVALID',
          `${path}: ${target.targetId} takes the address of "${arg.target}", which is no target of the graph`,
        );
      }
    }
  }
  return valid;
}
