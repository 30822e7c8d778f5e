import type { Hex } from 'viem';
import { encodeMultiRoleRouterLaunch, type MultiRoleLaunchParams } from '../../chain/multi-role-launch-chain.ts';
import { logger } from '../../observability/logger.ts';
import { lanePoolParamsOf, signedLanePermit } from '../lanes/router-call.ts';
import type { BuiltMultiRoleGraph } from './build.ts';
import type { MultiRoleLaunchFields, MultiRoleLaunchRow } from './launch-store.ts';
import {
  type MultiRoleLifecycleContext,
  type MultiRoleWalletTransaction,
  multiRoleRequestOf,
  type StoredMultiRoleBuild,
  storedMultiRoleBuildOf,
} from './lifecycle-context.ts';
import type { MultiRoleStepResult } from './lifecycle-jobs.ts';

/** Without chain 4663 (or without the permit attester) a launch waits in its status with this code. */
export const multiRoleChainNotConfiguredCode = 'CHAIN_NOT_CONFIGURED';

/** A hard block: `action_required`, its codes (with the review's earlier ones) shown as the launch's finding codes. */
function actionRequired(codes: readonly string[], fields: MultiRoleLaunchFields = {}): MultiRoleStepResult {
  const finding_codes_json = JSON.stringify([...new Set(codes)].slice(0, 64));
  return { kind: 'move', to: 'action_required', fields: { ...fields, finding_codes_json }, next: 'done' };
}

/**
 * validating: the pinned rebuild of the graph (a build that fails or a non-token_hook target it does not reproduce is
 * a hard block: `action_required` with MULTI_ROLE_BUILD_FAILED or MULTI_ROLE_INIT_CODE_MISMATCH), then, on chain
 * 4663, the admission review with its chain checks (the economics read, the callback-guard probe): any blocking
 * finding gives `action_required`, else evidence_required gives `needs_evidence` with the missing verification
 * requirements, else `simulating` with the build stored. Without chain 4663 the launch waits (CHAIN_NOT_CONFIGURED).
 * Spec: the status moves of spec/schemas/multi-role-resource.v2.schema.json.
 */
export async function multiRoleValidatingStep(
  ctx: MultiRoleLifecycleContext,
  row: MultiRoleLaunchRow,
): Promise<MultiRoleStepResult> {
  const request = multiRoleRequestOf(row);
  const built = await ctx.rules.build(request);
  if (!built.ok) return actionRequired([built.code]);
  if (!ctx.chain) return { kind: 'wait', code: multiRoleChainNotConfiguredCode };
  const review = await ctx.rules.review(request, built, ctx.chain);
  const codes = review.findings.map((f) => f.code);
  const reviewed: MultiRoleLaunchFields = {
    finding_codes_json: JSON.stringify([...new Set(codes)].slice(0, 64)),
    missing_verification_json: JSON.stringify(review.missingVerificationRequirements),
  };
  if (review.findings.some((f) => f.severity === 'blocking')) return actionRequired(codes, reviewed);
  if (review.findings.some((f) => f.severity === 'needs_evidence') || !built.tokenHookSourceMatches) {
    const missing = review.missingVerificationRequirements.length
      ? review.missingVerificationRequirements
      : (['source_code'] as const);
    const evidence = [...new Set(['evidence_required', ...codes])].slice(0, 64);
    return {
      kind: 'move',
      to: 'needs_evidence',
      fields: { finding_codes_json: JSON.stringify(evidence), missing_verification_json: JSON.stringify(missing) },
      next: 'done',
    };
  }
  const stored: StoredMultiRoleBuild = { build: built };
  return {
    kind: 'move',
    to: 'simulating',
    fields: { ...reviewed, build_json: JSON.stringify(stored) },
    next: 'scheduled',
  };
}

/** Whether the simulated gas at the gas price costs more than the controller's budget (no budget is ever raised). */
export function gasBudgetExceeded(gasUsed: bigint, gasPriceWei: bigint, maxGasCostWei: bigint): boolean {
  return gasUsed * gasPriceWei > maxGasCostWei;
}

