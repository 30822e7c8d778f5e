import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { bindRequestHashes, launchIntentHashOf } from '../../src/core/request-hashes.ts';
import { auth, call } from '../support/http.ts';
import { example, freshV4Bytes, startServer, type TestServer, unboundReference, v4Example } from '../support/server.ts';

// The server rules custom-launch-create-request.v4.schema.json attributes to the server and JSON Schema cannot state:
// the description's UTF-8 byte bounds and letters-or-digits floor (ProjectMetadata), unique referenceId values
// (externalContracts), source paths unique and sorted by UTF-8 bytes (SourceBundleManifest), and the verification
// bundle's digests and target names (VerificationBundle). Both sides of each boundary, through real HTTP preflight and create; a refusal stores nothing.

let s: TestServer;
let key: string;
let seq = 0;
beforeAll(async () => {
  s = await startServer();
  key = s.key();
});
afterAll(() => s.close());

const counts = () => ({
  launches: (s.db.prepare('SELECT count(*) AS n FROM launches').get() as { n: number }).n,
  idempotency: (s.db.prepare('SELECT count(*) AS n FROM idempotency_records').get() as { n: number }).n,
  admissions: (s.db.prepare('SELECT count(*) AS n FROM admissions').get() as { n: number }).n,
});

/** The 4.1.0 example with `edit`, a new intent each time (a fresh nonce), every hash bound again. */
const requestWith = (edit: (r: CustomLaunchCreateRequestV4) => void): string => freshV4Bytes(v4Example, edit);
const withDescription = (description: string) =>
  requestWith((r) => {
    r.projectMetadata.description = description;
  });
const reference = (referenceId: string, address: string) => ({
  ...structuredClone(unboundReference),
  referenceId,
  address,
});
const withReferences = (...refs: Array<ReturnType<typeof reference>>) =>
  requestWith((r) => {
    r.externalContracts = refs;
  });

type VerificationTarget = CustomLaunchCreateRequestV4['verificationBundle']['targets'][number];
type SourceFile = CustomLaunchCreateRequestV4['sourceBundleManifest']['files'][number];
const extraFile = (path: string): SourceFile => ({ path, sha256: 'ab'.repeat(32), byteLength: 1 });
const withFiles = (edit: (files: SourceFile[]) => SourceFile[]) =>
  requestWith((r) => {
    r.sourceBundleManifest.files = edit(r.sourceBundleManifest.files);
  });
/** Bound as usual, then one edit after binding, with only launchIntentHash bound again over it. */
function rebound(edit: (r: CustomLaunchCreateRequestV4) => void): string {
  const request = bindRequestHashes(example<CustomLaunchCreateRequestV4>(v4Example));
  edit(request);
  request.launchIntentHash = launchIntentHashOf(request);
  return JSON.stringify(request);
}

const preflight = (body: string) =>
  call(`${s.url}/v4/chains/4663/custom-launches/preflight`, { method: 'POST', headers: auth(key), body });
const create = (body: string) =>
  call(`${s.url}/v4/chains/4663/custom-launches`, {
    method: 'POST',
    headers: auth(key, { 'Idempotency-Key': `request-rules-${String(++seq).padStart(4, '0')}` }),
    body,
  });

const addressA = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
const addressB = '0x1111111111111111111111111111111111111111';
const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

