import type { LaunchCoverageV1 } from '../../../generated/types/service.ts';
import { type HookPermission, hookPermissionBits } from '../../core/hook-permissions.ts';
import { findingCodes } from '../launches/finding-codes.ts';
import { launchVerifiers, verifierCoverage } from './launch-verifiers.ts';
import type { RunningGates } from './running-gates.ts';

/** The fourteen Uniswap v4 hook permissions, in mask-bit order (hook-permissions.ts is their one list). */
const hookPermissions = Object.keys(hookPermissionBits) as HookPermission[];

/**
 * getLaunchCoverageV4: what this deployment verifies and what it does not, one row per verifier of
 * launch-verifiers.ts as it runs in this configuration (`gates`). `requestAuthorization.requestAuthorized` is always
 * false; listed permissions and funding models are declarations, not execution evidence.
 * Spec: spec/openapi/paths/v4-launch-coverage.yaml, spec/schemas/launch-coverage.v1.schema.json.
 */
export function launchCoverageV4(nowMs: number, ready: boolean, gates: RunningGates): LaunchCoverageV1 {
  return {
    schemaVersion: 'platform.l2-launch-coverage.v1',
    chainId: '4663',
    caip2: 'eip155:4663',
    generatedAt: new Date(nowMs).toISOString(),
    requestAuthorization: { requestAuthorized: false },
    readiness: { status: ready ? 'ready' : 'not_ready' },
    structuralFormat: {
      onePhysicalTargetPerRole: true,
      tokenAndHookMayShareAddress: false,
      nativeTokenPoolCount: 1,
      graphTargets: { minimum: 3, maximum: 16 },
      hookPermissionBits: 14,
    },
    verifierCoverage: launchVerifiers.map((v) => verifierCoverage(v, gates)),
    findingObligations: Object.entries(findingCodes).map(([code, f]) => ({
      code,
      classification: f.classification,
      obligation: f.obligation,
    })),
    declarations: {
      hookPermissions: [...hookPermissions],
      fundingModels: ['hash_bound_funding_plan', 'exact_wallet_value'],
      executionEvidence: false,
    },
  } as LaunchCoverageV1;
}
