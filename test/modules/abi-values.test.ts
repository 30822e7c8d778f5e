import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, call } from '../support/http.ts';
import { type ModuleSubmission, moduleSubmission } from '../support/modules.ts';
import { startServer, type TestServer } from '../support/server.ts';

// module-descriptor.v0.1.schema.json AbiValue: "The server checks that the value fits the declared type and bounds."
// Each row one edit of the spec example, on each side of its boundary, submitted over real HTTP.

let s: TestServer;
let key: string;
let seq = 0;
beforeAll(async () => {
  s = await startServer();
  key = s.key({ scopes: ['modules:submit', 'modules:read'] });
});
afterAll(() => s.close());

const moduleRows = () => {
  const tables = s.db
    .prepare("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'module%'")
    .all() as Array<{ name: string }>;
  return tables.reduce(
    (n, t) => n + (s.db.prepare(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n,
    0,
  );
};
const submit = (r: ModuleSubmission) =>
  call(`${s.url}/v1/modules/submissions`, {
    method: 'POST',
    headers: auth(key, { 'Idempotency-Key': `abi-values-test-${String(++seq).padStart(4, '0')}` }),
    body: JSON.stringify(r),
  });

type Field = { name: string; type: string; minimum?: string; maximum?: string; binding: Record<string, unknown> };
/** The example with its field `name` edited (the example: primary address fixed, primaryShareBps uint16 0..10000). */
const withField =
  (name: string, edit: (f: Field) => void) =>
  (r: ModuleSubmission): void => {
    const field = (r.descriptor.configuration.fields as Field[]).find((f) => f.name === name);
    if (!field) throw new Error(`the example has no field ${name}`);
    edit(field);
  };
/** A new last field of `type` with an input default. */
const extraField =
  (type: string, value: unknown) =>
  (r: ModuleSubmission): void => {
    (r.descriptor.configuration.fields as Field[]).push({
      name: 'extra',
      type,
      unit: 'none',
      binding: { mode: 'input', default: value },
    } as Field);
  };
const share = (edit: (f: Field) => void) => withField('primaryShareBps', edit);
const literal = (value: unknown) => (r: ModuleSubmission) => {
  (r.descriptor.constraints as Array<{ right: { value?: unknown } }>)[0] = {
    ...(r.descriptor.constraints as object[])[0],
    right: { value },
  } as never;
};

type Row = [name: string, edit: (r: ModuleSubmission) => void, refusal: RegExp | null];
const rows: Row[] = [
  ['a default at the maximum (10000)', share((f) => (f.binding.default = '10000')), null],
  ['a default above the maximum (10001)', share((f) => (f.binding.default = '10001')), /above maximum 10000/],
  ['a default at the minimum (0)', share((f) => (f.binding.default = '0')), null],
  ['a default below the minimum (-1)', share((f) => (f.binding.default = '-1')), /is outside uint16|is below minimum/],
  [
    'without bounds, the largest uint16 (65535)',
    share((f) => {
      delete f.minimum;
      delete f.maximum;
      f.binding.default = '65535';
    }),
    null,
  ],
  [
    'without bounds, one above uint16 (65536)',
    share((f) => {
      delete f.minimum;
      delete f.maximum;
      f.binding.default = '65536';
    }),
    /65536 is outside uint16 \(0 to 65535\)/,
  ],
  ['a maximum at the top of uint16', share((f) => (f.maximum = '65535')), null],
  ['a maximum above uint16', share((f) => (f.maximum = '65536')), /maximum 65536 is outside uint16/],
  ['a minimum above the maximum', share((f) => (f.minimum = '10001')), /minimum 10001 is above maximum 10000/],
  ['bounds on an address', withField('primary', (f) => (f.minimum = '0')), /minimum is set on the non-integer type/],
  ['a hex default for a uint16', share((f) => (f.binding.default = '0x10')), /"0x10" is not a decimal uint16/],
  ['a fixed address of 20 bytes', withField('primary', (f) => (f.binding.value = `0x${'12'.repeat(20)}`)), null],
  [
    'a fixed address of 19 bytes',
    withField('primary', (f) => (f.binding.value = `0x${'12'.repeat(19)}`)),
    /fixed value .* is not an address/,
  ],
  ['an int8 default of -128', extraField('int8', '-128'), null],
  ['an int8 default of -129', extraField('int8', '-129'), /-129 is outside int8 \(-128 to 127\)/],
  ['an int8 default of 127', extraField('int8', '127'), null],
  ['an int8 default of 128', extraField('int8', '128'), /128 is outside int8/],
  ['a bool default true', extraField('bool', true), null],
  ['a bool default "1"', extraField('bool', '1'), /"1" is not a bool/],
  ['a bytes4 default of 4 bytes', extraField('bytes4', '0x12345678'), null],
  ['a bytes4 default of 3 bytes', extraField('bytes4', '0x123456'), /is not a bytes4/],
  ['a constraint literal of the field type (65535)', literal('65535'), null],
  ['a constraint literal beyond the field type (65536)', literal('65536'), /literal that is not its type/],
  ['a constraint literal of another kind (bool)', literal(true), /literal that is not its type/],
];

describe('configuration values fit their ABI type and bounds (module-descriptor.v0.1 AbiValue)', () => {
  it.each(rows)('%s', async (_name, edit, refusal) => {
    const request = moduleSubmission();
    edit(request);
    const before = moduleRows();
    const r = await submit(request);
    if (refusal) {
      expect(r.status, r.text).toBe(400);
      expect(r.json.error.code).toBe('INVALID_REQUEST');
      expect(r.json.error.message).toMatch(refusal);
      expect(moduleRows()).toBe(before);
    } else {
      expect(r.status, r.text).toBe(201);
    }
  });
});
