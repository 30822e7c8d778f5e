/*
 * Strict bytes at the door (spec/openapi/components/responses.yaml, 400 MALFORMED_JSON): invalid UTF-8, a leading
 * byte-order mark, a repeated member name and a lone surrogate escape are refused on the raw bytes, before
 * authentication and before anything is stored, on every operation with a JSON request body; the same document
 * written strictly (a surrogate pair, an escaped name that repeats nothing) is accepted. Real HTTP, real SQLite.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { strictJsonIssues } from '../../src/http/strict-json.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { example, exampleBytes, startServer, type TestServer, v4Example } from '../support/server.ts';

let s: TestServer;
let key: string;
let idem = 0;
const key16 = () => `strict-bytes-key-${String(++idem).padStart(4, '0')}`;
const tables = [
  'launches',
  'idempotency_records',
  'admissions',
  'v3_launches',
  'multi_role_launches',
  'module_submissions',
  'api_keys',
];
const stored = () =>
  Object.fromEntries(tables.map((t) => [t, (s.db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]));

/** Posts exact bytes to a path of the test server. */
const send = (path: string, bytes: Buffer, headers: Record<string, string>): Promise<Reply> =>
  call(`${s.url}${path}`, { method: 'POST', headers, body: bytes });
const v4Create = '/v4/chains/4663/custom-launches';
const noAuth = { 'Content-Type': 'application/json', 'Idempotency-Key': 'strict-bytes-no-auth-1' };

/** The V4 example with an emoji in its description, hashes bound, serialized with the emoji as raw UTF-8. */
function exampleWithEmoji(): string {
  const request = example<CustomLaunchCreateRequestV4>(v4Example);
  request.projectMetadata.description += ' \u{1F600}';
  return JSON.stringify(bindRequestHashes(request));
}
const emoji = '\u{1F600}';
const pairEscape = '\\ud83d\\ude00';

beforeAll(async () => {
  s = await startServer();
  key = s.key();
});
afterAll(() => s.close());