/**
 * simulating: the exact wallet transaction (chain 4663, from the launch wallet, to the lane's router, value
 * funding.valueWei, MultiRoleLaunchRouter.launch calldata with a fresh permit for the lane's PermitAuthority at the
 * finalized checkpoint both providers agree on, valid for an hour of chain time), then eth_call and gas estimate of
 * exactly it. A revert gives `action_required` MULTI_ROLE_SIMULATION_REVERTED; gas × gas price above
 * funding.maxGasCostWei gives `action_required` MULTI_ROLE_GAS_BUDGET_EXCEEDED; otherwise `authorized` with the
 * transaction bound as walletTransaction and the permit's expiry as permitExpiresAt (the tracker follows it from
 * here). Spec: WalletTransaction and permitExpiresAt of spec/schemas/multi-role-resource.v2.schema.json.
 */
export async function multiRoleSimulatingStep(
  ctx: MultiRoleLifecycleContext,
  row: MultiRoleLaunchRow,
): Promise<MultiRoleStepResult> {
  const { chain, attester } = ctx;
  if (!chain || !attester) return { kind: 'wait', code: multiRoleChainNotConfiguredCode };
  const request = multiRoleRequestOf(row);
  const stored = storedMultiRoleBuildOf(row);
  const codes = JSON.parse(row.finding_codes_json) as string[];
  const value = BigInt(request.funding.valueWei);
  const { permit, permitSignature } = await signedLanePermit(chain, attester, { row, value, chainId: 4663 });
  const targets = stored.build.targets.map((t) => ({ initCode: t.initCode, salt: t.salt }));
  const transaction: MultiRoleWalletTransaction = {
    chainId: '4663',
    from: row.launch_wallet,
    to: chain.router.toLowerCase(),
    valueWei: value.toString(),
    data: encodeMultiRoleRouterLaunch(launchParamsOf(row, stored.build), targets, permit, permitSignature),
  };
  const call = { from: permit.wallet, to: chain.router, value, data: transaction.data as Hex };
  const simulation = await chain.simulate(call);
  if (!simulation.ok) {
    logger.warn({ launchId: row.launch_id, revert: simulation.revert }, 'shared-lane simulation reverted');
    return actionRequired([...codes, 'MULTI_ROLE_SIMULATION_REVERTED']);
  }
  const gasPriceWei = await chain.gasPrice();
  const measured: StoredMultiRoleBuild = {
    ...stored,
    simulation: {
      gasUsed: simulation.gasUsed.toString(),
      gasPriceWei: gasPriceWei.toString(),
      gasCostWei: (simulation.gasUsed * gasPriceWei).toString(),
    },
  };
  if (gasBudgetExceeded(simulation.gasUsed, gasPriceWei, BigInt(request.funding.maxGasCostWei))) {
    return actionRequired([...codes, 'MULTI_ROLE_GAS_BUDGET_EXCEEDED'], { build_json: JSON.stringify(measured) });
  }
  return {
    kind: 'move',
    to: 'authorized',
    fields: {
      build_json: JSON.stringify(measured),
      wallet_transaction_json: JSON.stringify(transaction),
      permit_expires_at: new Date(Number(permit.expiresAt) * 1000).toISOString(),
    },
    next: 'idle',
  };
}

/** The router's LaunchParams of a launch: its pool, the native it places, and its graph's two roles. */
function launchParamsOf(row: MultiRoleLaunchRow, build: BuiltMultiRoleGraph): MultiRoleLaunchParams {
  const request = multiRoleRequestOf(row);
  const indexOf = (role: string) => build.targets.findIndex((t) => t.role === role);
  const tokenHook = build.targets[indexOf('token_hook')];
  if (!tokenHook || build.targets.length !== request.graph.targets.length)
    throw new Error(`launch ${row.launch_id}: build mismatch`);
  return {
    ...lanePoolParamsOf(row, request.liquidity),
    liquidityNative: BigInt(request.funding.liquidityWei),
    hookMask: tokenHook.hookPermissionMask ?? 0,
    tokenHookIndex: indexOf('token_hook'),
    initializerIndex: indexOf('initializer'),
  };
}
