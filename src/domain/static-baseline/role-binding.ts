import { toFunctionSelector } from 'viem';
import { hookPermissionBits } from '../../core/hook-permissions.ts';
import type { ScanResult } from './opcode-scanner.ts';
import type { StaticBaselineRuleCode } from './rule-codes.ts';

/** One selector the role-bound rules or the pool duties look for, with the signature it is computed from. */
export interface NamedSelector {
  name: string;
  signature: string;
  selector: string;
}

const named = (entries: ReadonlyArray<readonly [name: string, signature: string]>): NamedSelector[] =>
  entries.map(([name, signature]) => ({ name, signature, selector: toFunctionSelector(signature) }));

/** The ERC-20 core a token dispatches: transfer, transferFrom, approve, balanceOf, allowance, totalSupply (EIP-20). */
export const erc20CoreSelectors: readonly NamedSelector[] = named([
  ['transfer', 'transfer(address,uint256)'],
  ['transferFrom', 'transferFrom(address,address,uint256)'],
  ['approve', 'approve(address,uint256)'],
  ['balanceOf', 'balanceOf(address)'],
  ['allowance', 'allowance(address,address)'],
  ['totalSupply', 'totalSupply()'],
]);

const poolKey = '(address,address,uint24,int24,address)';
const modifyParams = '(int24,int24,int256,bytes32)';
const swapParams = '(bool,int256,uint160)';

/** The ten Uniswap v4 hook callbacks (v4-core IHooks), named by their permission flag. */
export const hookCallbackSelectors: readonly NamedSelector[] = named([
  ['beforeInitialize', `beforeInitialize(address,${poolKey},uint160)`],
  ['afterInitialize', `afterInitialize(address,${poolKey},uint160,int24)`],
  ['beforeAddLiquidity', `beforeAddLiquidity(address,${poolKey},${modifyParams},bytes)`],
  ['afterAddLiquidity', `afterAddLiquidity(address,${poolKey},${modifyParams},int256,int256,bytes)`],
  ['beforeRemoveLiquidity', `beforeRemoveLiquidity(address,${poolKey},${modifyParams},bytes)`],
  ['afterRemoveLiquidity', `afterRemoveLiquidity(address,${poolKey},${modifyParams},int256,int256,bytes)`],
  ['beforeSwap', `beforeSwap(address,${poolKey},${swapParams},bytes)`],
  ['afterSwap', `afterSwap(address,${poolKey},${swapParams},int256,bytes)`],
  ['beforeDonate', `beforeDonate(address,${poolKey},uint256,uint256,bytes)`],
  ['afterDonate', `afterDonate(address,${poolKey},uint256,uint256,bytes)`],
]);

/**
 * The v4 PoolManager functions that create or settle a currency delta or move an ERC-6909 claim, and `unlock`, which
 * opens the lock they run under (v4-core IPoolManager and IERC6909Claims). Code that calls them moves or holds pool
 * assets.
 */
export const poolCustodySelectors: readonly NamedSelector[] = named([
  ['unlock', 'unlock(bytes)'],
  ['modifyLiquidity', `modifyLiquidity(${poolKey},${modifyParams},bytes)`],
  ['swap', `swap(${poolKey},${swapParams},bytes)`],
  ['donate', `donate(${poolKey},uint256,uint256,bytes)`],
  ['take', 'take(address,address,uint256)'],
  ['settle', 'settle()'],
  ['settleFor', 'settleFor(address)'],
  ['sync', 'sync(address)'],
  ['clear', 'clear(address,uint256)'],
  ['mint', 'mint(address,uint256,uint256)'],
  ['burn', 'burn(address,uint256,uint256)'],
  ['transfer', 'transfer(address,uint256,uint256)'],
  ['transferFrom', 'transferFrom(address,address,uint256,uint256)'],
]);

/** The four returns-delta permissions, each with the callback whose return value carries the delta. */
const returnDeltaCallbacks = [
  ['beforeSwapReturnDelta', 'beforeSwap'],
  ['afterSwapReturnDelta', 'afterSwap'],
  ['afterAddLiquidityReturnDelta', 'afterAddLiquidity'],
  ['afterRemoveLiquidityReturnDelta', 'afterRemoveLiquidity'],
] as const;

/** What the role-bound rules and the pool duties need to know about one target. */
export interface RoleBindingInput {
  role: 'token' | 'hook' | 'initializer' | 'auxiliary';
  /** The hook's permission mask (the hook target only). */
  hookPermissionMask?: number;
  scan: ScanResult;
  /** The selectors the top-level dispatcher branches on (`dispatchedSelectors`). */
  dispatched: Set<string>;
}

