import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Digest } from '../../src/core/canonical-json.ts';

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
