import { mintWalletKey, type Principal } from '../../src/auth/keys.ts';
import type { MultiRoleDeployment } from '../../src/chain/multi-role-deployment.ts';
import type { MultiRoleProjectManifestV1 } from '../../src/client/multi-role/manifest.ts';
import { readMultiRoleManifest } from '../../src/client/multi-role/manifest.ts';
import { type MultiRolePackResult, packMultiRoleProject } from '../../src/client/multi-role/pack.ts';
import { MultiRoleLaunches } from '../../src/domain/multi-role/launch-service.ts';
import { checkMultiRoleRequestRules } from '../../src/domain/multi-role/request-rules.ts';
import { multiRoleActiveRevisions } from '../../src/domain/public/capabilities-multi-role.ts';
import { pinnedCompilerVersion } from '../../src/solidity/compile-contracts.ts';
import type { Db } from '../../src/store/db.ts';

/** The shared-lane example project (examples/multi-role-launch). */
export const tidewaterDir = new URL('../../examples/multi-role-launch', import.meta.url).pathname;

/** What the example's manifest may be changed in: its funding plan and its pool. */
export interface TidewaterChanges {
  funding?: Partial<MultiRoleProjectManifestV1['funding']>;
  liquidity?: Partial<MultiRoleProjectManifestV1['liquidity']>;
}

/**
 * Packs the example for the lane's contracts of `deployment`, for `launchWallet`, with fresh random salts and nonce
 * (a new launch intent, and a token_hook at an address no earlier launch took), its manifest changed by `changes`.
 */
export function packTidewater(
  deployment: MultiRoleDeployment,
  launchWallet: string,
  changes: TidewaterChanges = {},
): Promise<MultiRolePackResult> {
  const manifest = readMultiRoleManifest(tidewaterDir);
  const { contracts } = deployment;
  return packMultiRoleProject(tidewaterDir, {
    launchWallet,
    manifest: {
      ...manifest,
      funding: { ...manifest.funding, ...changes.funding },
      liquidity: { ...manifest.liquidity, ...changes.liquidity },
    },
    capabilities: {
      compilerVersion: pinnedCompilerVersion(),
      deployment: {
        launchRouter: contracts.launchRouter.address,
        graphFactory: contracts.graphFactory.address,
        poolManager: contracts.poolManager.address,
        permitAuthority: contracts.permitAuthority.address,
      },
    },
  });
}

/**
 * Creates a shared-lane launch as createMultiRoleCustomLaunch admits it (the request rules, status received, its job
 * scheduled), with a fresh wallet key of the request's launch wallet on chain 4663. Returns its id, the key and its
 * principal.
 */
export function createMultiRoleLaunch(
  db: Db,
  packed: Pick<MultiRolePackResult, 'request' | 'bytes'>,
  nowMs: () => number = Date.now,
): { launchId: string; principal: Principal; apiKey: string } {
  const { principal, apiKey } = mintWalletKey(db, {
    wallet: packed.request.launchWallet,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    chains: ['4663'],
  });
  const launches = new MultiRoleLaunches({
    db,
    now: nowMs,
    admission: { perHour: 1_000_000, perDay: 1_000_000 },
    checkRules: (p, request, rawBytes) =>
      checkMultiRoleRequestRules(p, request, rawBytes, {
        compilerVersion: pinnedCompilerVersion(),
        activeRevisions: multiRoleActiveRevisions,
      }),
  });
  const created = launches.create(principal, packed.request, packed.bytes, `lifecycle-${principal.keyId}`);
  if (created.status !== 202) throw new Error(`create answered ${created.status}: ${created.body}`);
  return { launchId: JSON.parse(created.body).launchId, principal, apiKey };
}
