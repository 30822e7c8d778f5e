import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  redocBundlePath,
  redocLogoReplacement,
  redocLogoUrl,
  redocSourceMapComment,
  rewriteRedocBundle,
} from '../../src/domain/public/api-reference.ts';
import { call } from '../support/http.ts';
import { startServer, type TestServer } from '../support/server.ts';

// The contract the server publishes (spec/openapi/paths: openapi-document, openapi-developer-api-document, docs,
// docs-redoc-script): each file's exact bytes, its strong ETag, public caching and If-None-Match, without a key.
const file = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url));
const installedRedoc = readFileSync(redocBundlePath());
const bundled = JSON.parse(file('generated/openapi/service.bundled.json').toString('utf8'));

/** The const a 200 header has in the bundled spec (spec/openapi/components/headers.yaml, paths/docs.yaml). */
function specConst(path: string, header: string): string {
  const declared = bundled.paths[path].get.responses['200'].headers[header];
  const resolved = declared.$ref ? bundled.components.headers[declared.$ref.split('/').at(-1)] : declared;
  return resolved.schema.const;
}

const files: ReadonlyArray<[operationId: string, path: string, want: Buffer, contentType: string]> = [
  [
    'getServiceOpenApiDocument',
    '/openapi.json',
    file('generated/openapi/service.bundled.json'),
    'application/json; charset=utf-8',
  ],
  [
    'getDeveloperApiOpenApiDocument',
    '/openapi/developer-api.json',
    file('generated/openapi/developer-api.bundled.json'),
    'application/json; charset=utf-8',
  ],
  ['getApiReferencePage', '/docs', file('src/public/api-reference/index.html'), 'text/html; charset=utf-8'],
  [
    'getApiReferenceScript',
    '/docs/redoc.standalone.js',
    Buffer.from(rewriteRedocBundle(installedRedoc.toString('utf8'))),
    'text/javascript; charset=utf-8',
  ],
];

const tagOf = (bytes: Buffer) => `"sha256-${createHash('sha256').update(bytes).digest('base64url')}"`;

/** One GET, its body as bytes. */
async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe.each(files)('%s (GET %s)', (operationId, path, want, contentType) => {
  it('answers the exact bytes of its file without a key, with a strong ETag and public caching', async () => {
    expect(bundled.paths[path].get.operationId).toBe(operationId);
    const r = await get(`${s.url}${path}`);
    expect(r.status).toBe(200);
    expect(r.bytes.equals(want)).toBe(true);
    expect(r.headers.get('content-type')).toBe(contentType);
    expect(r.headers.get('etag')).toBe(tagOf(want));
    expect(r.headers.get('cache-control')).toBe('public, max-age=300');
    expect(r.headers.get('cache-control')).toBe(specConst(path, 'Cache-Control'));
    expect(r.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('answers 304 without a body when If-None-Match names its ETag (strong, weak, in a list, or *)', async () => {
    for (const ifNoneMatch of [tagOf(want), `W/${tagOf(want)}`, `"other", ${tagOf(want)}`, '*']) {
      const r = await get(`${s.url}${path}`, { 'If-None-Match': ifNoneMatch });
      expect(r.status, ifNoneMatch).toBe(304);
      expect(r.bytes.length).toBe(0);
      expect(r.headers.get('etag')).toBe(tagOf(want));
      expect(r.headers.get('cache-control')).toBe('public, max-age=300');
      expect(r.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    }
  });

  it('answers 200 with the bytes when If-None-Match names another ETag', async () => {
    const other = `"sha256-${'A'.repeat(43)}"`;
    const r = await get(`${s.url}${path}`, { 'If-None-Match': other });
    expect(r.status).toBe(200);
    expect(r.bytes.equals(want)).toBe(true);
  });

  it('ignores a credential: a made-up bearer key is still answered 200', async () => {
    const r = await get(`${s.url}${path}`, { Authorization: 'Bearer clk_not_a_key' });
    expect(r.status).toBe(200);
    expect(r.bytes.equals(want)).toBe(true);
  });

  it('refuses an unknown query parameter (400 INVALID_REQUEST, an ApiError, no caching headers)', async () => {
    const r = await call(`${s.url}${path}?download=1`);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.json.error).toMatchObject({ code: 'INVALID_REQUEST', requestId: r.headers.get('x-request-id') });
    expect(r.headers.get('etag')).toBeNull();
  });

  // The service origin routes GET alone for every operation (the developer API is the origin that answers HEAD).
  it('answers HEAD as every operation of the service origin does: 405 with Allow: GET', async () => {
    const r = await call(`${s.url}${path}`, { method: 'HEAD' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
  });
});

describe('what the published files hold', () => {
  it('/openapi.json is the service contract, describing its own operation and the three others', async () => {
    const doc = (await call(`${s.url}/openapi.json`)).json;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('Chain-Bound Custom Launch API');
    for (const [operationId, path] of files) expect(doc.paths[path].get.operationId).toBe(operationId);
  });

  it('/openapi/developer-api.json is the developer API contract', async () => {
    const doc = (await call(`${s.url}/openapi/developer-api.json`)).json;
    expect(doc.info.title).toBe('Custom Launch Developer API');
    expect(Object.keys(doc.paths)).toContain('/api/v2/token-list');
  });

  it('the page names only this origin: the script and the document by path, and a CSP of this origin alone', async () => {
    const r = await call(`${s.url}/docs`);
    expect(r.text).toContain('<script src="/docs/redoc.standalone.js"></script>');
    expect(r.text).toContain('<redoc spec-url="/openapi.json"></redoc>');
    expect(r.text).not.toMatch(/\/\/[a-z0-9.-]+\.[a-z]{2,}\//i);
    const csp = r.headers.get('content-security-policy');
    expect(csp).toBe(specConst('/docs', 'Content-Security-Policy'));
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self';");
    // 304 answers carry no CSP: a browser keeps the header of the copy it revalidated.
    const etag = r.headers.get('etag') ?? '';
    expect((await call(`${s.url}/docs`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
  });

  it('the script is the installed Redoc bundle with its one other origin (the logo) inline and no source map', () => {
    const installed = installedRedoc.toString('utf8');
    const served = rewriteRedocBundle(installed);
    // Boolean checks: a failing toContain would print the whole megabyte.
    expect(installed.includes(redocLogoUrl)).toBe(true);
    expect(served.includes('cdn.redoc.ly')).toBe(false);
    expect(served.includes(`src:"${redocLogoReplacement}"`)).toBe(true);
    expect(installed.endsWith(redocSourceMapComment)).toBe(true);
    expect(served.includes(redocSourceMapComment)).toBe(false);
    expect(served.replace(redocLogoReplacement, redocLogoUrl) + redocSourceMapComment === installed).toBe(true);
  });

  it.each([
    ['no logo', (t: string) => t.replace(redocLogoUrl, '')],
    ['two logos', (t: string) => `${t}${redocLogoUrl}`],
    ['no source-map comment', (t: string) => t.replace(redocSourceMapComment, '')],
  ])('refuses a Redoc bundle with %s (another Redoc than the one the rewrite was written for)', (_name, edit) => {
    expect(() => rewriteRedocBundle(edit(installedRedoc.toString('utf8')))).toThrow(/not 1/);
  });
});
