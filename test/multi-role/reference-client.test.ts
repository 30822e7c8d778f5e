import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createTestClient, createWalletClient, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chain4663 } from '../../src/chain/chain.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import { multiRoleClientBytes } from '../../src/domain/public/multi-role-assets.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import { type DevnetServer, devnetWallet, startDevnetServer } from '../support/devnet-server.ts';
import { type LoopbackProxy, startProxy } from '../support/proxy.ts';
import { startServer, type TestServer } from '../support/server.ts';

/**
 * The shared lane's reference client as an integrator runs it: downloaded over HTTP from a real server process
 * (src/main.ts) bound to the chain-4663 devnet, checked against the capabilities' SHA-256, written to a folder of its
 * own and run under `node` as a child process. A loopback proxy in front of the server records every request (and
 * injects a retryable 503, a held answer and a redirect); a second server without the lane's deployment says the lane
 * is unavailable.
 */

const lane = '/v4/chains/4663/multi-role-custom-launches';
const requestBytes = readFileSync(new URL('../../spec/examples/multi-role-create-request.v2.json', import.meta.url));
const slow = 180_000;

let running: DevnetServer;
let proxy: LoopbackProxy;
let closed: TestServer;
let closedProxy: LoopbackProxy;
let elsewhere: { server: Server; seen: string[]; url: string };
let dir: string;
let clientPath: string;
let requestPath: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

