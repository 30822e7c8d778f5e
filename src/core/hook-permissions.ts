/**
 * Uniswap v4 hook permission flags and their mask bits, as in Uniswap v4-core's `Hooks.sol` (the mask is
 * `HookPermissionMask` of spec/schemas/common.schema.json). A flag is set on a hook when
 * `uint160(hookAddress) & bit != 0`; all fourteen make 0x3FFF.
 */
export const hookPermissionBits = {
  beforeInitialize: 1 << 13,
  afterInitialize: 1 << 12,
  beforeAddLiquidity: 1 << 11,
  afterAddLiquidity: 1 << 10,
  beforeRemoveLiquidity: 1 << 9,
  afterRemoveLiquidity: 1 << 8,
  beforeSwap: 1 << 7,
  afterSwap: 1 << 6,
  beforeDonate: 1 << 5,
  afterDonate: 1 << 4,
  beforeSwapReturnDelta: 1 << 3,
  afterSwapReturnDelta: 1 << 2,
  afterAddLiquidityReturnDelta: 1 << 1,
  afterRemoveLiquidityReturnDelta: 1 << 0,
} as const;
export type HookPermission = keyof typeof hookPermissionBits;

/** The ten flags that enable a callback of their own (the returns-delta flags add none). */
export const callbackFlags = [
  'beforeInitialize',
  'afterInitialize',
  'beforeAddLiquidity',
  'afterAddLiquidity',
  'beforeRemoveLiquidity',
  'afterRemoveLiquidity',
  'beforeSwap',
  'afterSwap',
  'beforeDonate',
  'afterDonate',
] as const satisfies readonly HookPermission[];
export type CallbackFlag = (typeof callbackFlags)[number];

/** A returns-delta flag is valid only with the flag whose callback returns that delta. */
export const returnsDeltaBase: Record<string, HookPermission> = {
  beforeSwapReturnDelta: 'beforeSwap',
  afterSwapReturnDelta: 'afterSwap',
  afterAddLiquidityReturnDelta: 'afterAddLiquidity',
  afterRemoveLiquidityReturnDelta: 'afterRemoveLiquidity',
};

/** The mask the named flags make. */
export function maskOf(flags: Partial<Record<HookPermission, boolean>>): number {
  let mask = 0;
  for (const [flag, bit] of Object.entries(hookPermissionBits)) if (flags[flag as HookPermission]) mask |= bit;
  return mask;
}
