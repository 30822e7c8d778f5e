/*
 * Keccak-256 (the pre-standard padding Ethereum uses, not SHA3-256) through hash-wasm's WebAssembly build. Node's
 * OpenSSL offers only SHA3's padding, and the pure-JS permutation viem ships runs at a few MB/s, which made hashing a
 * maximal preflight's 393 KB of runtime code most of its CPU time.
 */
import { createKeccak } from 'hash-wasm';
import type { Hex } from 'viem';
import { hexBytes } from './hex-bytes.ts';

// One instance, created once per process; its calls are synchronous, so no two hashes ever interleave in it.
const keccak = await createKeccak(256);

/**
 * Keccak-256 of bytes (Ethereum's hash: Keccak padding 0x01 ... 0x80, not SHA3's 0x06), as viem's `keccak256(bytes,
 * 'bytes')` computes it.
 *
 * @returns The 32-byte digest.
 */
export function keccak256Bytes(data: Uint8Array): Uint8Array {
  keccak.init();
  keccak.update(data);
  return keccak.digest('binary');
}

/**
 * Keccak-256 of a `0x` hex string or of bytes, as viem's `keccak256(value)` computes it (lowercase `0x` + 64 hex).
 *
 * @throws {TypeError} When a string is not `0x`-prefixed even-length hex.
 */
export function keccak256Hex(value: Hex | Uint8Array): Hex {
  let bytes: Uint8Array;
  if (typeof value === 'string') {
    const decoded = hexBytes(value);
    // viem throws on text that is not hex; Buffer's decoding alone would stop at the first pair that is not.
    if (!decoded) throw new TypeError('keccak256Hex: not 0x-prefixed even-length hex');
    bytes = decoded;
  } else {
    bytes = value;
  }
  keccak.init();
  keccak.update(bytes);
  return `0x${keccak.digest('hex')}`;
}