/**
 * The two role-bound hard blocks of the static baseline. Spec: the role-bound rules of the static-baseline finding
 * in spec/schemas/custom-launch-preflight.v2.schema.json; project design of what they check:
 *
 * - `TOKEN_ROLE_BINDING_INVALID` on the token target when its runtime code pushes, in a reachable PUSH4 outside
 *   embedded creation code, not every ERC-20 core selector (`erc20CoreSelectors`), unless it has a reachable
 *   DELEGATECALL (a proxy's logic lives elsewhere; that is the PROXY_OR_DELEGATECALL duty); or when its dispatcher
 *   branches on any v4 hook callback selector (`hookCallbackSelectors`): a contract that is both token and hook
 *   belongs to the MultiRole V2 lane.
 * - `HOOK_ROLE_BINDING_INVALID` on the hook target when its dispatcher branches on every ERC-20 core selector (the
 *   same shared contract seen from the hook side). The hook address carrying its mask is checked by admission.
 *
 * @returns One finding detail per broken rule.
 */
export function roleBindingFindings(input: RoleBindingInput): Array<{ code: StaticBaselineRuleCode; detail: string }> {
  const found: Array<{ code: StaticBaselineRuleCode; detail: string }> = [];
  const pushed = new Set(input.scan.selectors.filter((s) => s.embeddedStart === null).map((s) => s.selector));
  const dispatchesErc20 = erc20CoreSelectors.every((s) => input.dispatched.has(s.selector));
  if (input.role === 'token') {
    const missing = erc20CoreSelectors.filter((s) => !pushed.has(s.selector));
    if (missing.length > 0 && input.scan.delegatecall.length === 0) {
      found.push({
        code: 'TOKEN_ROLE_BINDING_INVALID',
        detail: `the token's runtime code carries no ERC-20 core selector for ${missing.map((s) => `${s.signature} ${s.selector}`).join(', ')}`,
      });
    }
    const callbacks = hookCallbackSelectors.filter((s) => input.dispatched.has(s.selector));
    if (callbacks.length > 0) {
      found.push({
        code: 'TOKEN_ROLE_BINDING_INVALID',
        detail: `the token's dispatcher also serves the hook callbacks ${callbacks.map((s) => `${s.name} ${s.selector}`).join(', ')}: a shared token and hook belongs to the MultiRole V2 lane`,
      });
    }
  }
  if (input.role === 'hook' && dispatchesErc20) {
    found.push({
      code: 'HOOK_ROLE_BINDING_INVALID',
      detail:
        "the hook's dispatcher also serves the whole ERC-20 core: a shared token and hook belongs to the MultiRole V2 lane",
    });
  }
  return found;
}

/**
 * The liquidity-custody and return-delta-accounting evidence duties, never blocks. Spec: the bound evidence duties
 * of spec/schemas/custom-launch-preflight.v2.schema.json (`behaviorEvidence`); project design of what they check:
 *
 * - `LIQUIDITY_CUSTODY` on any target whose runtime code pushes, in a reachable PUSH4 (embedded creation code
 *   included: a child the target deploys is covered too), a selector of `poolCustodySelectors` (it calls, or serves,
 *   a PoolManager function that moves or holds pool assets or ERC-6909 claims). An over-approximation: presence
 *   binds the duty, absence proves nothing.
 * - `RETURN_DELTA_ACCOUNTING` on the hook for each returns-delta permission enabled in its mask whose callback
 *   selector its runtime code pushes in such a PUSH4 (the callback that returns the delta is there to run).
 */
export function poolDutyFindings(input: RoleBindingInput): Array<{ code: StaticBaselineRuleCode; detail: string }> {
  const found: Array<{ code: StaticBaselineRuleCode; detail: string }> = [];
  const custody = poolCustodySelectors.filter((s) => input.scan.selectors.some((r) => r.selector === s.selector));
  const reachable = input.scan.selectors.filter((s) => s.embeddedStart === null);
  if (custody.length > 0) {
    found.push({
      code: 'LIQUIDITY_CUSTODY',
      detail: `PoolManager custody selectors pushed: ${custody.map((s) => `${s.signature} ${s.selector}`).join(', ')}`,
    });
  }
  const mask = input.role === 'hook' ? (input.hookPermissionMask ?? 0) : 0;
  for (const [permission, callback] of returnDeltaCallbacks) {
    if ((mask & hookPermissionBits[permission]) === 0) continue;
    const selector = hookCallbackSelectors.find((s) => s.name === callback)?.selector;
    if (selector && reachable.some((r) => r.selector === selector)) {
      found.push({
        code: 'RETURN_DELTA_ACCOUNTING',
        detail: `${permission} is enabled and the hook's code carries ${callback} ${selector}: the pool manager applies the delta it returns`,
      });
    }
  }
  return found;
}
