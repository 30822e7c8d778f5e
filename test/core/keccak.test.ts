import fc from 'fast-check';
import { keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { keccak256Bytes, keccak256Hex } from '../../src/core/keccak.ts';

const hexOf = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}` as const;
const filled = (length: number) => Uint8Array.from({ length }, (_, i) => (i * 131 + length) & 0xff);

describe('keccak256Hex', () => {
  // Lengths on each side of the 136-byte rate, of the blocks one call absorbs (478 * 136 = 65,008) and of EIP-170.
  const lengths = [0, 1, 135, 136, 137, 271, 272, 273, 65_007, 65_008, 65_009, 24_576, 24_577, 130_017, 393_216];
  it.each(lengths)('equals viem keccak256 for %i bytes, given as bytes or hex', (length) => {
    const data = filled(length);
    expect(keccak256Hex(data)).toBe(keccak256(data));
    expect(keccak256Hex(hexOf(data))).toBe(keccak256(hexOf(data)));
    expect(hexOf(keccak256Bytes(data))).toBe(keccak256(data));
  });

  it('equals viem keccak256 on random inputs', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2_000 }), (data) => keccak256Hex(data) === keccak256(data)),
      { numRuns: 300 },
    );
  });

  it('knows the empty input and mixed-case hex', () => {
    expect(keccak256Hex('0x')).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(keccak256Hex('0xABcd')).toBe(keccak256('0xabcd'));
  });

  it.each([
    ['odd length', '0xabc'],
    ['a non-hex pair', '0xabzz'],
    ['no 0x prefix', 'abcd'],
  ])('refuses %s', (_name, given) => {
    expect(() => keccak256Hex(given as `0x${string}`)).toThrow(TypeError);
  });
});
