import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/auth/keys.ts';
import { canonicalJson, sha256Digest } from '../../src/core/canonical-json.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import { auth, call, type Reply } from '../support/http.ts';
import {
  filesOf,
  freshFamilySalt,
  type ModuleSubmission,
  moduleAuthor,
  moduleSubmission,
  setFiles,
} from '../support/modules.ts';
import { startServer, type TestServer } from '../support/server.ts';

/**
 * Module intake (spec/openapi/paths/modules-submissions.yaml, modules-context.yaml, modules-capabilities.yaml;
 * module-submission-request.v0.1 and module-intake-receipt.v0.1 schemas): submit, receipt, list, context and
 * capabilities over real HTTP and SQLite.
 */
const MiB = 1024 * 1024;
const otherWallet = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'; // anvil account 1
const listWallet = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'; // anvil account 2: only the list test submits
const emptyWallet = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'; // anvil account 3: never submits
const fixedPrimary = '0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2'; // the example's fixed `primary` value
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const modulesScopes = ['modules:submit', 'modules:read'];
const tinyFiles = [
  { path: 'src/FeeSplitter.sol', content: 'contract FeeSplitter {}\n' },
  { path: 'README.md', content: '# fee-splitter\n' },
];

let s: TestServer;
let key: string;
let seq = 0;
const base = () => `${s.url}/v1/modules`;
const idem = () => `modules-intake-${Date.now()}-${++seq}`;
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const bodyOf = (r: ModuleSubmission | string) => (typeof r === 'string' ? r : JSON.stringify(r));
const submit = (r: ModuleSubmission | string, k = key, headers: Record<string, string> = {}) =>
  call(`${base()}/submissions`, {
    method: 'POST',
    headers: auth(k, { 'Idempotency-Key': idem(), ...headers }),
    body: bodyOf(r),
  });
const receipt = (id: string, k = key) => call(`${base()}/submissions/${id}`, { headers: auth(k) });
const list = (query = '', k = key) => call(`${base()}/submissions${query}`, { headers: auth(k) });
const context = (k = key) => call(`${base()}/context`, { headers: auth(k) });

