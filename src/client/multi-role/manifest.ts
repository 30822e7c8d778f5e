import type { MultiRoleProjectManifestV1 } from '../../../generated/schemas/multi-role-project-manifest.v1.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import { checkProjectGraph, readProjectManifestJson } from '../core/graph-pack.ts';
import { LocalCheckError } from '../core/local-check-error.ts';

export type { MultiRoleProjectManifestV1 };

/** The manifest file of a shared-lane (MultiRole V2) launch project folder. */
export const multiRoleManifestFile = 'launch-multi-role.json';

/**
 * Reads and validates `<project>/launch-multi-role.json` against
 * spec/schemas/multi-role-project-manifest.v1.schema.json plus the rules a schema cannot state
 * (checkMultiRoleManifest). Local only: nothing is sent anywhere.
 */
export function readMultiRoleManifest(projectDir: string): MultiRoleProjectManifestV1 {
  const { path, value } = readProjectManifestJson(projectDir, multiRoleManifestFile);
  return checkMultiRoleManifest(value, path);
}

/**
 * Checks a shared-lane manifest value: its schema (a token_hook must list hookPermissions), then exactly one
 * token_hook and one initializer, unique target ids, constructor arguments that name existing targets, a token_hook
 * that enables at least one callback (a token with no hook belongs to the V4 lane), and the request rules of
 * spec/schemas/multi-role-create-request.v2.schema.json the manifest alone decides: funding.valueWei equals
 * liquidityWei plus reserveWei, and liquidity.tokenSupply is at most economics.totalSupply.
 */
export function checkMultiRoleManifest(manifest: unknown, path: string): MultiRoleProjectManifestV1 {
  const problems = schemaProblems('multi-role-project-manifest.v1.schema.json', manifest);
  if (problems.length > 0) {
    throw new LocalCheckError(
      'PROJECT_MANIFEST_INVALID',
      `${path} does not match its schema:\n  ${problems.join('\n  ')}`,
    );
  }
  const valid = manifest as MultiRoleProjectManifestV1;
  checkProjectGraph(path, valid.targets, { token_hook: 1, initializer: 1 }, 'a shared-lane graph');
  const tokenHook = valid.targets.find((t) => t.role === 'token_hook');
  if ((tokenHook?.hookPermissions ?? []).length === 0) {
    throw new LocalCheckError(
      'PROJECT_MANIFEST_INVALID',
      `${path}: the token_hook "${tokenHook?.targetId}" enables no hook callback; a token without a hook belongs to the V4 lane`,
    );
  }
  const { funding, liquidity, economics } = valid;
  if (BigInt(funding.valueWei) !== BigInt(funding.liquidityWei) + BigInt(funding.reserveWei)) {
    throw new LocalCheckError(
      'FUNDING_PLAN_UNBALANCED',
      `${path}: funding.valueWei ${funding.valueWei} is not liquidityWei ${funding.liquidityWei} plus reserveWei ${funding.reserveWei}`,
    );
  }
  if (BigInt(liquidity.tokenSupply) > BigInt(economics.totalSupply)) {
    throw new LocalCheckError(
      'PROJECT_MANIFEST_INVALID',
      `${path}: liquidity.tokenSupply ${liquidity.tokenSupply} exceeds economics.totalSupply ${economics.totalSupply}`,
    );
  }
  return valid;
}
