import { encodeAbiParameters, type Hex, keccak256 } from 'viem';
import type { CustomLaunchCreateRequestV3 } from '../../generated/types/service.ts';
import { create2Address, mineSalt } from './create2.ts';
import { digestOf } from './request-hashes.ts';

/*
 * The base-layer (V3) graph on chain 1, as contracts/BaseGraphFactory.sol and contracts/BaseLaunchRouter.sol build
 * it: the router deploys each target through the factory with CREATE2 from its init code (creation code followed by
 * constructorArgs), salted with keccak256(abi.encode(router, salt)). Pure: the server, the packer and the CLI share it.
 */

/** Where the base-layer graph factory puts a target the router deploys with `salt` and init code hash. */
export function predictBaseGraphTarget(factory: Hex, router: Hex, salt: Hex, initCodeHash: Hex): Hex {
  return create2Address(factory, router, salt, initCodeHash);
}

/**
 * Mines a salt that puts the hook at an address whose low 14 bits equal `mask` (about 16,384 tries on average),
 * counting up from `start` so the result is deterministic.
 */
export function mineBaseHookSalt(factory: Hex, router: Hex, initCodeHash: Hex, mask: number, start = 0n): Hex {
  return mineSalt(factory, router, initCodeHash, mask, start);
}

/** A v4 pool key of the base-layer lane: native (address 0) against the token, with the graph's hook. */
export interface BasePoolKey {
  currency0: Hex;
  currency1: Hex;
  fee: number;
  tickSpacing: number;
  hooks: Hex;
}

/** The native/token pool key a launch stamps. */
export function basePoolKey(token: Hex, hook: Hex, lpFee: number, tickSpacing: number): BasePoolKey {
  return {
    currency0: '0x0000000000000000000000000000000000000000',
    currency1: token,
    fee: lpFee,
    tickSpacing,
    hooks: hook,
  };
}

/** The v4 pool id: keccak256 of the ABI-encoded pool key (the stampedPoolKeyHash of a fee certification). */
export function poolIdOf(key: BasePoolKey): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'address' }, { type: 'address' }, { type: 'uint24' }, { type: 'int24' }, { type: 'address' }],
      [key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks],
    ),
  );
}

/** The token and hook addresses and the pool id a V3 request's graph yields under `factory` and `router`. */
export function predictBaseLaunch(
  request: Pick<CustomLaunchCreateRequestV3, 'graph' | 'liquidity'>,
  factory: Hex,
  router: Hex,
): { token: Hex; hook: Hex; poolId: Hex } {
  const addressOf = (role: 'token' | 'hook'): Hex => {
    const target = request.graph.targets.find((t) => t.role === role);
    if (!target) throw new Error(`the graph has no ${role} target`);
    return predictBaseGraphTarget(factory, router, target.salt as Hex, target.initCodeHash as Hex);
  };
  const token = addressOf('token');
  const hook = addressOf('hook');
  const poolId = poolIdOf(basePoolKey(token, hook, request.liquidity.lpFee, request.liquidity.tickSpacing));
  return { token, hook, poolId };
}

/** RFC 8785 (JCS) SHA-256 of projectMetadata (projectMetadataHash of spec/schemas/custom-launch-create-request.v3.schema.json). */
export function baseProjectMetadataHashOf(request: Pick<CustomLaunchCreateRequestV3, 'projectMetadata'>): string {
  return digestOf(request.projectMetadata);
}

/** RFC 8785 (JCS) SHA-256 of the request without launchIntentHash (its launchIntentHash). */
export function baseLaunchIntentHashOf(request: CustomLaunchCreateRequestV3): string {
  const { launchIntentHash: _ignored, ...rest } = request;
  return digestOf(rest);
}