/** Rows of every module table and of idempotency_records: a refusal must leave all of them unchanged. */
function counts(server = s): Record<string, number> {
  const tables = server.db
    .prepare("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'module%' ORDER BY name")
    .all() as Array<{ name: string }>;
  const out: Record<string, number> = {};
  for (const t of [...tables.map((r) => r.name), 'idempotency_records']) {
    out[t] = (server.db.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n;
  }
  return out;
}
const moduleRows = () =>
  Object.entries(counts())
    .filter(([t]) => t.startsWith('module'))
    .reduce((n, [, c]) => n + c, 0);

function expectApiError(r: Reply, status: number, code: string, retryable = false, label = ''): void {
  expect(r.status, `${label} ${r.text}`).toBe(status);
  expect(r.json?.error?.code, `${label} ${r.text}`).toBe(code);
  expect(r.json.error.requestId).toBe(r.headers.get('x-request-id'));
  expect(r.json.error.retryable).toBe(retryable);
}

/** Sends, expects the error, and proves that nothing was persisted (design: every refusal persists nothing). */
async function expectRefused(
  send: () => Promise<Reply>,
  status: number,
  code: string,
  { retryable = false, label = '', server = s } = {},
): Promise<Reply> {
  const before = counts(server);
  const r = await send();
  expectApiError(r, status, code, retryable, label);
  expect(counts(server), label).toEqual(before);
  return r;
}

/** The spec example as the first version of a new family: fresh familySalt, no supersession. */
function pkg(author = moduleAuthor): ModuleSubmission {
  const r = moduleSubmission(author);
  delete r.supersedesSubmissionId;
  r.descriptor.familySalt = freshFamilySalt();
  return r;
}

/** A first version whose files are a tiny component source and documentation, plus `extra`. */
function tiny(author = moduleAuthor, extra: Array<{ path: string; content: string | Buffer }> = []) {
  return setFiles(pkg(author), [...tinyFiles, ...extra]);
}

/** Adds one file to both the inventory and the submitted files. */
function addFile(r: ModuleSubmission, path: string, content: string | Buffer = 'x\n'): ModuleSubmission {
  return setFiles(r, [...[...filesOf(r)].map(([p, c]) => ({ path: p, content: c })), { path, content }]);
}

const decodedBytes = (r: ModuleSubmission) => r.files.reduce((n, f) => n + Buffer.from(f.bytes, 'base64').length, 0);

/** Checks a receipt against the schema and against the request it answers (design rules 11 and 12). */
function expectReceipt(body: any, req: ModuleSubmission, supersedes: string | null = null): void {
  expect(schemaProblems('module-intake-receipt.v0.1.schema.json', body)).toEqual([]);
  const { author, familySalt, name, version, rewardWallet } = req.descriptor;
  const familyId = `0x${sha256(canonicalJson({ author: author.toLowerCase(), familySalt }))}`;
  expect(body).toMatchObject({
    contract: 'platform.modules.api.v0.1',
    status: 'draft_received',
    reviewStatus: 'unreviewed',
    approved: false,
    available: false,
    familyId,
    packageId: `0x${sha256(canonicalJson({ familyId, name }))}`,
    requestDigest: sha256Digest(canonicalJson(req)),
    byteCount: decodedBytes(req),
    name,
    version,
    supersedesSubmissionId: supersedes,
  });
  expect(body.submissionId).toMatch(uuid);
  expect(body.author.toLowerCase()).toBe(author.toLowerCase());
  expect(body.rewardWallet.toLowerCase()).toBe(rewardWallet.toLowerCase());
}

/** Submits and expects 201 with a matching receipt. */
async function accepted(req: ModuleSubmission, k = key, supersedes: string | null = null): Promise<any> {
  const r = await submit(req, k);
  expect(r.status, r.text).toBe(201);
  expectReceipt(r.json, req, supersedes);
  return r.json;
}

beforeAll(async () => {
  s = await startServer();
  key = s.key({ scopes: modulesScopes });
});
afterAll(() => s.close());

describe('authentication on /v1/modules/* (design: Auth)', () => {
  const everyRoute = (headers: Record<string, string>, id: string): Array<[string, () => Promise<Reply>]> => [
    [
      'submit',
      () =>
        call(`${base()}/submissions`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json', 'Idempotency-Key': idem() },
          body: JSON.stringify(tiny()),
        }),
    ],
    ['receipt', () => call(`${base()}/submissions/${id}`, { headers })],
    ['list', () => call(`${base()}/submissions`, { headers })],
    ['context', () => call(`${base()}/context`, { headers })],
  ];

  it('no key, an unknown key or a revoked key: 401 AUTHENTICATION_REQUIRED on every route, nothing persisted', async () => {
    const { submissionId } = await accepted(tiny());
    const revoked = s.key({ scopes: modulesScopes });
    s.db
      .prepare('UPDATE api_keys SET revoked_at = ? WHERE key_hash = ?')
      .run(new Date().toISOString(), hashKey(revoked));
    const credentials: Array<Record<string, string>> = [
      {},
      { Authorization: `Bearer clk_${'A'.repeat(43)}` },
      { Authorization: 'Bearer not-a-key' },
      { Authorization: `Bearer ${revoked}` },
    ];
    for (const headers of credentials) {
      for (const [name, send] of everyRoute(headers, submissionId)) {
        await expectRefused(send, 401, 'AUTHENTICATION_REQUIRED', { label: `${name} ${JSON.stringify(headers)}` });
      }
    }
  });

  it('a key with only custom-launch scopes: 401 API_SCOPE_REQUIRED on submit, receipt, list and context', async () => {
    const { submissionId } = await accepted(tiny());
    const launchKey = s.key({ scopes: ['custom-launch:create', 'custom-launch:read'] });
    for (const [name, send] of everyRoute({ Authorization: `Bearer ${launchKey}` }, submissionId)) {
      await expectRefused(send, 401, 'API_SCOPE_REQUIRED', { label: name });
    }
  });

  it('modules:read cannot submit, modules:submit cannot read (401 API_SCOPE_REQUIRED)', async () => {
    const { submissionId } = await accepted(tiny());
    const reader = s.key({ scopes: ['modules:read'] });
    const submitter = s.key({ scopes: ['modules:submit'] });
    await expectRefused(() => submit(tiny(), reader), 401, 'API_SCOPE_REQUIRED');
    await expectRefused(() => receipt(submissionId, submitter), 401, 'API_SCOPE_REQUIRED');
    await expectRefused(() => list('', submitter), 401, 'API_SCOPE_REQUIRED');
    await expectRefused(() => context(submitter), 401, 'API_SCOPE_REQUIRED');
    expect((await receipt(submissionId, reader)).status).toBe(200);
    expect((await submit(tiny(), submitter)).status).toBe(201);
  });
});

