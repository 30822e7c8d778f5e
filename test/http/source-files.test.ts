import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, call, type Reply } from '../support/http.ts';
import { example, freshV4Bytes, startServer, type TestServer, v4Example } from '../support/server.ts';

/**
 * putCustomLaunchSourceFileV4 (project design, spec/openapi/paths/v4-custom-launch-source-file.yaml): the controller
 * delivers the bytes of each file of the launch's sourceBundleManifest, addressed by its SHA-256, so the protected
 * build can compile them.
 */
type Manifest = { files: Array<{ path: string; sha256: string; byteLength: number }> };
const manifest = example<{ sourceBundleManifest: Manifest }>(v4Example).sourceBundleManifest;
const projectFile = (path: string) => readFileSync(new URL(`../../examples/example-launch/${path}`, import.meta.url));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let s: TestServer;
let key: string;
let launchId: string;
let seq = 0;
const fileUrl = (hash: string, id = launchId) => `${s.url}/v4/chains/4663/custom-launches/${id}/source-files/${hash}`;
const put = (hash: string, body: Buffer, k = key, headers: Record<string, string> = {}) =>
  call(fileUrl(hash), {
    method: 'PUT',
    headers: { Authorization: `Bearer ${k}`, 'Content-Type': 'application/octet-stream', ...headers },
    body,
  });
const held = () => (s.db.prepare('SELECT count(*) AS n FROM launch_source_files').get() as { n: number }).n;
const blobs = () => (s.db.prepare('SELECT count(*) AS n FROM source_blobs').get() as { n: number }).n;

function expectApiError(r: Reply, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.json.error.code).toBe(code);
  expect(r.json.error.requestId).toBe(r.headers.get('x-request-id'));
  expect(r.json.error.retryable).toBe(false);
}

async function createLaunch(k: string): Promise<string> {
  const r = await call(`${s.url}/v4/chains/4663/custom-launches`, {
    method: 'POST',
    headers: auth(k, { 'Idempotency-Key': `source-files-${Date.now()}-${++seq}`.padEnd(16, 'x') }),
    body: freshV4Bytes(),
  });
  expect(r.status, r.text).toBe(202);
  return r.json.launchId;
}

beforeAll(async () => {
  s = await startServer();
  key = s.key();
  launchId = await createLaunch(key);
});
afterAll(() => s.close());

