import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalSha256, sha256Digest } from '../../src/core/canonical-json.ts';
import { HexMemo } from '../../src/core/hex-bytes.ts';

/** RFC 8785 canonical JSON (src/core/canonical-json.ts): the text of plain JSON data, and the refusal of anything else. */
describe('canonicalJson', () => {
  const sparse: unknown[] = [1];
  sparse[2] = 3;
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = { back: cycle };
  const rows: Array<[name: string, given: unknown, want: string]> = [
    ['null', null, 'null'],
    ['booleans in an array', [true, false], '[true,false]'],
    [
      'numbers in ECMAScript form, -0 as 0',
      [1e21, 1e-7, -0, 0.1, 333333333.3333333],
      '[1e+21,1e-7,0,0.1,333333333.3333333]',
    ],
    [
      'keys sorted by UTF-16 code units',
      { b: 1, a: 2, '\u20ac': 3, '\u{1f600}': 4, '\u0080': 5 },
      '{"a":2,"b":1,"\u0080":5,"\u20ac":3,"\u{1f600}":4}',
    ],
    ['nested objects and arrays', { z: [{ y: 'x', b: [] }], a: {} }, '{"a":{},"z":[{"b":[],"y":"x"}]}'],
    [
      'strings escaped as JSON.stringify escapes them',
      ['\n"\\\u0001', '\u{1f600}'],
      '["\\n\\"\\\\\\u0001","\u{1f600}"]',
    ],
    ['a prototype-less object', Object.assign(Object.create(null), { b: 1, a: 1 }), '{"a":1,"b":1}'],
  ];
  it.each(rows)('%s', (_name, given, want) => {
    expect(canonicalJson(given)).toBe(want);
  });

  const refusals: Array<[name: string, given: unknown, want: string]> = [
    ['a non-finite number, with its path', { a: [1, Number.NaN] }, 'canonicalJson: non-finite number at $.a[1]'],
    ['a lone surrogate in a value', { a: { b: 'x\ud800' } }, 'canonicalJson: lone surrogate in string at $.a.b'],
    ['a lone surrogate in a key', { a: { '\udc00': 1 } }, 'canonicalJson: lone surrogate in string at $.a'],
    ['an undefined member', { a: [{ b: undefined }] }, 'canonicalJson: undefined value at $.a[0].b'],
    ['a sparse array', { s: sparse }, 'canonicalJson: sparse array at $.s[1]'],
    ['a cycle', cycle, 'canonicalJson: cycle at $.self.back'],
    ['a class instance', { d: new Date(0) }, 'canonicalJson: non-plain object at $.d'],
    ['a bigint', [1n], 'canonicalJson: unsupported bigint at $[0]'],
    ['a symbol-keyed property', { [Symbol('s')]: 1 }, 'canonicalJson: symbol-keyed property at $'],
  ];
  it.each(refusals)('refuses %s', (_name, given, want) => {
    expect(() => canonicalJson(given)).toThrow(new TypeError(want));
  });

  it('digests a string as its UTF-8 bytes', () => {
    expect(sha256Digest('\u20ac')).toBe(sha256Digest(Buffer.from('\u20ac', 'utf8')));
    expect(sha256Digest('')).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

/** A plain RFC 8785 writer for JSON data without numbers in exponent form: the reference the fast paths must equal. */
function referenceCanonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(referenceCanonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${referenceCanonical(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Long strings of every kind the hashing fast path must tell apart: hex, and text that only looks like it. */
const longStrings = fc.oneof(
  fc.uint8Array({ minLength: 120, maxLength: 700 }).map((b) => `0x${Buffer.from(b).toString('hex')}`),
  fc.uint8Array({ minLength: 120, maxLength: 700 }).map((b) => `0x${Buffer.from(b).toString('hex').toUpperCase()}`),
  fc.uint8Array({ minLength: 120, maxLength: 300 }).map((b) => `0x${Buffer.from(b).toString('hex')}\u0130\u0130`),
  fc.uint8Array({ minLength: 120, maxLength: 300 }).map((b) => `0x\u0130\u0130${Buffer.from(b).toString('hex')}`),
  fc.uint8Array({ minLength: 120, maxLength: 300 }).map((b) => `0x${Buffer.from(b).toString('hex')}"\\\n`),
  fc.string({ unit: 'grapheme', minLength: 256, maxLength: 600 }),
  fc
    .string({ unit: 'binary', minLength: 256, maxLength: 600 })
    .filter((s) => (s as string & { isWellFormed(): boolean }).isWellFormed()),
  fc.string({ minLength: 0, maxLength: 40 }),
);
const jsonData = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    longStrings,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('canonicalSha256', () => {
  it('equals the digest of the canonical text, with and without a hex memo', () => {
    fc.assert(
      fc.property(jsonData, (value) => {
        const text = canonicalJson(value);
        const want = sha256Digest(text);
        return (
          text === referenceCanonical(value) &&
          canonicalSha256(value) === want &&
          canonicalSha256(value, new HexMemo()) === want
        );
      }),
      { numRuns: 400 },
    );
  });

  it('refuses what canonicalJson refuses, with the same error, after hashing long hex', () => {
    const hex = `0x${'ab'.repeat(400)}`;
    const given = { a: hex, b: [hex, { c: Number.NaN }] };
    expect(() => canonicalSha256(given, new HexMemo())).toThrow(
      new TypeError('canonicalJson: non-finite number at $.b[1].c'),
    );
    expect(() => canonicalJson(given)).toThrow(new TypeError('canonicalJson: non-finite number at $.b[1].c'));
  });
});