describe('submitModule: create, replay, Idempotency-Key (design rules 10, 12)', () => {
  it('stores a new draft and answers 201 with its receipt', async () => {
    const before = moduleRows();
    const t0 = Date.now();
    const req = pkg();
    const body = await accepted(req);
    expect(body.byteCount).toBe(req.files.reduce((n, f) => n + Buffer.from(f.bytes, 'base64').length, 0));
    expect(Date.parse(body.createdAt)).toBeGreaterThanOrEqual(t0 - 1);
    expect(Date.parse(body.createdAt)).toBeLessThanOrEqual(Date.now());
    expect(moduleRows()).toBeGreaterThan(before);
  });

  it('an exact replay answers 200 with the byte-identical body and persists nothing', async () => {
    const k = idem();
    const bytes = JSON.stringify(tiny());
    const first = await submit(bytes, key, { 'Idempotency-Key': k });
    expect(first.status, first.text).toBe(201);
    const before = counts();
    const replay = await submit(bytes, key, { 'Idempotency-Key': k });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.text).toBe(first.text);
    expect(counts()).toEqual(before);
  });

  it('the same Idempotency-Key with other bytes: 409 MODULE_IDEMPOTENCY_CONFLICT, nothing persisted', async () => {
    const k = idem();
    const req = tiny();
    expect((await submit(req, key, { 'Idempotency-Key': k })).status).toBe(201);
    // Whitespace is a byte change too: the key binds the exact bytes.
    const send = (body: string) => () => submit(body, key, { 'Idempotency-Key': k });
    await expectRefused(send(JSON.stringify(req, null, 1)), 409, 'MODULE_IDEMPOTENCY_CONFLICT');
    await expectRefused(send(JSON.stringify(tiny())), 409, 'MODULE_IDEMPOTENCY_CONFLICT');
  });

  it('the same Idempotency-Key with other bytes that also break a server rule: still the conflict, judged first', async () => {
    const k = idem();
    const req = tiny();
    expect((await submit(req, key, { 'Idempotency-Key': k })).status).toBe(201);
    const broken = structuredClone(req);
    // Bytes that do not hash to the declared sha256: a rule of the server, not of the schema.
    (broken.files[0] as { bytes: string }).bytes = Buffer.from('# another README\n').toString('base64');
    const before = counts();
    await expectRefused(
      () => submit(JSON.stringify(broken), key, { 'Idempotency-Key': k }),
      409,
      'MODULE_IDEMPOTENCY_CONFLICT',
    );
    expect(counts()).toEqual(before);
    // Without the key's history the same bytes are refused by their rule.
    await expectRefused(
      () => submit(JSON.stringify(broken), key, { 'Idempotency-Key': idem() }),
      400,
      'MODULE_FILE_HASH',
    );
  });

  it('Idempotency-Key of 16 and 128 characters is accepted; 15, 129, another character or none: 400', async () => {
    // Allowed characters only, cut to length; the time keeps the keys unique.
    const ofLength = (n: number) => `${Date.now()}-Az09._:`.repeat(8).slice(0, n);
    for (const n of [16, 128]) {
      const r = await submit(tiny(), key, { 'Idempotency-Key': ofLength(n) });
      expect(r.status, `${n}: ${r.text}`).toBe(201);
    }
    for (const k of [ofLength(15), ofLength(129), 'has/slash-inside-it', 'has space inside it']) {
      await expectRefused(() => submit(tiny(), key, { 'Idempotency-Key': k }), 400, 'INVALID_REQUEST', { label: k });
    }
    const none = () =>
      call(`${base()}/submissions`, { method: 'POST', headers: auth(key), body: JSON.stringify(tiny()) });
    await expectRefused(none, 400, 'INVALID_REQUEST');
  });
});

/** A rule case: the change to a fresh copy of the example, and a text the error must name. */
type Rule = [name: string, mutate: (r: ModuleSubmission) => unknown, names?: string];
/** Sets (or, for undefined, deletes) the member at a JSON pointer of the request. */
const put = (pointer: string, value: unknown) => (r: ModuleSubmission) => {
  const keys = pointer.split('/').slice(1);
  const last = keys.pop() as string;
  const parent = keys.reduce((o: any, k) => o[k], r);
  if (value === undefined) delete parent[last];
  else parent[last] = value;
};
const otherHash = sha256('other content');
const withPath = (path: string) => (r: ModuleSubmission) => addFile(r, path);
const longPath = (n: number) => `src/${'a'.repeat(n - 8)}.sol`;
/** Rewrites the base64 of one file (example order: 0 src/FeeSplitter.sol, 1 the Ownable dependency, 2 README.md). */
const base64 = (i: number, edit: (b64: string) => string) => (r: ModuleSubmission) => {
  const f = r.files[i];
  if (f) f.bytes = edit(f.bytes);
};
/** A constraint pinning the example's fixed `primary` with ==. */
const pinPrimary = (value: string) => (r: ModuleSubmission) =>
  r.descriptor.constraints.push({ left: 'primary', operator: '==', right: { value } });

