import { createRequire } from 'node:module';
import { type Abi, decodeErrorResult, type Hex, parseAbi } from 'viem';
import {
  baseGraphFactoryAbi,
  baseLaunchRouterAbi,
  devnetUsdAbi,
  exampleHookAbi,
  graphFactoryAbi,
  launchStampRouterAbi,
  multiRoleLaunchRouterAbi,
  permitAuthorityAbi,
} from '../../generated/contracts/abis.ts';

const require = createRequire(import.meta.url);
const poolManagerAbi = (require('@uniswap/v4-core/out/PoolManager.sol/PoolManager.json') as { abi: Abi }).abi;

/**
 * Errors a launch can revert with: the platform's (the lanes' routers and factories, the permit authority, the
 * base layer's funding token), the example graph's, the PoolManager's and its libraries'.
 */
const errorAbi: Abi = [
  ...launchStampRouterAbi,
  ...permitAuthorityAbi,
  ...graphFactoryAbi,
  ...exampleHookAbi,
  ...baseLaunchRouterAbi,
  ...baseGraphFactoryAbi,
  ...multiRoleLaunchRouterAbi,
  ...devnetUsdAbi,
  ...poolManagerAbi,
  // v4-core library errors, absent from the PoolManager artifact's ABI.
  ...parseAbi([
    'error WrappedError(address target, bytes4 selector, bytes reason, bytes details)',
    'error HookAddressNotValid(address hooks)',
    'error InvalidHookResponse()',
    'error HookCallFailed()',
    'error CurrencyNotSettled()',
    'error TickSpacingTooLarge(int24 tickSpacing)',
    'error TickSpacingTooSmall(int24 tickSpacing)',
    'error LPFeeTooLarge(uint24 fee)',
    'error InvalidSqrtPrice(uint160 sqrtPriceX96)',
    'error PriceLimitAlreadyExceeded(uint160 sqrtPriceCurrentX96, uint160 sqrtPriceLimitX96)',
  ]),
].filter((item) => item.type === 'error');

/** The revert data of a failed call, wherever viem's error chain carries it; null when the node returned none. */
export function revertDataOf(err: unknown): Hex | null {
  let e: unknown = err;
  while (e && typeof e === 'object') {
    const data = (e as { data?: unknown }).data;
    if (typeof data === 'string' && data.startsWith('0x')) return data as Hex;
    if (data && typeof data === 'object' && typeof (data as { data?: unknown }).data === 'string') {
      return (data as { data: Hex }).data;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** A revert reason as `Name(arg, …)`, decoded against `errorAbi`; the raw selector when nothing matches. */
export function describeRevert(data: Hex | null): string {
  if (!data || data === '0x') return 'reverted without a reason';
  try {
    const decoded = decodeErrorResult({ abi: errorAbi, data });
    const args = (decoded.args ?? []).map((a) => (typeof a === 'bigint' ? a.toString() : String(a)));
    return `${decoded.errorName}(${args.join(', ')})`;
  } catch {
    return `reverted with undecoded data ${data.slice(0, 74)}`;
  }
}
