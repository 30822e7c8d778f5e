import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LaunchProjectManifestV1 } from '../../../../generated/schemas/launch-project-manifest.v1.ts';
import { schemaProblems } from '../../../spec/schema-registry.ts';
import { LocalCheckError } from '../../core/local-check-error.ts';

export type { LaunchProjectManifestV1 };

/** The manifest file of a launch project folder. */
export const projectManifestFile = 'launch.json';

/**
 * Reads and validates `<project>/launch.json` against spec/schemas/launch-project-manifest.v1.schema.json, plus the
 * rule a schema cannot state: exactly one token, one hook and one initializer, and unique target ids.
 */
export function readProjectManifest(projectDir: string): LaunchProjectManifestV1 {
  const path = join(projectDir, projectManifestFile);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new LocalCheckError('PROJECT_MANIFEST_MISSING', `no ${projectManifestFile} in ${projectDir}`);
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (err) {
    throw new LocalCheckError('PROJECT_MANIFEST_INVALID', `${path} is not JSON: ${(err as Error).message}`);
  }
  return validateProjectManifest(manifest, path);
}

/** Checks a manifest value: its schema, then one token, one hook and one initializer with unique target ids. */
export function validateProjectManifest(manifest: unknown, path: string): LaunchProjectManifestV1 {
  const problems = schemaProblems('launch-project-manifest.v1.schema.json', manifest);
  if (problems.length > 0) {
    throw new LocalCheckError(
      'PROJECT_MANIFEST_INVALID',
      `${path} does not match its schema:\n  ${problems.join('\n  ')}`,
    );
  }
  const valid = manifest as LaunchProjectManifestV1;
  for (const role of ['token', 'hook', 'initializer'] as const) {
    const count = valid.targets.filter((t) => t.role === role).length;
    if (count !== 1) {
      throw new LocalCheckError(
        'PROJECT_MANIFEST_INVALID',
        `${path}: the graph needs exactly one ${role}, found ${count}`,
      );
    }
  }
  const ids = valid.targets.map((t) => t.targetId);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate)
    throw new LocalCheckError('PROJECT_MANIFEST_INVALID', `${path}: targetId "${duplicate}" is used twice`);
  return valid;
}