const refusals: Array<[code: string, rules: Rule[]]> = [
  [
    'OPEN_ADDRESS',
    [
      ['the zero reward wallet', put('/descriptor/rewardWallet', `0x${'0'.repeat(40)}`)],
      ['a malformed reward wallet', put('/descriptor/rewardWallet', '0x1234')],
    ],
  ],
  [
    'OPEN_SOURCE_HASH',
    [
      ['files[i].sha256 differs from the inventory sha256', put('/descriptor/source/files/2/sha256', otherHash)],
      ['an uppercase inventory sha256', put('/descriptor/source/files/2/sha256', otherHash.toUpperCase())],
    ],
  ],
  [
    'MODULE_FILE_HASH',
    [
      ['bytes of another content', base64(2, () => Buffer.from('# another README\n').toString('base64'))],
      [
        'bytes of another content, same length',
        base64(2, (b) => `${b.slice(0, 8)}${b[8] === 'A' ? 'B' : 'A'}${b.slice(9)}`),
      ],
      ['a decoded length other than the inventory size', put('/descriptor/source/files/2/size', 222)],
      ['base64 without its padding', base64(2, (b) => b.replace(/=+$/, ''))],
      ['base64 with nonzero padding bits', base64(1, (b) => `${b.slice(0, -3)}B==`)],
      ['base64 with a line break', base64(2, (b) => `${b.slice(0, 76)}\n${b.slice(76)}`)],
      ['an uppercase files[i].sha256', (r) => put('/files/2/sha256', r.files[2]?.sha256.toUpperCase())(r)],
    ],
  ],
  [
    'INVALID_REQUEST',
    [
      ['a file of the inventory is missing', (r) => r.files.splice(2, 1), 'README.md'],
      [
        'an extra file',
        (r) => r.files.push({ path: 'extra.txt', sha256: sha256('x'), encoding: 'base64', bytes: 'eA==' }),
        'extra.txt',
      ],
      [
        'a duplicate file',
        (r) => r.files.push(structuredClone(r.files[2] as ModuleSubmission['files'][number])),
        'README.md',
      ],
      [
        'a duplicate inventory path',
        (r) => r.descriptor.source.files.push({ path: 'README.md', sha256: otherHash, size: 1 }),
        'README.md',
      ],
      ['documentation not in the inventory', put('/descriptor/documentation', 'docs/README.md')],
      ['a component sourcePath not in the inventory', put('/descriptor/components/0/sourcePath', 'src/X.sol')],
      ['a duplicate component id', (r) => r.descriptor.components.push(structuredClone(r.descriptor.components[0]))],
      [
        'a duplicate configuration field name',
        (r) => r.descriptor.configuration.fields.push(structuredClone(r.descriptor.configuration.fields[1])),
      ],
      ['a constraint on a field the configuration lacks', put('/descriptor/constraints/0/left', 'tertiary')],
      ['a management action of an unknown component', put('/descriptor/management/actions/0/component', 'nobody')],
      ['an unknown request format', put('/format', 'platform.modules.submission.v0.2')],
      ['an unknown descriptor format', put('/descriptor/format', 'platform.classic.source-package.v0.2')],
      ['an unknown top-level descriptor field', put('/descriptor/category', 'fees')],
      ['a version that is not semantic (1.1)', put('/descriptor/version', '1.1')],
      ['a version with a leading zero', put('/descriptor/version', '01.1.0')],
      ['an uppercase familySalt', put('/descriptor/familySalt', `0x${'AB'.repeat(32)}`)],
      ['a runtime without <org>.', put('/descriptor/components/0/runtime', 'module-engine-solidity@1')],
      ['a runtime without @<n>', put('/descriptor/components/0/runtime', 'platform.module-engine-solidity')],
      ['a runtime @0', put('/descriptor/components/0/runtime', 'platform.module-engine-solidity@0')],
      ['no components', put('/descriptor/components', [])],
      ['a repository without a revision', put('/descriptor/source/revision', undefined)],
      ['a revision without a repository', put('/descriptor/source/repository', undefined)],
      ['a path of 241 characters', withPath(longPath(241))],
      ['a .. segment', withPath('src/../Evil.sol')],
      ['a . segment', withPath('src/./Evil.sol')],
      ['a backslash', withPath('src\\Evil.sol')],
      ['an empty segment', withPath('src//Evil.sol')],
      ['a leading slash', withPath('/src/Evil.sol')],
      ['a control character', withPath('src/Ev\u0001il.sol')],
      ['a space', withPath('src/Ev il.sol')],
      ['a character outside the set (#)', withPath('src/Ev#il.sol')],
      ['a non-ASCII character', withPath('src/\u00c9vil.sol')],
    ],
  ],
  ['OPEN_CONFIG_FIXED_OVERRIDE', [['== another literal on the fixed field', pinPrimary(`0x${'0'.repeat(39)}1`)]]],
  [
    'MODULE_BUILD_SOURCE_ALIAS_COLLISION',
    [
      [
        '@openzeppelin/contracts/ beside its dependencies/scoped/ path',
        withPath('@openzeppelin/contracts/access/Ownable.sol'),
      ],
      [
        '@solady/src/ beside its dependencies/scoped/ path',
        (r) =>
          addFile(addFile(r, 'dependencies/scoped/solady/src/utils/LibString.sol'), '@solady/src/utils/LibString.sol'),
      ],
    ],
  ],
];

