import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CustomLaunchCreateRequestV4, createLaunchClient } from '../../src/client/index.ts';
import { example, freshV4Bytes, startServer, type TestServer, v4Example } from '../support/server.ts';

// One real server and one SQLite file for the file; the client talks real HTTP to it.
let s: TestServer;
let apiKey: string;
const body = example<CustomLaunchCreateRequestV4>(v4Example);

beforeAll(async () => {
  s = await startServer();
  apiKey = s.key();
});
afterAll(async () => {
  await s.close();
});

function launchCount(): number {
  return (s.db.prepare('SELECT count(*) AS n FROM launches').get() as { n: number }).n;
}

describe('typed client against a real server', () => {
  it('reads capabilities and readiness as data, without an error', async () => {
    const client = createLaunchClient({ baseUrl: s.url, apiKey });
    const caps = await client.capabilities();
    expect(caps.error).toBeUndefined();
    expect(caps.data?.chainId).toBe('4663');
    const ready = await client.readiness();
    expect(ready.error).toBeUndefined();
    expect(ready.data?.status).toBe('ready');
  });

  it('creates (202), replays the same call (200, identical JSON), gets and pages', async () => {
    const client = createLaunchClient({ baseUrl: s.url, apiKey });
    const idempotencyKey = `client-test-${randomUUID()}`;
    const first = await client.create(body, idempotencyKey);
    expect(first.error).toBeUndefined();
    expect(first.response.status).toBe(202);
    const launchId = first.data?.launchId;
    expect(launchId).toEqual(expect.any(String));

    const again = await client.create(body, idempotencyKey);
    expect(again.response.status).toBe(200);
    expect(again.error).toBeUndefined();
    expect(JSON.stringify(again.data)).toBe(JSON.stringify(first.data));

    const got = await client.get(launchId as string);
    expect(got.error).toBeUndefined();
    expect(got.data?.launchId).toBe(launchId);
    expect(got.data?.status).toBe('received');

    // A second launch (a new intent) so the one-item page has somewhere to go.
    const other = JSON.parse(freshV4Bytes()) as CustomLaunchCreateRequestV4;
    const second = await client.create(other, `client-test-${randomUUID()}`);
    expect(second.response.status).toBe(202);

    const page1 = await client.list({ limit: 1 });
    expect(page1.error).toBeUndefined();
    expect(page1.data?.launches).toHaveLength(1);
    const cursor = page1.data?.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const page2 = await client.list({ cursor: cursor as string });
    expect(page2.error).toBeUndefined();
    expect(page2.data?.launches.length).toBeGreaterThanOrEqual(1);
    const firstIds = new Set(page1.data?.launches.map((l) => l.launchId));
    for (const l of page2.data?.launches ?? []) expect(firstIds.has(l.launchId)).toBe(false);
    expect(page2.data?.launches.map((l) => l.launchId)).toContain(launchId);
  });

  it('returns a 404 as error data without throwing', async () => {
    const client = createLaunchClient({ baseUrl: s.url, apiKey });
    const result = await client.get('00000000-0000-4000-8000-000000000000');
    expect(result.response.status).toBe(404);
    expect(result.data).toBeUndefined();
    expect(result.error?.error.code).toBe('NOT_FOUND');
  });

  it('throws on a requestId given as a launchId, before any request', async () => {
    // A real request id, from a real answer of the server.
    const missing = await createLaunchClient({ baseUrl: s.url, apiKey }).get('00000000-0000-4000-8000-000000000000');
    const requestId = missing.error?.error.requestId as string;
    expect(requestId).toMatch(/^req_[0-9a-f]{32}$/);
    expect(missing.response.headers.get('x-request-id')).toBe(requestId);
    const sent: string[] = [];
    const client = createLaunchClient({
      baseUrl: s.url,
      apiKey,
      fetch: (input, init) => {
        sent.push(String(input instanceof Request ? input.url : input));
        return fetch(input, init);
      },
    });
    expect(() => client.get(requestId)).toThrow(TypeError);
    expect(() => client.get(requestId)).toThrow(`"${requestId}" is a requestId`);
    expect(sent).toEqual([]);
    // The other side: a launchId goes out.
    await client.get('00000000-0000-4000-8000-000000000000');
    expect(sent).toHaveLength(1);
  });

  it('returns the missing price source as a retryable 503 with Retry-After', async () => {
    const client = createLaunchClient({ baseUrl: s.url });
    const result = await client.initialBuyQuote();
    expect(result.response.status).toBe(503);
    expect(result.data).toBeUndefined();
    expect(result.error?.error.code).toBe('PRICE_SOURCE_UNAVAILABLE');
    expect(result.error?.error.retryable).toBe(true);
    expect(result.response.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
  });
});

describe('misuse throws a TypeError that says what to do', () => {
  it.each([
    ['http to a non-loopback host', { baseUrl: 'http://example.com' }, /https, or http on localhost/],
    ['a non-http scheme', { baseUrl: 'ftp://x' }, /https, or http on localhost/],
    ['a baseUrl with a path', { baseUrl: 'http://127.0.0.1:8787/api' }, /origin only/],
    ['a relative baseUrl', { baseUrl: '/v4' }, /absolute URL/],
    [
      'an apiKey with a space',
      { baseUrl: 'http://127.0.0.1:8787', apiKey: 'clk_abc def' },
      /apiKey must be a single token/,
    ],
  ])('%s', (_name, options, message) => {
    expect(() => createLaunchClient(options)).toThrow(TypeError);
    expect(() => createLaunchClient(options)).toThrow(message);
  });
});

describe('redirects', () => {
  let redirector: Server;
  let redirectorUrl: string;
  let redirectorHits = 0;

  beforeAll(async () => {
    redirector = createServer((req, res) => {
      redirectorHits += 1;
      req.resume();
      res.writeHead(307, { Location: `${s.url}${req.url ?? '/'}` }).end();
    });
    redirector.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => redirector.once('listening', () => resolve()));
    redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      redirector.closeAllConnections();
      redirector.close(() => resolve());
    });
  });

  it('refuses a 307 so the key and body never reach another origin', async () => {
    const before = launchCount();
    const client = createLaunchClient({ baseUrl: redirectorUrl, apiKey });
    const attempt = client.create(body, `redirect-test-${randomUUID()}`);
    await expect(attempt).rejects.toThrow(TypeError);
    await expect(attempt).rejects.toMatchObject({ cause: { message: expect.stringMatching(/redirect/) } });
    expect(redirectorHits).toBe(1);
    expect(launchCount()).toBe(before);
  });
});