describe('strictJsonIssues: one rule per row, both sides', () => {
  const rows: Array<[string, string | Buffer, Array<{ location: string; message: RegExp }>]> = [
    ['an object', '{"a":1,"b":[true,false,null,-1.5e3,"x"]}', []],
    ['a bare value', ' 0 ', []],
    ['no bytes (the parser reads no body)', '', []],
    [
      'a byte-order mark before the value',
      Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
      [{ location: '/body', message: /byte-order mark/ }],
    ],
    ['the same bytes without it', Buffer.from([0x7b, 0x7d]), []],
    [
      'a lone continuation byte',
      Buffer.from('{"a":"\x80"}', 'latin1'),
      [{ location: '/body', message: /not valid UTF-8/ }],
    ],
    ['an overlong encoding of "/"', Buffer.from([0x22, 0xc0, 0xaf, 0x22]), [{ location: '/body', message: /UTF-8/ }]],
    [
      'a UTF-8 encoded surrogate (CESU)',
      Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]),
      [{ location: '/body', message: /UTF-8/ }],
    ],
    ['a four-byte character', Buffer.from(`"${emoji}"`), []],
    ['a repeated name', '{"a":1,"a":1}', [{ location: '/body', message: /duplicate member name "a"/ }]],
    [
      'a repeated name, one escaped',
      '{"a":1,"\\u0061":2}',
      [{ location: '/body', message: /duplicate member name "a"/ }],
    ],
    [
      'a repeated name deep in an array',
      '{"x":[{},{"k~/":1,"k~/":2}]}',
      [{ location: '/body/x/1', message: /"k~\/"/ }],
    ],
    ['names that differ by case', '{"a":1,"A":1,"\\u0062":2}', []],
    ['the same name in two objects', '{"a":{"a":1},"b":{"a":2}}', []],
    [
      'a lone high surrogate',
      '{"n":["\\ud800"]}',
      [{ location: '/body/n/0', message: /lone surrogate escape \\ud800/ }],
    ],
    ['a high surrogate before another escape', '"\\uD800\\u0041"', [{ location: '/body', message: /\\ud800/ }]],
    ['a lone low surrogate in a member name', '{"o":{"\\udc00":1}}', [{ location: '/body/o', message: /\\udc00/ }]],
    ['a surrogate pair', `{"e":"${pairEscape}","${pairEscape}":1}`, []],
    ['a truncated body', '{"a":', [{ location: '/body', message: /not valid JSON/ }]],
    ['a trailing comma', '[1,]', [{ location: '/body', message: /not valid JSON/ }]],
    ['a raw control character in a string', '"a\tb"', [{ location: '/body', message: /control character/ }]],
    ['text after the value', '{} {}', [{ location: '/body', message: /after the JSON value/ }]],
  ];
  it.each(rows)('%s', (_name, given, want) => {
    const issues = strictJsonIssues(typeof given === 'string' ? Buffer.from(given) : given);
    expect(issues).toHaveLength(want.length);
    want.forEach((w, i) => {
      expect(issues[i]?.location).toBe(w.location);
      expect(issues[i]?.message).toMatch(w.message);
    });
  });

  it('reads a body nested 100,000 deep without overflowing the stack', () => {
    expect(strictJsonIssues(Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`))).toEqual([]);
  });
});

describe('the create refuses non-strict bytes before authentication, storing nothing', () => {
  const valid = () => exampleBytes(v4Example);
  const rows: Array<[string, () => Buffer, string]> = [
    [
      'invalid UTF-8',
      () => Buffer.concat([Buffer.from(valid().replace(/}\s*$/, ',"x":"')), Buffer.from([0xff, 0x22, 0x7d])]),
      '/body',
    ],
    ['a byte-order mark', () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(valid())]), '/body'],
    ['a repeated top-level name', () => Buffer.from(valid().replace('{', '{"schemaVersion":"x",')), '/body'],
    [
      'a repeated nested name, escaped',
      () => Buffer.from(valid().replace(/"projectMetadata":\s*\{/, '"projectMetadata":{"n\\u0061me":"x",')),
      '/body/projectMetadata',
    ],
    [
      'a lone surrogate',
      () => Buffer.from(exampleWithEmoji().replace(emoji, '\\ud83d')),
      '/body/projectMetadata/description',
    ],
  ];
  it.each(rows)('%s: 400 MALFORMED_JSON unauthenticated and authenticated', async (_name, bytes, location) => {
    const before = stored();
    for (const headers of [noAuth, auth(key, { 'Idempotency-Key': key16() })]) {
      const r = await send(v4Create, bytes(), headers);
      expect(r.status, r.text).toBe(400);
      expect(r.json.error).toMatchObject({ code: 'MALFORMED_JSON', retryable: false });
      expect(r.json.error.requestId).toBe(r.headers.get('x-request-id'));
      expect(r.json.error.issues.map((i: { location: string }) => i.location)).toContain(location);
    }
    expect(stored()).toEqual(before);
  });

  it('the same document written strictly is accepted: a surrogate pair and an escaped name that repeats nothing', async () => {
    const bytes = exampleWithEmoji().replace(emoji, pairEscape).replace('"schemaVersion"', '"\\u0073chemaVersion"');
    expect(bytes).toContain(pairEscape);
    const r = await send(v4Create, Buffer.from(bytes), auth(key, { 'Idempotency-Key': key16() }));
    expect(r.status, r.text).toBe(202);
    // The hash of the exact bytes is what an exact replay is matched on.
    const again = await send(
      v4Create,
      Buffer.from(bytes),
      auth(key, { 'Idempotency-Key': `strict-bytes-key-${String(idem).padStart(4, '0')}` }),
    );
    expect(again.status, again.text).toBe(200);
  });
});

describe('every operation with a JSON request body', () => {
  const spec = JSON.parse(
    readFileSync(new URL('../../generated/openapi/service.dereferenced.json', import.meta.url), 'utf8'),
  ) as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>> };
  const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => op.requestBody?.content['application/json'] !== undefined)
      .map(([method, op]) => [`${method.toUpperCase()} ${path}`, method, path, op] as const),
  );

  it('covers the JSON bodies of the spec', () => {
    expect(operations.length).toBeGreaterThanOrEqual(11);
  });

  it.each(operations.map(([label, method, path]) => [label, method, path] as const))(
    '%s: a repeated name without a key is 400 MALFORMED_JSON, not 401',
    async (_label, method, path) => {
      const before = stored();
      const url = path
        .replace('{chainId}', path.startsWith('/v3') ? '1' : '4663')
        .replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      const r = await call(`${s.url}${url}`, {
        method: method.toUpperCase(),
        headers: noAuth,
        body: '{"a":{"b":1,"b":2}}',
      });
      expect(r.status, r.text).toBe(400);
      expect(r.json.error.code).toBe('MALFORMED_JSON');
      expect(r.json.error.issues[0]?.location).toBe('/body/a');
      expect(stored()).toEqual(before);
    },
  );
});