const allowed: Rule[] = [
  ['a path of exactly 240 characters', withPath(longPath(240))],
  ['a path with every allowed punctuation', withPath('lib/a_b.c@d+e(f)[g]-h/x.sol')],
  ['an alias import path without a counterpart', withPath('@openzeppelin/contracts/access/AccessControl.sol')],
  ['== repeating the fixed value exactly', pinPrimary(fixedPrimary)],
  ['another nonzero reward wallet', put('/descriptor/rewardWallet', otherWallet)],
  [
    'neither repository nor revision',
    (r) =>
      [put('/descriptor/source/repository', undefined), put('/descriptor/source/revision', undefined)].map((f) => f(r)),
  ],
];

describe('submit rules (design rules 2-9)', () => {
  it('descriptor.author another valid address: 403 MODULE_AUTHOR_MISMATCH; the key wallet in lowercase: 201', async () => {
    const stranger = pkg();
    stranger.descriptor.author = otherWallet;
    await expectRefused(() => submit(stranger), 403, 'MODULE_AUTHOR_MISMATCH');
    await accepted(pkg(moduleAuthor.toLowerCase()));
  });

  for (const [code, rules] of refusals) {
    it.each(rules)(`%s: 400 ${code}, nothing persisted`, async (_name, mutate, names) => {
      const req = pkg();
      mutate(req);
      const r = await expectRefused(() => submit(req), 400, code);
      if (names) expect(r.text).toContain(names);
    });
  }

  it.each(allowed)('%s: 201', async (_name, mutate) => {
    const req = pkg();
    mutate(req);
    await accepted(req);
  });
});

describe('limits, both sides (design rule 6, reference Limits)', () => {
  const withFiles = (n: number) =>
    tiny(
      moduleAuthor,
      Array.from({ length: n - tinyFiles.length }, (_, i) => ({ path: `lib/f${i}.txt`, content: `${i}\n` })),
    );
  /** A package of exactly `total` decoded bytes: the tiny files plus four files of at most 4 MiB. */
  const sized = (total: number) => {
    const small = tinyFiles.reduce((n, f) => n + Buffer.byteLength(f.content), 0);
    const big = [0, 1, 2, 3].map((i) => ({
      path: `lib/part-${i}.bin`,
      content: Buffer.alloc(i < 3 ? 4 * MiB : total - small - 12 * MiB, 0x61 + i),
    }));
    for (const b of big) expect(b.content.length).toBeLessThanOrEqual(4 * MiB);
    return tiny(moduleAuthor, big);
  };
  /** The request bytes padded with whitespace inside the JSON object to exactly `size` bytes. */
  const padded = (r: ModuleSubmission, size: number) => {
    const json = JSON.stringify(r);
    const pad = size - Buffer.byteLength(json);
    expect(pad).toBeGreaterThan(0);
    return `{${' '.repeat(pad)}${json.slice(1)}`;
  };

  it('128 files are accepted; 129: 400 INVALID_REQUEST', async () => {
    const at = withFiles(128);
    expect(at.files).toHaveLength(128);
    await accepted(at);
    await expectRefused(() => submit(withFiles(129)), 400, 'INVALID_REQUEST');
  });

  it('a file of 4,194,304 bytes is accepted; 4,194,305: 400 INVALID_REQUEST', async () => {
    const at = tiny(moduleAuthor, [{ path: 'lib/big.bin', content: Buffer.alloc(4 * MiB, 0x62) }]);
    expect(at.descriptor.source.files[2]?.size).toBe(4 * MiB);
    await accepted(at);
    const over = tiny(moduleAuthor, [{ path: 'lib/big.bin', content: Buffer.alloc(4 * MiB + 1, 0x62) }]);
    await expectRefused(() => submit(over), 400, 'INVALID_REQUEST');
  });

  it('16,777,216 decoded bytes in all are accepted; one more: 413 PAYLOAD_TOO_LARGE', async () => {
    const body = await accepted(sized(16 * MiB));
    expect(body.byteCount).toBe(16 * MiB);
    const over = sized(16 * MiB + 1);
    expect(decodedBytes(over)).toBe(16 * MiB + 1);
    await expectRefused(() => submit(over), 413, 'PAYLOAD_TOO_LARGE');
  }, 120_000);

  it('a request of exactly 25,165,824 bytes is accepted; one byte more: 413 PAYLOAD_TOO_LARGE', async () => {
    const at = tiny();
    const r = await submit(padded(at, 24 * MiB));
    expect(r.status, r.text).toBe(201);
    expectReceipt(r.json, at);
    await expectRefused(() => submit(padded(tiny(), 24 * MiB + 1)), 413, 'PAYLOAD_TOO_LARGE');
  }, 120_000);
});

