/*
 * The refusals Node makes before a request reaches Express carry an ApiError body on both listeners (the service
 * document's and the developer API document's descriptions): 431 HEADERS_TOO_LARGE past the 16 KiB header section,
 * 400 MALFORMED_HTTP_REQUEST for what is not HTTP/1.1, 408 REQUEST_TIMEOUT for headers that stall past the headers
 * timeout. Raw sockets against the real listeners, each limit from both sides.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { type DeveloperServer, startDeveloperServer } from '../support/developer.ts';
import { startServerProcess } from '../support/process.ts';
import { type RawReply, rawHttp as raw } from '../support/raw-http.ts';
import { startServer, type TestServer } from '../support/server.ts';

/** A short headers timeout, so a stalled request is cut within a second. */
const headersTimeoutMs = 400;

let service: TestServer;
let developer: DeveloperServer;

beforeAll(async () => {
  service = await startServer({ http: { headersTimeoutMs, requestTimeoutMs: 2_000 } });
  developer = await startDeveloperServer(service);
});
afterAll(async () => {
  await developer.close();
  await service.close();
});

/** A complete ApiError answer of `code` with a fresh request id and the connection closed. */
function expectApiError(r: RawReply, status: number, code: string, retryable: boolean): void {
  expect(r.status, `${r.status} ${r.text}`).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.headers.get('connection')).toBe('close');
  expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(r.text));
  const json = JSON.parse(r.text);
  expect(Object.keys(json)).toEqual(['error']);
  expect(json.error).toMatchObject({ code, retryable });
  expect(json.error.message.length).toBeGreaterThan(0);
  expect(json.error.requestId).toMatch(/^req_[0-9a-f]{32}$/);
  expect(json.error.requestId).toBe(r.headers.get('x-request-id'));
}

const request = (path: string, extra = '') =>
  `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${extra}Connection: close\r\n\r\n`;
const header = (bytes: number) => `X-Filler: ${'a'.repeat(bytes)}\r\n`;

const listeners = [
  ['service', () => service.url, '/readyz'],
  ['developer API', () => developer.url, '/api/v2/status'],
] as const;

describe.each(listeners)('the %s listener', (_name, url, path) => {
  it.each([
    ['a 64 KiB header', 431, 'HEADERS_TOO_LARGE', false, [request(path, header(64 * 1024))]],
    ['a header section of 17 KiB (over 16 KiB)', 431, 'HEADERS_TOO_LARGE', false, [request(path, header(17 * 1024))]],
    ['an unknown HTTP version', 400, 'MALFORMED_HTTP_REQUEST', false, ['GET / HTTP/9\r\n\r\n']],
    [
      'bytes that are not HTTP',
      400,
      'MALFORMED_HTTP_REQUEST',
      false,
      [Buffer.from('\x00\x01 garbage\r\n\r\n', 'latin1')],
    ],
    [
      'a header line without a colon',
      400,
      'MALFORMED_HTTP_REQUEST',
      false,
      [`GET ${path} HTTP/1.1\r\nHost localhost\r\n\r\n`],
    ],
  ] as const)('%s: %i %s with an ApiError body', async (_case, status, code, retryable, parts) => {
    expectApiError(await raw(url(), [...parts]), status, code, retryable);
  });

  it('a header section of 15 KiB (under 16 KiB) reaches the app', async () => {
    const r = await raw(url(), [request(path, header(15 * 1024))]);
    expect(r.status).not.toBe(431);
    expect(r.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('headers that stall past the headers timeout: 408 REQUEST_TIMEOUT (retryable), the connection closed', async () => {
    const r = await raw(url(), [`GET ${path} HTTP/1.1\r\nHost: localhost\r\n`]);
    expectApiError(r, 408, 'REQUEST_TIMEOUT', true);
    expect(r.elapsedMs).toBeGreaterThanOrEqual(headersTimeoutMs - 50);
    expect(r.elapsedMs).toBeLessThan(headersTimeoutMs * 4);
  });

  it('headers sent in two parts within the headers timeout are answered by the app', async () => {
    const r = await raw(url(), [`GET ${path} HTTP/1.1\r\nHost: localhost\r\n`, 'Connection: close\r\n\r\n'], 100);
    expect([200, 503]).toContain(r.status);
    expect(r.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('the developer API listener', () => {
  it("adds the origin's CORS headers to Node's refusals", async () => {
    const r = await raw(developer.url, ['GET / HTTP/9\r\n\r\n']);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('the npm start process (src/main.ts)', () => {
  it('answers on both listeners, with the timeouts of HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'custom-launch-client-error-'));
    const server = await startServerProcess({
      DATABASE_PATH: join(dir, 'db.sqlite'),
      HTTP_HEADERS_TIMEOUT_MS: String(headersTimeoutMs),
      HTTP_REQUEST_TIMEOUT_MS: '2000',
    });
    try {
      for (const [url, path] of [
        [server.url, '/readyz'],
        [await server.developerUrl(), '/api/v2/status'],
      ] as const) {
        expectApiError(await raw(url, [request(path, header(64 * 1024))]), 431, 'HEADERS_TOO_LARGE', false);
        expectApiError(await raw(url, ['GET / HTTP/9\r\n\r\n']), 400, 'MALFORMED_HTTP_REQUEST', false);
        const stalled = await raw(url, [`GET ${path} HTTP/1.1\r\nHost: localhost\r\n`]);
        expectApiError(stalled, 408, 'REQUEST_TIMEOUT', true);
        expect(stalled.elapsedMs).toBeLessThan(headersTimeoutMs * 4);
      }
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS', () => {
  it('default to 66 s and 300 s (Node and this server as before)', () => {
    expect(loadConfig({}).http).toEqual({ headersTimeoutMs: 66_000, requestTimeoutMs: 300_000 });
  });

  it.each([
    ['HTTP_HEADERS_TIMEOUT_MS', '1', { headersTimeoutMs: 1, requestTimeoutMs: 300_000 }],
    ['HTTP_HEADERS_TIMEOUT_MS', '0', 'HTTP_HEADERS_TIMEOUT_MS must be at least 1'],
    ['HTTP_REQUEST_TIMEOUT_MS', '1', { headersTimeoutMs: 66_000, requestTimeoutMs: 1 }],
    ['HTTP_REQUEST_TIMEOUT_MS', '0', 'HTTP_REQUEST_TIMEOUT_MS must be at least 1'],
  ] as const)('%s=%s', (name, given, want) => {
    if (typeof want === 'string') expect(() => loadConfig({ [name]: given })).toThrow(want);
    else expect(loadConfig({ [name]: given }).http).toEqual(want);
  });
});
