/**
 * Native20, the fee policy of the 4663 lane: 20 bps (0.20%) of the gross native amount, charged once per
 * successful buy or sell, rounded up to the next wei. Spec: launch-transport.md What the service does 6, Limits.
 */
export const platformFeeBps = 20n;
const bpsDenominator = 10_000n;

/** The platform fee in wei for one buy or sell of `grossWei`: ceil(gross × 20 / 10,000). */
export function platformFeeWei(grossWei: bigint): bigint {
  if (grossWei < 0n) throw new RangeError('grossWei must not be negative');
  return (grossWei * platformFeeBps + bpsDenominator - 1n) / bpsDenominator;
}
