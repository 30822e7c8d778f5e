import type { BaseLayerProjectManifestV1 } from '../../../generated/schemas/launch-project-manifest-v3.v1.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { checkProjectGraph, readProjectManifestJson } from '../core/graph-pack.ts';
import { LocalCheckError } from '../core/local-check-error.ts';

export type { BaseLayerProjectManifestV1 };

/** The manifest file of a base-layer (V3) launch project folder. */
export const baseLayerManifestFile = 'launch-v3.json';

/**
 * Reads and validates `<project>/launch-v3.json` against spec/schemas/launch-project-manifest-v3.v1.schema.json plus
 * the graph rules a schema cannot state (checkBaseLayerManifest). Local only: nothing is sent anywhere.
 */
export function readBaseLayerManifest(projectDir: string): BaseLayerProjectManifestV1 {
  const { path, value } = readProjectManifestJson(projectDir, baseLayerManifestFile);
  return checkBaseLayerManifest(value, path);
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
  const wanted = { token: 1, hook: 1, initializer: valid.graphKind === 'direct' ? 1 : 0 };
  checkProjectGraph(path, valid.targets, wanted, `a ${valid.graphKind} graph`);
  return valid;
}
