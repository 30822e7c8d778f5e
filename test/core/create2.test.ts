import fc from 'fast-check';
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { addressHookBits, mineHookSalt, predictGraphTarget } from '../../src/core/create2.ts';

// src/core/create2.ts: the mined salt is the first, counting up from `start`, whose CREATE2 address (computed the slow
// way, through viem, by predictGraphTarget) carries the mask in its low 14 bits.
const factory = '0xe451980132e65465d0a498c53f0b5227326dd73f' as Hex;
const router = '0x5392a33f7f677f59e833febf4016cddd88ff9e67' as Hex;
const salt = (i: bigint) => `0x${i.toString(16).padStart(64, '0')}` as Hex;

describe('mineHookSalt', () => {
  it('finds the first salt from its start whose address carries the mask', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 40 }),
        // Masks of few bits, so that every salt before the mined one can be checked here.
        fc.constantFrom(0, 1, 2, 3, 0x2000, 0x1000),
        fc.bigInt({ min: 0n, max: 2n ** 80n }),
        (code, mask, start) => {
          const runtime = `0x${Buffer.from(code).toString('hex')}` as Hex;
          // The search compares the mask with all 14 bits: a mask of few bits needs its other bits clear, too.
          const mined = BigInt(mineHookSalt(factory, router, runtime, mask, start));
          expect(addressHookBits(predictGraphTarget(factory, router, salt(mined), runtime))).toBe(mask);
          for (let i = start; i < mined && i < start + 64n; i++) {
            expect(addressHookBits(predictGraphTarget(factory, router, salt(i), runtime))).not.toBe(mask);
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});