/** `node client.mjs …` with exactly `env` (and PATH), as a user runs the downloaded file. */
function client(args: string[], env: Record<string, string>): Promise<Run> {
  const child = spawn(process.execPath, [clientPath, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  return new Promise((resolve) => {
    child.once('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

const env = () => ({ CUSTOM_LAUNCH_ORIGIN: proxy.url, PLATFORM_API_KEY: running.key });

/** Every request since `from` that carried a key went to the lane's paths and carried exactly this one. */
function keyedRequests(seen: LoopbackProxy['seen'], from = 0) {
  return seen.slice(from).filter((s) => s.headers.authorization !== undefined);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mr-reference-client-'));
  running = await startDevnetServer('mr-client');
  proxy = await startProxy(() => running.server.url);
  closed = await startServer({ multiRoleDeploymentPath: null });
  closedProxy = await startProxy(() => closed.url);
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{}');
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  elsewhere = { server, seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  requestPath = join(dir, 'request.json');
  writeFileSync(requestPath, requestBytes);
}, slow);

afterAll(async () => {
  await proxy?.close();
  await closedProxy?.close();
  await closed?.close();
  await running?.stop();
  await new Promise<void>((resolve) => (elsewhere ? elsewhere.server.close(() => resolve()) : resolve()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the served reference client', () => {
  it('is served as text/javascript, and its SHA-256 is the one the capabilities publish', async () => {
    const caps: any = await (await fetch(`${proxy.url}${lane}/capabilities`)).json();
    expect(schemaProblems('multi-role-capabilities.v2.schema.json', caps)).toEqual([]);
    expect(caps.readiness).toEqual({ status: 'ready', publicWrites: true, reasons: [] });
    const reply = await fetch(`${proxy.url}${caps.referenceClient.path}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const bytes = Buffer.from(await reply.arrayBuffer());
    expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(caps.referenceClient.sha256);
    expect(bytes.equals(multiRoleClientBytes())).toBe(true);
    expect(caps.referenceClient.release).toBe('2.0.0');
    clientPath = join(dir, 'client.mjs');
    writeFileSync(clientPath, bytes);
  });

  it('serves the guide as text/markdown', async () => {
    const reply = await fetch(`${proxy.url}${lane}/guide.md`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await reply.text();
    for (const topic of ['evidence_required', 'walletTransaction', 'finalized', 'IDEMPOTENCY_CONFLICT', 'client.mjs']) {
      expect(text).toContain(topic);
    }
  });
});

describe('the reference client under node, against the devnet server', () => {
  it('reads the capabilities without a key', async () => {
    const from = proxy.seen.length;
    const run = await client(['capabilities'], env());
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.readiness.status).toBe('ready');
    expect(keyedRequests(proxy.seen, from)).toEqual([]);
  });

  it(
    'preflights the exact bytes after the capabilities, and stores nothing',
    async () => {
      const from = proxy.seen.length;
      const run = await client(['preflight', requestPath], env());
      expect(run.code, run.stderr).toBe(0);
      expect(schemaProblems('multi-role-preflight.v2.schema.json', run.json)).toEqual([]);
      const [caps, sent] = proxy.seen.slice(from);
      expect(caps).toMatchObject({ method: 'GET', path: `${lane}/capabilities` });
      expect(caps?.headers.authorization).toBeUndefined();
      expect(sent).toMatchObject({ method: 'POST', path: `${lane}/preflight` });
      expect(sent?.headers.authorization).toBe(`Bearer ${running.key}`);
      expect(sent?.body.equals(requestBytes)).toBe(true);
      const list = await fetch(`${proxy.url}${lane}`, { headers: { Authorization: `Bearer ${running.key}` } });
      expect(((await list.json()) as any).launches).toEqual([]);
      expect(run.stdout + run.stderr).not.toContain(running.key);
    },
    slow,
  );

  let launchId: string;
  const journalPath = () => join(dir, 'journals', 'launch.journal.json');

  it(
    'creates through a 0600 journal, resending the same bytes with the same key after a retryable 503',
    async () => {
      const from = proxy.seen.length;
      proxy.plan('POST', lane, {
        kind: 'answer',
        status: 503,
        headers: { 'Retry-After': '1' },
        body: JSON.stringify({
          error: { code: 'UNAVAILABLE', message: 'try later', retryable: true, requestId: `req_${'0'.repeat(32)}` },
        }),
      });
      const run = await client(['create', requestPath, '--journal', journalPath()], env());
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.httpStatus).toBe(202);
      expect(schemaProblems('multi-role-resource.v2.schema.json', run.json.launch)).toEqual([]);
      launchId = run.json.launch.launchId;
      expect(statSync(journalPath()).mode & 0o777).toBe(0o600);
      const journal = JSON.parse(readFileSync(journalPath(), 'utf8'));
      expect(schemaProblems('multi-role-submit-journal.v1.schema.json', journal)).toEqual([]);
      expect(journal.outcome).toMatchObject({ state: 'accepted', launchId, httpStatus: 202 });
      expect(journal.attempts.map((a: any) => a.httpStatus)).toEqual([503, 202]);
      expect(Buffer.from(journal.requestBytesBase64, 'base64').equals(requestBytes)).toBe(true);
      expect(readFileSync(journalPath(), 'utf8')).not.toContain(running.key);
      const posts = proxy.seen.slice(from).filter((s) => s.method === 'POST');
      expect(posts).toHaveLength(2);
      for (const post of posts) {
        expect(post.body.equals(requestBytes)).toBe(true);
        expect(post.headers['idempotency-key']).toBe(journal.idempotencyKey);
        expect(post.headers.authorization).toBe(`Bearer ${running.key}`);
      }
      expect(run.stdout + run.stderr).not.toContain(running.key);
    },
    slow,
  );

  it('a second create from the journal replays with 200 and the same launchId', async () => {
    const run = await client(['create', '--journal', journalPath()], env());
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.httpStatus).toBe(200);
    expect(run.json.launch.launchId).toBe(launchId);
  });

  it('a timed-out create resends the journal bytes with its key, and the replay answers', async () => {
    const from = proxy.seen.length;
    proxy.plan('POST', lane, { kind: 'forward-and-hold', onServerAnswer: () => undefined });
    const run = await client(['create', requestPath, '--journal', journalPath(), '--timeout-ms', '1500'], env());
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toMatchObject({ httpStatus: 200, launch: { launchId } });
    const journal = JSON.parse(readFileSync(journalPath(), 'utf8'));
    expect(journal.attempts.slice(-2).map((a: any) => a.result)).toEqual(['no_answer', 'answer']);
    const posts = proxy.seen.slice(from).filter((s) => s.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(
      posts.every((p) => p.body.equals(requestBytes) && p.headers['idempotency-key'] === journal.idempotencyKey),
    ).toBe(true);
  });

  it('refuses to resume the journal with other bytes or another key, sending nothing', async () => {
    const other = join(dir, 'other.json');
    writeFileSync(other, `${requestBytes.toString('utf8')} `);
    const from = proxy.seen.length;
    const bytes = await client(['create', other, '--journal', journalPath()], env());
    expect(bytes.code, bytes.stderr).toBe(2);
    const key = await client(['create', '--journal', journalPath()], {
      ...env(),
      PLATFORM_API_KEY: 'cl_other_key_0123',
    });
    expect(key.code, key.stderr).toBe(2);
    expect(proxy.seen.length).toBe(from);
  });

  it('reads the launch by launchId, pinned to the lane and chain 4663', async () => {
    const run = await client(['status', launchId], env());
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.launchId).toBe(launchId);
    expect(schemaProblems('multi-role-resource.v2.schema.json', run.json)).toEqual([]);
  });

  it(
    'waits to authorized; the test account broadcasts the exact transaction; waits to finalized and the lane feed lists it',
    async () => {
      const authorized = await client(
        ['wait', launchId, '--until', 'authorized', '--interval', '0.5', '--max-wait', '150'],
        env(),
      );
      expect(authorized.code, authorized.stderr).toBe(0);
      const tx = authorized.json.walletTransaction;
      expect(tx).toMatchObject({ chainId: '4663', from: devnetWallet });
      expect(authorized.json.permitExpiresAt).toEqual(expect.any(String));
      // The controller's wallet (anvil account 0), not the client, signs and sends exactly what was handed over.
      const { rpcUrl } = running.devnet.deployment;
      const chain = chain4663(rpcUrl);
      const wallet = createWalletClient({
        account: privateKeyToAccount(devnetOperatorKey),
        chain,
        transport: http(rpcUrl),
      });
      const hash = await wallet.sendTransaction({ to: tx.to as Hex, value: BigInt(tx.valueWei), data: tx.data as Hex });
      const reader = createPublicClient({ chain, transport: http(rpcUrl) });
      expect((await reader.waitForTransactionReceipt({ hash })).status).toBe('success');
      await createTestClient({ mode: 'anvil', chain, transport: http(rpcUrl) }).mine({ blocks: 65 });
      const finalized = await client(
        ['wait', launchId, '--until', 'finalized', '--interval', '0.5', '--max-wait', '150'],
        env(),
      );
      expect(finalized.code, finalized.stderr).toBe(0);
      expect(finalized.json.status).toBe('finalized');
      expect(finalized.json.chainEvidence.transactionHash).toBe(hash);
      const feed: any = await (await fetch(`${proxy.url}${lane}/finalized`)).json();
      expect(feed.launches).toEqual([
        expect.objectContaining({
          launchId,
          transactionHash: hash,
          tokenHookAddress: finalized.json.publicOutput.tokenHookAddress,
          poolId: finalized.json.publicOutput.poolId,
        }),
      ]);
    },
    slow,
  );

  it.each([
    ['a requestId', `req_${'0'.repeat(32)}`],
    ['no UUID', 'launch-1'],
  ])('refuses %s for a launchId with exit 2, sending nothing', async (_name, id) => {
    const from = proxy.seen.length;
    const run = await client(['status', id], env());
    expect(run.code, run.stderr).toBe(2);
    expect(proxy.seen.length).toBe(from);
  });

  it('refuses a redirect: the key goes to the origin only', async () => {
    proxy.plan('GET', `${lane}/${launchId}`, {
      kind: 'answer',
      status: 307,
      headers: { Location: `${elsewhere.url}${lane}/${launchId}` },
    });
    const run = await client(['status', launchId], env());
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain('REDIRECT_REFUSED');
    expect(elsewhere.seen).toEqual([]);
    for (const s of keyedRequests(proxy.seen)) expect(s.path.startsWith(lane)).toBe(true);
  });

  it.each([
    ['no key', { CUSTOM_LAUNCH_ORIGIN: 'http://127.0.0.1:1' }, ['status', '00000000-0000-4000-8000-000000000000']],
    ['no origin', { PLATFORM_API_KEY: 'cl_some_key_012345' }, ['capabilities']],
    ['an http origin off loopback', { CUSTOM_LAUNCH_ORIGIN: 'http://example.com' }, ['capabilities']],
    ['an origin with a path', { CUSTOM_LAUNCH_ORIGIN: 'https://example.com/api' }, ['capabilities']],
    ['a key flag', { CUSTOM_LAUNCH_ORIGIN: 'http://127.0.0.1:1' }, ['capabilities', '--api-key=x']],
    [
      'wait --until a status off the way',
      { CUSTOM_LAUNCH_ORIGIN: 'http://127.0.0.1:1', PLATFORM_API_KEY: 'k' },
      ['wait', '00000000-0000-4000-8000-000000000000', '--until', 'submitted'],
    ],
  ])('exits 2 for %s', async (_name, given, args) => {
    const run = await client(args, given);
    expect(run.code, run.stderr).toBe(2);
  });

  it('exits 3 for a request that is not a shared-lane request, sending nothing', async () => {
    const v4 = join(dir, 'v4.json');
    writeFileSync(
      v4,
      readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url)),
    );
    const from = proxy.seen.length;
    const run = await client(['preflight', v4], env());
    expect(run.code, run.stderr).toBe(3);
    expect(proxy.seen.length).toBe(from);
  });
});

describe('a deployment whose capabilities say unavailable', () => {
  it.each([
    ['preflight', (path: string) => ['preflight', path]],
    ['create', (path: string) => ['create', path, '--journal', join(dir, 'journals', 'closed.journal.json')]],
    ['status', () => ['status', '00000000-0000-4000-8000-000000000000']],
    ['wait', () => ['wait', '00000000-0000-4000-8000-000000000000', '--until', 'authorized']],
  ])('stops %s with exit 4 before any authenticated request', async (_name, args) => {
    const key = closed.key();
    const from = closedProxy.seen.length;
    const run = await client(args(requestPath), { CUSTOM_LAUNCH_ORIGIN: closedProxy.url, PLATFORM_API_KEY: key });
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain('deployment_not_configured');
    const seen = closedProxy.seen.slice(from);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([`GET ${lane}/capabilities`]);
    expect(keyedRequests(seen)).toEqual([]);
    expect(existsSync(join(dir, 'journals', 'closed.journal.json'))).toBe(false);
    expect(run.stdout + run.stderr).not.toContain(key);
  });
});
