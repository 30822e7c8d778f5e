import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanRuntime } from '../../src/domain/static-baseline/opcode-scanner.ts';
import { referenceScan } from './reference-scanner.ts';

const bytes = (hex: string) => Buffer.from(hex.replace(/\s+/g, ''), 'hex');
const artifacts = JSON.parse(
  readFileSync(new URL('../../generated/contracts/artifacts.json', import.meta.url), 'utf8'),
) as { contracts: Record<string, { bytecode: string; deployedBytecode: string }> };
/** Real solc output: every compiled contract's runtime and creation code (the latter embeds the runtime as data). */
const compiled = Object.entries(artifacts.contracts).flatMap(([name, c]) => [
  [`${name} runtime`, bytes(c.deployedBytecode.slice(2))] as const,
  [`${name} creation`, bytes(c.bytecode.slice(2))] as const,
]);

/** Pieces of solc-shaped code, including every construct the scanner treats specially. */
const piece = fc.oneof(
  fc.constantFrom('5b', '00', '56', '57', 'f3', 'fd', 'fe', 'ff', 'f2', 'f4', '5f', '80', '14', '16', '33', '52'),
  fc.constantFrom('6080604052', '60a0604052', '610100604052', '6081604052', '6040604052', '604052'),
  fc.constantFrom(`73${'00'.repeat(20)}`, `73${'ff'.repeat(20)}`, `7f${'00'.repeat(32)}`),
  fc.constantFrom(
    `a264697066735822${'12'.repeat(34)}64736f6c6343000825`,
    `a1646970667358221220${'5bff'.repeat(16)}`,
    'a1636162634',
    '0033',
    '002a',
    '0035',
  ),
  fc.uint8Array({ minLength: 4, maxLength: 4 }).map((s) => `63${Buffer.from(s).toString('hex')}`),
  fc.uint8Array({ minLength: 20, maxLength: 20 }).map((a) => `73${Buffer.from(a).toString('hex')}`),
  fc.uint8Array({ minLength: 20, maxLength: 20 }).map((a) => `7f${'00'.repeat(12)}${Buffer.from(a).toString('hex')}`),
  fc.uint8Array({ minLength: 1, maxLength: 40 }).map((d) => Buffer.from(d).toString('hex')),
);

/** solc-shaped code, sometimes closed by a valid metadata trailer (the scanner excludes it) or a lying one. */
const solcShaped = fc
  .tuple(fc.array(piece, { maxLength: 120 }), fc.constantFrom('none', 'valid', 'lying'))
  .map(([pieces, trailer]) => {
    const map = `a264697066735822${'5b'.repeat(34)}64736f6c6343000825`;
    const tail = trailer === 'valid' ? `${map}0035` : trailer === 'lying' ? `${map}0034` : '';
    return bytes(pieces.join('') + tail);
  });

/** Real compiled code with a few bytes overwritten. */
const mutated = fc
  .tuple(
    fc.constantFrom(...compiled.map(([, code]) => code)),
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
  )
  .map(([code, edits]) => {
    const copy = Buffer.from(code);
    for (const [at, value] of edits) if (copy.length > 0) copy[at % copy.length] = value;
    return copy;
  });

describe('scanRuntime agrees with the reference scan', () => {
  it.each(compiled)('on %s', (_name, code) => {
    expect(scanRuntime(code)).toEqual(referenceScan(code));
  });

  it('on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3_000 }), (code) => {
        expect(scanRuntime(code)).toEqual(referenceScan(code));
      }),
      { numRuns: 300 },
    );
  });

  it('on solc-shaped code', () => {
    fc.assert(
      fc.property(solcShaped, (code) => {
        expect(scanRuntime(code)).toEqual(referenceScan(code));
      }),
      { numRuns: 500 },
    );
  });

  it('on compiled code with bytes overwritten', () => {
    fc.assert(
      fc.property(mutated, (code) => {
        expect(scanRuntime(code)).toEqual(referenceScan(code));
      }),
      { numRuns: 100 },
    );
  });

  it('on a Uint8Array view into a larger buffer', () => {
    const backing = bytes(`ffff 00 6080604052 ${'63aabbccdd'.repeat(40)} f4 00 ${'73'}${'11'.repeat(20)} eeee`);
    const view = new Uint8Array(backing.buffer, backing.byteOffset + 2, backing.length - 4);
    expect(scanRuntime(view)).toEqual(referenceScan(Uint8Array.from(view)));
  });
});