describe('package identity and revisions (design rule 11)', () => {
  /** A version of the same package with new hashes (the README names the version). */
  const version = (prev: ModuleSubmission, v: string, supersedes?: string) => {
    const r = structuredClone(prev);
    r.descriptor.version = v;
    delete r.supersedesSubmissionId;
    if (supersedes) r.supersedesSubmissionId = supersedes;
    const files = [...filesOf(prev)].map(([path, content]) => ({ path, content }));
    return setFiles(r, [...files.filter((f) => f.path !== 'README.md'), { path: 'README.md', content: `# ${v}\n` }]);
  };
  /** A new family with its first version 1.0.0 accepted. */
  const family = async (author = moduleAuthor, k = key) => {
    const req = version(tiny(author), '1.0.0');
    return { req, first: await accepted(req, k) };
  };

  it('the same package and version again (new Idempotency-Key, another key): 409 MODULE_VERSION_ALREADY_SUBMITTED', async () => {
    const { req } = await family();
    await expectRefused(() => submit(req), 409, 'MODULE_VERSION_ALREADY_SUBMITTED');
    await expectRefused(() => submit(req, s.key({ scopes: modulesScopes })), 409, 'MODULE_VERSION_ALREADY_SUBMITTED');
  });

  it('the same family without supersedesSubmissionId (new version, or new name and version): 409 MODULE_PACKAGE_CONFLICT', async () => {
    const { req } = await family();
    await expectRefused(() => submit(version(req, '1.1.0')), 409, 'MODULE_PACKAGE_CONFLICT');
    const renamed = version(req, '1.1.0');
    renamed.descriptor.name = 'fee-splitter-two';
    await expectRefused(() => submit(renamed), 409, 'MODULE_PACKAGE_CONFLICT');
  });

  it('another package of the family with a version the family has, no supersedesSubmissionId: 409 MODULE_PACKAGE_CONFLICT', async () => {
    // Design rule 11: VERSION_ALREADY_SUBMITTED needs "the same package with the same version"; another name is
    // another package (packageId covers the name), so only "any submission of the same family" applies.
    const { req } = await family();
    const renamed = structuredClone(req);
    renamed.descriptor.name = 'fee-splitter-two';
    await expectRefused(() => submit(renamed), 409, 'MODULE_PACKAGE_CONFLICT');
  });

  it('another author with the same familySalt, name and version is another family: 201', async () => {
    const { req, first } = await family();
    const theirs = structuredClone(req);
    theirs.descriptor.author = otherWallet;
    theirs.descriptor.rewardWallet = otherWallet;
    const body = await accepted(theirs, s.key({ wallet: otherWallet, scopes: modulesScopes }));
    expect(body.familyId).not.toBe(first.familyId);
  });

  it('a linked revision: 201 with supersedesSubmissionId; the first receipt stays byte-identical', async () => {
    const { req, first } = await family();
    const before = await receipt(first.submissionId);
    expect(before.status, before.text).toBe(200);
    const next = await accepted(version(req, '1.1.0', first.submissionId), key, first.submissionId);
    expect(next).toMatchObject({ familyId: first.familyId, packageId: first.packageId });
    expect(next.submissionId).not.toBe(first.submissionId);
    const after = await receipt(first.submissionId);
    expect(after.status).toBe(200);
    expect(after.text).toBe(before.text);
    // The chain continues from its newest link.
    await accepted(version(req, '1.2.0', next.submissionId), key, next.submissionId);
  });

  it('an invalid predecessor: 409 MODULE_REVISION_LINEAGE_INVALID, nothing persisted', async () => {
    const { req, first } = await family();
    const second = await accepted(version(req, '1.1.0', first.submissionId), key, first.submissionId);
    const theirs = await family(otherWallet, s.key({ wallet: otherWallet, scopes: modulesScopes }));
    const ownOtherFamily = await family();
    const renamed = version(req, '1.2.0', second.submissionId);
    renamed.descriptor.name = 'fee-splitter-two';
    const cases: Array<[string, ModuleSubmission]> = [
      ['already superseded', version(req, '1.2.0', first.submissionId)],
      ['unknown', version(req, '1.2.0', randomUUID())],
      ["another author's", version(req, '1.2.0', theirs.first.submissionId)],
      ['of another family', version(req, '1.2.0', ownOtherFamily.first.submissionId)],
      ['of another name', renamed],
    ];
    for (const [name, body] of cases) {
      await expectRefused(() => submit(body), 409, 'MODULE_REVISION_LINEAGE_INVALID', { label: name });
    }
  });

  it('a revision reusing a version the family has: 409 MODULE_VERSION_ALREADY_SUBMITTED', async () => {
    const { req, first } = await family();
    const second = await accepted(version(req, '1.1.0', first.submissionId), key, first.submissionId);
    for (const v of ['1.0.0', '1.1.0']) {
      const reuse = version(req, v, second.submissionId);
      await expectRefused(() => submit(reuse), 409, 'MODULE_VERSION_ALREADY_SUBMITTED', { label: v });
    }
  });
});