describe('putCustomLaunchSourceFileV4', () => {
  it('the example manifest lists the example project files, byte for byte', () => {
    expect(manifest.files.length).toBeGreaterThanOrEqual(3);
    for (const f of manifest.files) {
      const bytes = projectFile(f.path);
      expect({ path: f.path, sha256: sha256(bytes), byteLength: bytes.length }).toEqual(f);
    }
  });

  it('stores each file (201 after the commit), counts the delivered files, and answers 200 for a file it holds', async () => {
    const [first, ...rest] = manifest.files;
    if (!first) throw new Error('empty manifest');
    const r = await put(first.sha256, projectFile(first.path));
    expect(r.status, r.text).toBe(201);
    expect(r.json).toEqual({
      schemaVersion: 'platform.custom-launch-source-file-receipt.v1',
      chainId: '4663',
      launchId,
      sha256: first.sha256,
      byteLength: first.byteLength,
      paths: [first.path],
      filesReceived: 1,
      filesExpected: manifest.files.length,
    });
    const stored = s.db
      .prepare(
        'SELECT b.bytes FROM launch_source_files f JOIN source_blobs b USING (sha256) WHERE f.launch_id = ? AND f.sha256 = ?',
      )
      .get(launchId, first.sha256) as { bytes: Buffer };
    expect(Buffer.compare(stored.bytes, projectFile(first.path))).toBe(0);

    const again = await put(first.sha256, projectFile(first.path));
    expect(again.status, again.text).toBe(200);
    expect(again.json.filesReceived).toBe(1);

    let last: Reply | undefined;
    for (const f of rest) last = await put(f.sha256, projectFile(f.path));
    expect(last?.status).toBe(201);
    expect(last?.json.filesReceived).toBe(manifest.files.length);
  });

  it('a second launch with the same sources shares the stored bytes (content-addressed) but counts on its own', async () => {
    const other = await createLaunch(key);
    const before = blobs();
    const f = manifest.files[0];
    if (!f) throw new Error('empty manifest');
    const r = await call(fileUrl(f.sha256, other), {
      method: 'PUT',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/octet-stream' },
      body: projectFile(f.path),
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ launchId: other, filesReceived: 1 });
    expect(blobs()).toBe(before);
  });

  it('bytes whose SHA-256 is not the path hash: 400 SOURCE_FILE_DIGEST_MISMATCH, nothing stored', async () => {
    const f = manifest.files[1];
    if (!f) throw new Error('short manifest');
    const fresh = await createLaunch(key);
    const before = { held: held(), blobs: blobs() };
    const bytes = Buffer.from(projectFile(f.path));
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 1, bytes.length - 1); // one bit of the last byte
    const r = await call(fileUrl(f.sha256, fresh), {
      method: 'PUT',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/octet-stream' },
      body: bytes,
    });
    expectApiError(r, 400, 'SOURCE_FILE_DIGEST_MISMATCH');
    expect(r.json.error.message).toContain(sha256(bytes));
    expect({ held: held(), blobs: blobs() }).toEqual(before);
  });

  it('a hash the manifest does not list: 409 SOURCE_FILE_NOT_IN_MANIFEST, nothing stored, even for matching bytes', async () => {
    const before = { held: held(), blobs: blobs() };
    const bytes = Buffer.from('// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\n');
    const r = await put(sha256(bytes), bytes);
    expectApiError(r, 409, 'SOURCE_FILE_NOT_IN_MANIFEST');
    // An empty file (byteLength 0 is allowed) reaches the same manifest check.
    const empty = await put(sha256(Buffer.alloc(0)), Buffer.alloc(0));
    expectApiError(empty, 409, 'SOURCE_FILE_NOT_IN_MANIFEST');
    expect({ held: held(), blobs: blobs() }).toEqual(before);
  });

  it('another lineage sees 404 NOT_FOUND, as for a missing launch', async () => {
    const stranger = s.key({ wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' });
    const f = manifest.files[0];
    if (!f) throw new Error('empty manifest');
    expectApiError(await put(f.sha256, projectFile(f.path), stranger), 404, 'NOT_FOUND');
    const missing = await call(fileUrl(f.sha256, '00000000-0000-4000-8000-000000000000'), {
      method: 'PUT',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/octet-stream' },
      body: projectFile(f.path),
    });
    expectApiError(missing, 404, 'NOT_FOUND');
  });

  it('needs the custom-launch:create scope (403) and a key (401)', async () => {
    const f = manifest.files[0];
    if (!f) throw new Error('empty manifest');
    const reader = s.key({ scopes: ['custom-launch:read'] });
    expectApiError(await put(f.sha256, projectFile(f.path), reader), 403, 'INSUFFICIENT_SCOPE');
    const r = await call(fileUrl(f.sha256), {
      method: 'PUT',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: projectFile(f.path),
    });
    expect(r.status).toBe(401);
  });

  it('only application/octet-stream is accepted (415)', async () => {
    const f = manifest.files[0];
    if (!f) throw new Error('empty manifest');
    expectApiError(
      await put(f.sha256, projectFile(f.path), key, { 'Content-Type': 'application/json' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('the path hash must be bare lowercase SHA-256 hex (400 INVALID_REQUEST)', async () => {
    const f = manifest.files[0];
    if (!f) throw new Error('empty manifest');
    expectApiError(await put(f.sha256.toUpperCase(), projectFile(f.path)), 400, 'INVALID_REQUEST');
    expectApiError(await put(f.sha256.slice(1), projectFile(f.path)), 400, 'INVALID_REQUEST');
  });

  it('the body bound: 5,242,880 bytes reach the digest check, one byte more is 413 PAYLOAD_TOO_LARGE', async () => {
    const atLimit = Buffer.alloc(5_242_880, 0x20);
    const r = await put(manifest.files[0]?.sha256 as string, atLimit);
    expectApiError(r, 400, 'SOURCE_FILE_DIGEST_MISMATCH');
    const over = await put(manifest.files[0]?.sha256 as string, Buffer.alloc(5_242_881, 0x20));
    expectApiError(over, 413, 'PAYLOAD_TOO_LARGE');
  });
});
