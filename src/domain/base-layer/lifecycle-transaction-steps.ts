import type { Address, Hex } from 'viem';
import {
  type BaseFundingAuthorization,
  type BaseLaunchParams,
  encodeBaseRouterLaunch,
  noBaseFunding,
} from '../../chain/base-launch-chain.ts';
import { laneFailureJson } from '../lanes/launch-table.ts';
import { lanePoolParamsOf, signedLanePermit } from '../lanes/router-call.ts';
import { baseLayerFindingCodes } from './finding-codes.ts';
import type { BaseLaunchRow } from './launch-store.ts';
import {
  type BaseLifecycleContext,
  type BaseWalletTransaction,
  baseRequestOf,
  type StoredBaseBuild,
  storedBuildOf,
} from './lifecycle-context.ts';
import { fundingExpiredCode, fundingWindowClosed, storedFundingOf } from './lifecycle-funding.ts';
import type { BaseStepResult } from './lifecycle-jobs.ts';
import { chainNotConfiguredCode } from './lifecycle-review-steps.ts';
import type { BaseFeeCertification } from './lifecycle-rules.ts';

/** The router's initializerIndex of a router-primitive graph. */
const routerPrimitiveIndex = 255;

/** The funding authorization's window closed before the launch transaction: the launch ends cancelled. */
function expired(): BaseStepResult {
  return {
    kind: 'move',
    to: 'cancelled',
    fields: {
      failure_json: laneFailureJson(
        fundingExpiredCode,
        'The EIP-3009 funding authorization window closed before the launch transaction was submitted.',
        baseLayerFindingCodes.V3_FUNDING_AUTHORIZATION_EXPIRED.obligation,
      ),
    },
    next: 'done',
  };
}

/** funding_authorization_verified: the verified signature is bound; `prepared` (or cancelled once expired). */
export function verifiedStep(ctx: BaseLifecycleContext, row: BaseLaunchRow): BaseStepResult {
  if (fundingWindowClosed(storedFundingOf(row), ctx.now())) return expired();
  return { kind: 'move', to: 'prepared', next: 'scheduled' };
}

/**
 * prepared: the exact wallet transaction (chain 1, from the launch wallet, to the lane's router, the request's
 * value, BaseLaunchRouter.launch calldata with a fresh permit at the finalized checkpoint both providers agree on and
 * the verified funding authorization) → `simulating`, the transaction kept in build_json until authorized.
 */
export async function preparedStep(ctx: BaseLifecycleContext, row: BaseLaunchRow): Promise<BaseStepResult> {
  const { chain, attester } = ctx;
  if (!chain || !attester) return { kind: 'wait', code: chainNotConfiguredCode };
  const funding = storedFundingOf(row);
  if (fundingWindowClosed(funding, ctx.now())) return expired();
  const request = baseRequestOf(row);
  const stored = storedBuildOf(row);
  const value = BigInt(request.funding.valueWei);
  const { permit, permitSignature } = await signedLanePermit(chain, attester, { row, value, chainId: 1 });
  const certification = JSON.parse(row.fee_certification_json ?? 'null') as BaseFeeCertification | null;
  const params = launchParamsOf(row, stored, certification?.platformShareHundredthsBip ?? 0);
  const routerFunding: BaseFundingAuthorization =
    request.funding.mode === 'eip3009' && funding?.typedData && funding.signature
      ? {
          token: funding.token as Address,
          recipient: funding.recipient as Address,
          value: BigInt(funding.amount),
          validAfter: BigInt(funding.typedData.message.validAfter),
          validBefore: BigInt(funding.typedData.message.validBefore),
          nonce: funding.typedData.message.nonce as Hex,
          signature: funding.signature as Hex,
        }
      : noBaseFunding;
  const targets = request.graph.targets.map((t, i) => ({
    initCode: stored.build.targets[i]?.initCode as Hex,
    salt: t.salt as Hex,
  }));
  const transaction: BaseWalletTransaction = {
    chainId: '1',
    from: row.launch_wallet,
    to: chain.router,
    valueWei: value.toString(),
    data: encodeBaseRouterLaunch(params, targets, permit, permitSignature, routerFunding),
  };
  const permitExpiresAt = new Date(Number(permit.expiresAt) * 1000).toISOString();
  const prepared: StoredBaseBuild = { ...stored, prepared: { transaction, permitExpiresAt } };
  return { kind: 'move', to: 'simulating', fields: { build_json: JSON.stringify(prepared) }, next: 'scheduled' };
}

/** The router's LaunchParams of a launch: its pool, its graph's roles and the platform share decided in review. */
function launchParamsOf(row: BaseLaunchRow, stored: StoredBaseBuild, platformShare: number): BaseLaunchParams {
  const request = baseRequestOf(row);
  const targets = request.graph.targets;
  const indexOf = (role: string) => targets.findIndex((t) => t.role === role);
  const hook = targets[indexOf('hook')];
  if (targets.length !== stored.build.targets.length || !hook)
    throw new Error(`launch ${row.launch_id}: build mismatch`);
  return {
    ...lanePoolParamsOf(row, request.liquidity),
    liquidityNative: BigInt(request.funding.valueWei),
    hookMask: hook.hookPermissionMask ?? 0,
    tokenIndex: indexOf('token'),
    hookIndex: indexOf('hook'),
    initializerIndex: request.graph.kind === 'router-primitive' ? routerPrimitiveIndex : indexOf('initializer'),
    platformShareHundredthsBip: platformShare,
  };
}

/**
 * simulating: eth_call of exactly the prepared transaction on chain 1. It passes: `authorized`, the transaction
 * bound as walletTransaction (the tracker follows it from here). It reverts: `failed` with V3_SIMULATION_REVERTED
 * and the decoded revert.
 */
export async function simulatingStep(ctx: BaseLifecycleContext, row: BaseLaunchRow): Promise<BaseStepResult> {
  const { chain } = ctx;
  if (!chain) return { kind: 'wait', code: chainNotConfiguredCode };
  if (fundingWindowClosed(storedFundingOf(row), ctx.now())) return expired();
  const prepared = storedBuildOf(row).prepared;
  if (!prepared) throw new Error(`launch ${row.launch_id} is simulating without a prepared transaction`);
  const tx = prepared.transaction;
  const simulation = await chain.simulate({
    from: tx.from as Address,
    to: tx.to as Address,
    value: BigInt(tx.valueWei),
    data: tx.data as Hex,
  });
  if (!simulation.ok) {
    return {
      kind: 'move',
      to: 'failed',
      fields: {
        failure_json: laneFailureJson(
          'V3_SIMULATION_REVERTED',
          `The exact wallet transaction reverts on chain 1: ${simulation.revert}.`,
          baseLayerFindingCodes.V3_SIMULATION_REVERTED.obligation,
        ),
      },
      next: 'done',
    };
  }
  return { kind: 'move', to: 'authorized', fields: { wallet_transaction_json: JSON.stringify(tx) }, next: 'idle' };
}
