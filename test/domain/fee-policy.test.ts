import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { platformFeeBps, platformFeeWei } from '../../src/domain/fee-policy.ts';

const maxUint256 = (1n << 256n) - 1n;

describe('Native20 fee policy (launch-transport.md What the service does 6, Limits)', () => {
  it.each([
    ['nothing traded', 0n, 0n],
    ['one wei rounds up to one wei', 1n, 1n],
    ['499 wei: 0.998 rounds up to 1', 499n, 1n],
    ['500 wei: exactly 1', 500n, 1n],
    ['501 wei: 1.002 rounds up to 2', 501n, 2n],
    ['1 native coin: 0.002 coin', 10n ** 18n, 2n * 10n ** 15n],
    ['1 coin + 1 wei rounds up', 10n ** 18n + 1n, 2n * 10n ** 15n + 1n],
  ])('%s', (_name, gross, fee) => {
    expect(platformFeeWei(gross)).toBe(fee);
  });

  it('is 20 bps', () => {
    expect(platformFeeBps).toBe(20n);
  });

  it('is the smallest wei amount not below 0.20% of the gross, for any uint256 amount', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: maxUint256 }), (gross) => {
        const fee = platformFeeWei(gross);
        // Not below the exact fee ...
        expect(fee * 10_000n >= gross * 20n).toBe(true);
        // ... and one wei less would be below it: rounded up, never more.
        if (fee > 0n) expect((fee - 1n) * 10_000n < gross * 20n).toBe(true);
        expect(fee <= gross).toBe(true);
      }),
      { seed: 4663, numRuns: 2000 },
    );
  });

  it('charges each trade separately: two trades never pay less than one trade of their sum', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.bigInt({ min: 0n, max: 10n ** 30n }), (a, b) => {
        expect(platformFeeWei(a) + platformFeeWei(b) >= platformFeeWei(a + b)).toBe(true);
      }),
      { seed: 4663, numRuns: 1000 },
    );
  });

  it('refuses a negative amount', () => {
    expect(() => platformFeeWei(-1n)).toThrow(RangeError);
  });
});