describe('receipts and the list (design: routes, Auth)', () => {
  it('GET a receipt: 200 equal to the create body; another wallet or a missing id: 404; a non-UUID id: 400', async () => {
    const created = await accepted(tiny());
    const r = await receipt(created.submissionId);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual(created);
    const stranger = s.key({ wallet: otherWallet, scopes: modulesScopes });
    await expectRefused(() => receipt(created.submissionId, stranger), 404, 'MODULE_SUBMISSION_NOT_FOUND');
    await expectRefused(() => receipt(randomUUID()), 404, 'MODULE_SUBMISSION_NOT_FOUND');
    await expectRefused(() => receipt('not-a-uuid'), 400, 'INVALID_REQUEST');
  });

  it('newest first, at most 20 per page, followed through nextCursor to null; only the caller wallet', async () => {
    const lister = s.key({ wallet: listWallet, scopes: modulesScopes });
    const created: any[] = [];
    for (let i = 0; i < 21; i++) created.push(await accepted(tiny(listWallet), lister));
    const pages: any[] = [];
    let cursor: string | null = null;
    do {
      const r = await list(cursor === null ? '' : `?cursor=${cursor}`, lister);
      expect(r.status, r.text).toBe(200);
      expect(schemaProblems('module-intake-receipt-list.v0.1.schema.json', r.json)).toEqual([]);
      expect(r.json.items.length).toBeLessThanOrEqual(20);
      if (r.json.nextCursor !== null) expect(r.json.nextCursor).toMatch(uuid);
      pages.push(r.json);
      cursor = r.json.nextCursor;
    } while (cursor !== null && pages.length < 5);
    expect(pages.map((p) => p.items.length)).toEqual([20, 1]);
    expect(pages.flatMap((p) => p.items)).toEqual([...created].reverse());

    const mine = await list();
    expect(mine.status).toBe(200);
    const ids = new Set(created.map((c) => c.submissionId));
    expect(mine.json.items.length).toBeGreaterThan(0);
    for (const item of mine.json.items) {
      expect(ids.has(item.submissionId)).toBe(false);
      expect(item.author.toLowerCase()).toBe(moduleAuthor.toLowerCase());
    }
    const empty = await list('', s.key({ wallet: emptyWallet, scopes: modulesScopes }));
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({ items: [], nextCursor: null });

    // Another principal's cursor is not one of this principal's pages (spec: listModuleSubmissions 400).
    await expectRefused(() => list(`?cursor=${pages[0].nextCursor}`), 400, 'INVALID_REQUEST');
  });

  it('no limit or offset query exists, and a cursor must be a UUID of a page: 400 INVALID_REQUEST', async () => {
    await accepted(tiny());
    for (const query of ['?limit=5', '?offset=20', '?cursor=1', '?cursor=not-a-uuid', `?cursor=${randomUUID()}`]) {
      await expectRefused(() => list(query), 400, 'INVALID_REQUEST', { label: query });
    }
  });
});