type Row = [name: string, body: () => string, refusal: RegExp | null];
const rows: Row[] = [
  // 2,048 two-byte letters: 4,096 UTF-8 bytes, the most the rule allows, in far fewer than 4,096 code points.
  ['a description of exactly 4,096 UTF-8 bytes', () => withDescription('é'.repeat(2048)), null],
  ['a description of 4,097 UTF-8 bytes', () => withDescription(`a${'é'.repeat(2048)}`), /4097 UTF-8 bytes/],
  ['a description of 20 UTF-8 bytes', () => withDescription('Abcdefgh, a token...'), null],
  ['a description with exactly 8 letters or digits', () => withDescription('abcd1234 -- -- -- --'), null],
  ['a description with 7 letters or digits', () => withDescription('abcd123 -- -- -- ---'), /has 7 letters or digits/],
  [
    'two external references with distinct referenceIds',
    () => withReferences(reference('permit2', addressA), reference('oracle', addressB)),
    null,
  ],
  [
    'two external references with the same referenceId',
    () => withReferences(reference('permit2', addressA), reference('permit2', addressB)),
    /referenceId values must be unique/,
  ],
  // The manifest's files, sorted by UTF-8 bytes ('B' < 'E'), then out of order, then a path twice.
  [
    'source files sorted by UTF-8 bytes',
    () => withFiles((files) => [extraFile('contracts/Broken.sol'), ...files]),
    null,
  ],
  [
    'source files out of UTF-8 byte order',
    () => withFiles((files) => [...files, extraFile('contracts/Broken.sol')]),
    /paths must be unique and sorted by UTF-8 bytes/,
  ],
  [
    'a source path listed twice',
    () => withFiles((files) => [extraFile('contracts/Broken.sol'), extraFile('contracts/Broken.sol'), ...files]),
    /paths must be unique and sorted by UTF-8 bytes/,
  ],
  [
    'a verification bundle naming each graph target once',
    () => requestWith((r) => r.verificationBundle.targets.reverse()),
    null,
  ],
  [
    'a verification bundle naming a target twice',
    () =>
      requestWith((r) => {
        r.verificationBundle.targets[1] = { ...(r.verificationBundle.targets[0] as VerificationTarget) };
      }),
    /names a target twice/,
  ],
  [
    'a verification bundle binding another source manifest digest',
    () => rebound((r) => (r.verificationBundle.sourceBundleManifestDigest = `sha256:${'0'.repeat(64)}`)),
    /verificationBundle\/sourceBundleManifestDigest/,
  ],
  [
    'a verification bundle binding another graph digest',
    () => rebound((r) => (r.verificationBundle.graphBundleDigest = `sha256:${'0'.repeat(64)}`)),
    /verificationBundle\/graphBundleDigest/,
  ],
];

describe('server rules of the V4 create request (custom-launch-create-request.v4.schema.json)', () => {
  it('the rows hold what they say', () => {
    const description = (body: string) => (JSON.parse(body) as CustomLaunchCreateRequestV4).projectMetadata.description;
    expect(utf8(description(withDescription('é'.repeat(2048))))).toBe(4096);
    expect(description(withDescription('é'.repeat(2048))).length).toBe(2048);
    expect(utf8(description(withDescription(`a${'é'.repeat(2048)}`)))).toBe(4097);
    expect(utf8('Abcdefgh, a token...')).toBe(20);
  });

  it.each(rows)('preflight: %s', async (_name, body, refusal) => {
    const before = counts();
    const r = await preflight(body());
    if (refusal) {
      expect(r.status, r.text).toBe(400);
      expect(r.json.error.code).toBe('INVALID_REQUEST');
      expect(JSON.stringify(r.json.error)).toMatch(refusal);
    } else {
      expect(r.status, r.text).toBe(200);
      expect(r.json.schemaVersion).toBe('platform.custom-launch-preflight.v2');
    }
    expect(counts()).toEqual(before);
  });

  it.each(rows)('create: %s', async (_name, body, refusal) => {
    const before = counts();
    const r = await create(body());
    if (refusal) {
      expect(r.status, r.text).toBe(400);
      expect(r.json.error.code).toBe('INVALID_REQUEST');
      expect(JSON.stringify(r.json.error)).toMatch(refusal);
      expect(counts()).toEqual(before);
    } else {
      expect(r.status, r.text).toBe(202);
      expect(counts().launches).toBe(before.launches + 1);
    }
  });

  it('names the location of a repeated referenceId', async () => {
    const r = await preflight(withReferences(reference('permit2', addressA), reference('permit2', addressB)));
    expect(r.json.error.issues).toContainEqual({
      location: '/externalContracts/1/referenceId',
      message: 'referenceId values must be unique',
    });
  });

  // Below 20 code points the schema refuses first; the byte floor is then implied (a code point is at least a byte).
  it('a description of 19 characters is refused by the schema', async () => {
    const r = await preflight(withDescription('Abcdefgh, a token..'));
    expect(r.status, r.text).toBe(400);
    expect(r.json.error.code).toBe('INVALID_REQUEST');
    expect(JSON.stringify(r.json.error)).toMatch(/description/);
  });
});
