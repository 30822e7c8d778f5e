import { concat, encodeAbiParameters, getContractAddress, type Hex, hexToBytes, keccak256, toHex } from 'viem';
import { keccak256Bytes, keccak256Hex } from './keccak.ts';

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
  return create2Address(factory, router, salt ?? `0x${'0'.repeat(64)}`, keccak256Hex(graphInitCode(runtimeCode)));
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
  return mineSalt(factory, router, keccak256Hex(graphInitCode(runtimeCode)), mask, start);
}

/**
 * Mines a salt for which CREATE2 from `factory` (caller `router`) over `bytecodeHash` yields an address whose low 14
 * bits equal `mask`, counting up from `start`. The same addresses as create2Address, computed over reused byte
 * buffers with the WebAssembly keccak: a packer tries about 16,384 salts on average, and hex encoding each try, or
 * viem's pure-JS keccak, would cost most of the time (about 0.8 s a pack with viem's).
 */
export function mineSalt(factory: Hex, router: Hex, bytecodeHash: Hex, mask: number, start: bigint): Hex {
  const key = `${factory}:${router}:${bytecodeHash}:${mask}:${start}`.toLowerCase();
  const known = minedSalts.get(key);
  if (known) return known;
  const salt = searchSalt(factory, router, bytecodeHash, mask, start);
  minedSalts.set(key, salt);
  if (minedSalts.size > 64) minedSalts.delete(minedSalts.keys().next().value as string);
  return salt;
}

/** Salts already mined in this process (a pure function's results: packing a project again mines nothing). */
const minedSalts = new Map<string, Hex>();

function searchSalt(factory: Hex, router: Hex, bytecodeHash: Hex, mask: number, start: bigint): Hex {
  // abi.encode(router, salt): 12 zero bytes, the router, the 32-byte salt.
  const encoded = new Uint8Array(64);
  encoded.set(hexToBytes(router), 12);
  const saltView = new DataView(encoded.buffer, 32, 32);
  // 0xff, the factory, the effective salt, the init code hash.
  const preimage = new Uint8Array(85);
  preimage[0] = 0xff;
  preimage.set(hexToBytes(factory), 1);
  preimage.set(hexToBytes(bytecodeHash), 53);
  const low64 = (1n << 64n) - 1n;
  for (let i = start; i < start + 4_000_000n; i++) {
    if (i === start || (i & low64) === 0n) encoded.set(hexToBytes(toHex(i >> 64n, { size: 24 })), 32);
    saltView.setBigUint64(24, i & low64);
    preimage.set(keccak256Bytes(encoded), 21);
    const address = keccak256Bytes(preimage);
    // The address is the hash's last 20 bytes; its low 14 bits are those of the last two bytes.
    if (((((address[30] ?? 0) << 8) | (address[31] ?? 0)) & 0x3fff) === mask) return toHex(i, { size: 32 });
  }
  throw new Error(`no salt within 4,000,000 tries gives mask ${mask}`);
}
