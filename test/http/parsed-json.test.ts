import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsedJsonIssues, strictJsonIssues } from '../../src/http/strict-json.ts';

// src/http/strict-json.ts: the check after JSON.parse (parsedJsonIssues) answers what the scanner (strictJsonIssues)
// answers, the same issues at the same locations with the same messages, for any bytes JSON.parse reads.
const pieces = [
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  ' ',
  '\n',
  '"',
  '\\',
  '"a"',
  '"b"',
  '"\\u0061"',
  '"\\ud800"',
  '"\\udc00"',
  '"\\ud83d\\ude00"',
  '"\\uD800\\u0041"',
  '"~/"',
  '"k~1"',
  '0',
  '-1.5e3',
  '01',
  '1.',
  'true',
  'tru',
  'null',
  'false',
  '\t',
  '\u0001',
  '"\u00e9"',
  '"\u{1F600}"',
  '\\u00',
  '\\x',
  '1e+',
  '-',
  '"a\\nb"',
];

const near = fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((parts) => Buffer.from(parts.join('')));
const valid = fc.json({ maxDepth: 4 }).map((text) => Buffer.from(text));
/** A JSON text with one member name of an object repeated, written escaped or not. */
const repeated = fc
  .tuple(
    fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 20 }),
    fc.boolean(),
    fc.nat(),
  )
  .map(([object, escaped, pick]) => {
    const names = Object.keys(object);
    const name = names[pick % names.length] as string;
    const written = escaped
      ? `"${[...name].map((ch) => `\\u${(ch.codePointAt(0) as number).toString(16).padStart(4, '0')}`).join('')}"`
      : JSON.stringify(name);
    return Buffer.from(`{"outer":[${JSON.stringify(object).slice(0, -1)}${names.length > 0 ? ',' : ''}${written}:1}]}`);
  });
const bytes = fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b));

describe('parsedJsonIssues against the scanner', () => {
  it.each([
    ['near-JSON pieces', near],
    ['JSON texts', valid],
    ['objects with a repeated name', repeated],
    ['random bytes', bytes],
  ] as const)('answers as the scanner for %s', (_name, arbitrary) => {
    fc.assert(
      fc.property(arbitrary, (given) => {
        const want = strictJsonIssues(given);
        // Bytes JSON.parse reads (as the body parser decodes them) are checked after it, with the same answer.
        let parsed: unknown;
        try {
          parsed = JSON.parse(new TextDecoder().decode(given));
        } catch {
          return;
        }
        expect(parsedJsonIssues(given, parsed)).toEqual(want);
      }),
      { numRuns: 2000 },
    );
  });
});
