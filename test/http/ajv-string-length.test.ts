import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringLength } from '../../src/http/ajv-string-length.ts';

/** Ajv's own count, a code point at a time (what stringLength must always equal). */
function codePoints(text: string): number {
  return [...text].length;
}

describe('stringLength (the count Ajv checks minLength and maxLength with)', () => {
  it.each([
    ['empty', '', 0],
    ['hex', `0x${'ab'.repeat(100)}`, 202],
    ['one astral character', '\u{1F600}', 1],
    ['astral characters among others', 'a\u{1F600}b\u{1F601}', 4],
    ['a lone high surrogate', 'a\uD800b', 3],
    ['a lone low surrogate', '\uDC00', 1],
    ['a high surrogate at the end', 'ab\uD800', 3],
    ['two highs then a low', '\uD800\uD800\uDC00', 2],
  ])('counts %s', (_name, given, want) => {
    expect(stringLength(given)).toBe(want);
  });

  it('equals the code point count on any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 64 }), (text) => stringLength(text) === codePoints(text)),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 64 }), (text) => stringLength(text) === codePoints(text)),
      { numRuns: 500 },
    );
  });

  it('is the function Ajv compiles minLength and maxLength with', () => {
    const runtime = createRequire(import.meta.url)('ajv/dist/runtime/ucs2length') as { default: unknown };
    expect(runtime.default).toBe(stringLength);
    const validate = new Ajv2020().compile({ type: 'string', minLength: 2, maxLength: 2 });
    expect(
      [
        ['\u{1F600}\u{1F601}', true],
        ['\u{1F600}', false],
        ['\u{1F600}ab', false],
        ['ab', true],
      ].map(([text]) => validate(text)),
    ).toEqual([true, false, false, true]);
  });
});
