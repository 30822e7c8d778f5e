import { createRequire } from 'node:module';
import { type Abi, type Address, encodeFunctionData, type Hex, type PublicClient } from 'viem';
import type { CallbackFlag } from '../core/hook-permissions.ts';
import { isExecutionRevert } from './chain-failure.ts';
import { revertDataOf } from './revert.ts';

const require = createRequire(import.meta.url);
const hooksAbi = (require('@uniswap/v4-core/out/IHooks.sol/IHooks.json') as { abi: Abi }).abi;

/** The selector of `HookNotImplemented()`, BaseHook's revert for a callback it does not implement. */
const hookNotImplemented = '0x0a85dc29';
/** A sender that is neither the pool manager nor any launch contract. */
export const strangerAddress: Address = '0x000000000000000000000000000000000000dEaD';

/** How one enabled callback answered the two calls. */
export type CallbackVerdict =
  | { callback: CallbackFlag; outcome: 'guarded' }
  | { callback: CallbackFlag; outcome: 'unguarded' }
  | { callback: CallbackFlag; outcome: 'not_implemented'; detail: string }
  | { callback: CallbackFlag; outcome: 'undecided'; detail: string };

interface PoolKey {
  currency0: Address;
  currency1: Address;
  fee: number;
  tickSpacing: number;
  hooks: Address;
}

/** Plausible arguments of each callback for the launch's own pool. */
function callbackArgs(callback: CallbackFlag, sender: Address, key: PoolKey, sqrtPriceX96: bigint): unknown[] {
  const liquidity = { tickLower: -60, tickUpper: 60, liquidityDelta: 1_000_000n, salt: `0x${'0'.repeat(64)}` };
  const swap = { zeroForOne: true, amountSpecified: -1_000n, sqrtPriceLimitX96: 4_295_128_740n };
  switch (callback) {
    case 'beforeInitialize':
      return [sender, key, sqrtPriceX96];
    case 'afterInitialize':
      return [sender, key, sqrtPriceX96, 0];
    case 'beforeAddLiquidity':
    case 'beforeRemoveLiquidity':
      return [sender, key, liquidity, '0x'];
    case 'afterAddLiquidity':
    case 'afterRemoveLiquidity':
      return [sender, key, liquidity, 0n, 0n, '0x'];
    case 'beforeSwap':
      return [sender, key, swap, '0x'];
    case 'afterSwap':
      return [sender, key, swap, 0n, '0x'];
    case 'beforeDonate':
    case 'afterDonate':
      return [sender, key, 1n, 1n, '0x'];
  }
}

/**
 * Decides the callback-guard and enabled-callback rules on the chain (behind the CALLBACK_GUARD_MISSING and
 * ENABLED_CALLBACK_MISSING findings): each enabled callback is called with the hook's runtime code placed at its
 * address by a state override, once from the pool manager and once from a stranger. Success from both: unguarded.
 * Success from the pool manager and a revert from the stranger: guarded. `HookNotImplemented()`, or a revert without
 * data (no such function), from the pool manager: not implemented. Any other revert from the pool manager leaves the
 * callback undecided. Nothing is sent: eth_call only.
 */
export async function probeHookCallbacks(
  client: PublicClient,
  input: {
    hookAddress: Address;
    runtimeCode: Hex;
    poolManager: Address;
    router: Address;
    key: PoolKey;
    sqrtPriceX96: bigint;
    enabled: readonly CallbackFlag[];
  },
): Promise<CallbackVerdict[]> {
  const stateOverride = [{ address: input.hookAddress, code: input.runtimeCode }];
  const attempt = async (from: Address, data: Hex): Promise<{ ok: true } | { ok: false; data: Hex | null }> => {
    try {
      await client.call({ account: from, to: input.hookAddress, data, stateOverride });
      return { ok: true };
    } catch (err) {
      // A provider that did not answer decides nothing: the step fails and is retried.
      if (!isExecutionRevert(err)) throw err;
      return { ok: false, data: revertDataOf(err) };
    }
  };
  const verdicts: CallbackVerdict[] = [];
  for (const callback of input.enabled) {
    const data = encodeFunctionData({
      abi: hooksAbi,
      functionName: callback,
      args: callbackArgs(callback, input.router, input.key, input.sqrtPriceX96),
    });
    const fromPoolManager = await attempt(input.poolManager, data);
    if (!fromPoolManager.ok) {
      const reason = fromPoolManager.data ?? '0x';
      if (reason === '0x' || reason.startsWith(hookNotImplemented)) {
        verdicts.push({
          callback,
          outcome: 'not_implemented',
          detail: reason === '0x' ? 'reverted without data (no such function)' : 'reverted with HookNotImplemented()',
        });
      } else {
        verdicts.push({
          callback,
          outcome: 'undecided',
          detail: `reverted for the pool manager with ${reason.slice(0, 74)}`,
        });
      }
      continue;
    }
    const fromStranger = await attempt(strangerAddress, data);
    verdicts.push({ callback, outcome: fromStranger.ok ? 'unguarded' : 'guarded' });
  }
  return verdicts;
}
