import { concat, encodeAbiParameters, getContractAddress, type Hex, keccak256, toHex } from 'viem';

/** The graph factory's init code for a runtime code: a 12-byte loader, then the code (contracts/GraphFactory.sol). */
export function graphInitCode(runtimeCode: Hex): Hex {
  const length = (runtimeCode.length - 2) / 2;
  return concat([toHex(0x61, { size: 1 }), toHex(length, { size: 2 }), '0x80600c6000396000f3', runtimeCode]);
}

/**
 * Where the graph factory puts a target the router deploys: CREATE2 from the factory with the salt
 * keccak256(abi.encode(router, targetSalt)) over the loader init code. A target without a salt uses the zero salt.
 */
export function predictGraphTarget(factory: Hex, router: Hex, salt: Hex | undefined, runtimeCode: Hex): Hex {
  return create2Address(factory, router, salt ?? `0x${'0'.repeat(64)}`, keccak256(graphInitCode(runtimeCode)));
}

/** CREATE2 from the factory for a caller's salt: the factory salts with keccak256(abi.encode(caller, salt)). */
export function create2Address(factory: Hex, caller: Hex, salt: Hex, bytecodeHash: Hex): Hex {
  const effective = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [caller, salt]));
  return getContractAddress({ opcode: 'CREATE2', from: factory, salt: effective, bytecodeHash }).toLowerCase() as Hex;
}

/** The low 14 bits of an address: the Uniswap v4 hook permission flags it carries (core/hook-permissions.ts). */
export function addressHookBits(address: Hex): number {
  return Number(BigInt(address) & 0x3fffn);
}

/**
 * Mines a CREATE2 salt that puts the hook at an address whose low 14 bits equal `mask` (a packer's step; about
 * 16,384 tries on average). Counts up from `start`, so the result is deterministic.
 */
export function mineHookSalt(factory: Hex, router: Hex, runtimeCode: Hex, mask: number, start = 0n): Hex {
  return mineSalt(factory, router, keccak256(graphInitCode(runtimeCode)), mask, start);
}

/**
 * Mines a salt for which CREATE2 from `factory` (caller `router`) over `bytecodeHash` yields an address whose low 14
 * bits equal `mask`, counting up from `start`.
 */
export function mineSalt(factory: Hex, router: Hex, bytecodeHash: Hex, mask: number, start: bigint): Hex {
  for (let i = start; i < start + 4_000_000n; i++) {
    const salt = toHex(i, { size: 32 });
    if (addressHookBits(create2Address(factory, router, salt, bytecodeHash)) === mask) return salt;
  }
  throw new Error(`no salt within 4,000,000 tries gives mask ${mask}`);
}