describe('capabilities and context (design: routes)', () => {
  it('capabilities are public: 200, submissions true by default, legacy fields false', async () => {
    const r = await call(`${base()}/capabilities`);
    expect(r.status, r.text).toBe(200);
    expect(schemaProblems('modules-capabilities.v1.schema.json', r.json)).toEqual([]);
    expect(r.json).toEqual({
      moduleContributions: {
        submissions: true,
        apiKeyIssuance: false,
        contract: 'platform.modules.api.v0.1',
        submissionFormat: 'platform.modules.submission.v0.1',
        descriptorFormat: 'platform.classic.source-package.v0.1',
        // The schema maxima, as a deployment that publishes no lower limits reports them.
        limits: {
          maxFiles: 128,
          maxFileBytes: 4_194_304,
          maxTotalBytes: 16_777_216,
          maxRequestBytes: 25_165_824,
          maxPathLength: 240,
          maxListPageItems: 20,
        },
      },
      reviewAvailable: false,
      approved: false,
      available: false,
    });
  });

  it('context: the key wallet as author, canSubmit and missingScopes from the scopes, the enforced limits', async () => {
    const r = await context();
    expect(r.status, r.text).toBe(200);
    expect(schemaProblems('modules-context.v1.schema.json', r.json)).toEqual([]);
    expect(r.json.schemaVersion).toBe('platform.modules.context.v1');
    expect(r.json.identity.author.toLowerCase()).toBe(moduleAuthor.toLowerCase());
    expect(r.json.identity.defaultRewardWallet.toLowerCase()).toBe(moduleAuthor.toLowerCase());
    expect(r.json.authorization).toMatchObject({ missingScopes: [], canSubmit: true, canRead: true });
    expect([...r.json.authorization.scopes].sort()).toEqual([...modulesScopes].sort());
    expect(r.json.intake).toMatchObject({
      available: true,
      submissionFormat: 'platform.modules.submission.v0.1',
      descriptorFormat: 'platform.classic.source-package.v0.1',
      limits: {
        maxFiles: 128,
        maxFileBytes: 4 * MiB,
        maxTotalBytes: 16 * MiB,
        maxRequestBytes: 24 * MiB,
        maxPathLength: 240,
        maxListPageItems: 20,
      },
    });

    const reader = await context(s.key({ wallet: otherWallet, scopes: ['modules:read', 'custom-launch:read'] }));
    expect(reader.status, reader.text).toBe(200);
    expect(reader.json.identity.author.toLowerCase()).toBe(otherWallet.toLowerCase());
    expect(reader.json.authorization).toMatchObject({
      missingScopes: ['modules:submit'],
      canSubmit: false,
      canRead: true,
    });
    expect([...reader.json.authorization.scopes].sort()).toEqual(['custom-launch:read', 'modules:read']);
  });
});

describe('a deployment with MODULES_SUBMISSIONS=false (design rule 1)', () => {
  let off: TestServer;
  let offKey: string;
  const offSubmit = (body: string) =>
    call(`${off.url}/v1/modules/submissions`, {
      method: 'POST',
      headers: auth(offKey, { 'Idempotency-Key': idem() }),
      body,
    });
  const unavailable = () => ({ retryable: true, server: off });
  beforeAll(async () => {
    off = await startServer({ modulesSubmissions: false });
    offKey = off.key({ scopes: modulesScopes });
  });
  afterAll(() => off.close());

  it('capabilities report submissions false and the context intake unavailable', async () => {
    const caps = await call(`${off.url}/v1/modules/capabilities`);
    expect(caps.status, caps.text).toBe(200);
    expect(caps.json.moduleContributions.submissions).toBe(false);
    const ctx = await call(`${off.url}/v1/modules/context`, { headers: auth(offKey) });
    expect(ctx.status, ctx.text).toBe(200);
    expect(ctx.json.intake.available).toBe(false);
  });

  it('submit: 503 MODULE_SUBMISSIONS_UNAVAILABLE (retryable), nothing persisted', async () => {
    await expectRefused(() => offSubmit(JSON.stringify(tiny())), 503, 'MODULE_SUBMISSIONS_UNAVAILABLE', unavailable());
  });

  it('rule 1 precedes the schema (rule 2): a body the schema refuses is 503 as well', async () => {
    await expectRefused(() => offSubmit('{"format":1}'), 503, 'MODULE_SUBMISSIONS_UNAVAILABLE', unavailable());
  });
});
