import { appendFileSync, chmodSync, cpSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, createTestClient, createWalletClient, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chain4663 } from '../../src/chain/chain.ts';
import { exitCodes } from '../../src/cli/exit-codes.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import type { startDevnet } from '../../src/devnet/devnet.ts';
import { type CliRun, runCli, runCliOnTerminal, spawnCli } from '../support/cli.ts';
import { type DevnetServer, startDevnetServer } from '../support/devnet-server.ts';
import { auth, call } from '../support/http.ts';
import type { ServerProcess } from '../support/process.ts';
import { type LoopbackProxy, startProxy } from '../support/proxy.ts';

/**
 * The CLI run as a user runs it (the package bin, a child process) against a real server process on
 * a real devnet, through a small loopback proxy that injects 503, 429, redirects and held answers.
 */
const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const createPath = '/v4/chains/4663/custom-launches';
/** common.schema.json $defs.RequestId. */
const requestIdPattern = /^req_[0-9a-f]{32}$/;
/** The support line: requestId, HTTP status, UTC time (ISO 8601, Z) and code, nothing else (never a key). */
const supportLine =
  /support: requestId (req_[0-9a-f]{32}|none), HTTP ([0-9]{3}|none), ([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z), ([A-Z_]+)/;
/** The support line of a run's stderr, its UTC time checked to lie within [from, to]. */
const supportOf = (run: CliRun, from: number, to: number) => {
  const found = run.stderr.match(supportLine);
  expect(found, run.stderr).not.toBeNull();
  const [, requestId, status, at, code] = found as RegExpMatchArray;
  expect(Date.parse(at as string)).toBeGreaterThanOrEqual(from - 1000);
  expect(Date.parse(at as string)).toBeLessThanOrEqual(to + 1000);
  return { requestId: requestId as string, status, at: at as string, code };
};
const manifestPath = '/.well-known/platform-custom-launch-discovery.json';

describe('the custom-launch CLI end to end', () => {
  let dir: string;
  let devnet: Awaited<ReturnType<typeof startDevnet>>;
  let server: ServerProcess;
  let proxy: LoopbackProxy;
  let key: string;
  let env: Record<string, string>;
  const runs: CliRun[] = [];

  const cli = async (args: string[], extra: Record<string, string> = {}) => {
    const run = await runCli(args, { ...env, ...extra });
    runs.push(run);
    return run;
  };
  let packs = 0;
  const pack = async (project = 'examples/example-launch') => {
    // The folder does not exist before the first pack: pack creates it, as a user's `--out build/…` expects.
    const out = join(dir, 'requests', `request-${++packs}.json`);
    const run = await cli([
      'pack',
      project,
      '--out',
      out,
      '--chain-deployment',
      join(dir, 'chain-deployment.json'),
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    return { path: out, bytes: readFileSync(out) };
  };
  const creates = () => proxy.seen.filter((s) => s.method === 'POST' && s.path === createPath);
  /** Every launch of the key with this intent hash, over all pages of the list. */
  const launchesOf = async (launchIntentHash: string) => {
    const found: unknown[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${cursor}` : '';
      const r = await call(`${server.url}${createPath}?limit=25${query}`, { headers: auth(key) });
      expect(r.status, r.text).toBe(200);
      const page = r.json as { launches: Array<{ launchIntentHash: string }>; nextCursor: string | null };
      found.push(...page.launches.filter((l) => l.launchIntentHash === launchIntentHash));
      cursor = page.nextCursor;
    } while (cursor);
    return found;
  };

  let running: DevnetServer;
  beforeAll(async () => {
    // The proxy forwards to the server, which names the proxy as its public origin, as behind a real proxy.
    proxy = await startProxy(() => server.url);
    running = await startDevnetServer('cli', { PUBLIC_ORIGIN: proxy.url });
    ({ dir, devnet, server, key } = running);
    env = { PLATFORM_API_KEY: key, CUSTOM_LAUNCH_ORIGIN: proxy.url };
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await running?.stop();
  });

  it('packs, preflights, submits, waits to authorized and hands off a transaction the wallet can send', async () => {
    const request = await pack();
    const before = proxy.seen.length;

    const preflight = await cli(['preflight', request.path, '--json']);
    expect(preflight.code, preflight.stderr).toBe(0);
    expect(preflight.json.schemaVersion).toBe('platform.custom-launch-preflight.v2');
    // Discovery first, without a key; then the exact file bytes.
    const [discovery, sent] = proxy.seen.slice(before);
    expect(discovery).toMatchObject({ method: 'GET', path: manifestPath });
    expect(discovery?.headers.authorization).toBeUndefined();
    expect(sent?.path).toBe('/v4/chains/4663/custom-launches/preflight');
    expect(sent?.body.equals(request.bytes)).toBe(true);

    const journal = join(dir, 'journals', 'journal-happy.json');
    const submit = await cli(['submit', request.path, '--journal', journal, '--json']);
    expect(submit.code, submit.stderr).toBe(0);
    expect(submit.json.httpStatus).toBe(202);
    expect(statSync(journal).mode & 0o777).toBe(0o600);
    const launchId = submit.json.launch.launchId as string;
    expect(JSON.parse(readFileSync(journal, 'utf8')).outcome).toMatchObject({ state: 'accepted', launchId });
    // The next step named is the sources, then the wait (an exact replay from the journal prints it again).
    const replay = await cli(['submit', '--journal', journal]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain(
      `next: custom-launch sources ${launchId} --request <request.json> --project <project-folder>, then custom-launch wait ${launchId}`,
    );

    // The permit waits for the sources: wait says so and gives up at --max-wait, the launch still validating.
    const pending = await cli(['wait', launchId, '--interval', '0.2', '--max-wait', '2']);
    expect(pending.code, pending.stderr).toBe(6);
    expect(pending.stderr).toContain('waiting for authorized: validating · 0:0');
    expect(pending.stderr).toContain(
      `SOURCE_FILES_PENDING: the permit waits for the source files; deliver every sourceBundleManifest file (custom-launch sources ${launchId} --request <request.json> --project <project-folder>)`,
    );
    expect(pending.stderr).toContain('not authorized within --max-wait (last status validating)');
    const status = await cli(['status', launchId, '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json).toMatchObject({
      launchId,
      status: 'validating',
      walletTransaction: null,
      lifecycleQueue: { state: 'idle', lastErrorCode: 'SOURCE_FILES_PENDING' },
    });
    const sources = await cli(['sources', launchId, '--request', request.path, '--project', 'examples/example-launch']);
    expect(sources.code, sources.stderr).toBe(0);
    expect(sources.stdout).toContain('the service holds 3 of 3 manifest files');

    const wait = await cli(['wait', launchId, '--interval', '0.2', '--json']);
    expect(wait.code, wait.stderr).toBe(0);
    // `wait` ends at authorized or a later state; the tracker may already have opened the handoff.
    expect(['authorized', 'awaiting_wallet_signature']).toContain(wait.json.status);
    expect(wait.stderr).toMatch(
      /waiting for authorized: (received|validating|authorized|awaiting_wallet_signature) · 0:\d\d/,
    );
    // Polling used the launchId, pinned to version 4 and chain 4663.
    const polls = proxy.seen.filter((s) => s.method === 'GET' && s.path.startsWith(`${createPath}/`));
    expect(polls.length).toBeGreaterThan(0);
    for (const poll of polls) expect(poll.path).toBe(`${createPath}/${launchId}`);

    const handoff = await cli(['handoff', launchId, '--json']);
    expect(handoff.code, handoff.stderr).toBe(0);
    const tx = handoff.json.walletTransaction;
    expect(tx).toMatchObject({
      chainId: '4663',
      from: wallet,
      to: devnet.deployment.contracts.platformLaunchStampRouter.address.toLowerCase(),
      valueWei: '10000000000000000',
    });
    const human = await cli(['handoff', launchId]);
    expect(human.stdout).toContain('never signs or broadcasts');
    expect(human.stdout).toContain(tx.data);

    // Beside the transaction, read-only: the metadata the request bound, checked against projectMetadataHash.
    const packed = JSON.parse(request.bytes.toString('utf8'));
    const metadata = packed.projectMetadata;
    expect(handoff.json.boundMetadata).toEqual({
      projectMetadataHash: packed.projectMetadataHash,
      projectMetadata: metadata,
      checkedAgainst: 'resource',
    });
    for (const shown of [
      `name              ${metadata.name}`,
      `symbol            ${metadata.symbol}`,
      `metadata hash     ${packed.projectMetadataHash}`,
      `website           ${metadata.links.website}`,
      `X profile         ${metadata.links.x}`,
      `link              ${metadata.links.other[0].label}: ${metadata.links.other[0].uri}`,
      `image             ${metadata.image.mediaType}, ${metadata.image.sha256}`,
      `image URI         ${metadata.image.uri}`,
      `    ${metadata.description}`,
    ]) {
      expect(human.stdout).toContain(shown);
    }
    // Not a terminal (a pipe here): no escape sequence, so no inline image, whatever the terminal variables say.
    const piped = await cli(['handoff', launchId, '--journal', journal], { TERM_PROGRAM: 'iTerm.app' });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).not.toContain('\x1b');
    expect(piped.stdout).toContain(`image URI         ${metadata.image.uri}`);
    // The journal's exact bytes are the launch's: the metadata is checked against them too.
    const bound = await cli(['handoff', launchId, '--journal', journal, '--json']);
    expect(bound.code, bound.stderr).toBe(0);
    expect(bound.json.boundMetadata.checkedAgainst).toBe('request-bytes');
    // On a terminal that names an inline-image protocol, the image itself is shown; on any other, only its digest.
    const image = Buffer.from(packed.projectMetadataImageArtifact.bytesBase64, 'base64');
    const iterm = await runCliOnTerminal(['handoff', launchId, '--journal', journal], {
      ...env,
      TERM: 'xterm-256color',
      TERM_PROGRAM: 'iTerm.app',
    });
    expect(iterm.code, iterm.stdout).toBe(0);
    expect(iterm.stdout).toContain(
      `\x1b]1337;File=inline=1;size=${image.length};preserveAspectRatio=1:${image.toString('base64')}\x07`,
    );
    const kitty = await runCliOnTerminal(['handoff', launchId, '--request', request.path], {
      ...env,
      TERM: 'xterm-kitty',
    });
    expect(kitty.code, kitty.stdout).toBe(0);
    expect(kitty.stdout).toContain('\x1b_Ga=T,f=100,');
    const plainTerminals: Array<Record<string, string>> = [
      { TERM: 'xterm-256color' },
      { TERM: 'xterm-kitty', TMUX: '/tmp/tmux-1/default,1,0' },
    ];
    for (const plain of plainTerminals) {
      const run = await runCliOnTerminal(['handoff', launchId, '--journal', journal], { ...env, ...plain });
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout).not.toContain('\x1b]1337');
      expect(run.stdout).not.toContain('\x1b_G');
      expect(run.stdout).toContain(metadata.image.sha256);
    }
    runs.push(iterm, kitty);
    // Bytes of another request are not this launch's: refused, and nothing of the metadata is shown.
    const other = await pack();
    const wrong = await cli(['handoff', launchId, '--request', other.path]);
    expect(wrong.code).toBe(exitCodes.refused.code);
    expect(wrong.stderr).toContain(`are not those of launch ${launchId}`);
    expect(wrong.stdout).toBe('');
    const both = await cli(['handoff', launchId, '--request', other.path, '--journal', journal]);
    expect(both.code).toBe(exitCodes.usage.code);

    // The wallet (anvil account 0, not the CLI) signs and sends exactly what was handed off.
    const account = privateKeyToAccount(devnetOperatorKey);
    const chain = chain4663(devnet.deployment.rpcUrl);
    const walletClient = createWalletClient({ account, chain, transport: http(devnet.deployment.rpcUrl) });
    const hash = await walletClient.sendTransaction({
      to: tx.to as Hex,
      value: BigInt(tx.valueWei),
      data: tx.data as Hex,
      gas: BigInt(tx.gasLimit),
    });
    const reader = createPublicClient({ chain, transport: http(devnet.deployment.rpcUrl) });
    expect((await reader.waitForTransactionReceipt({ hash })).status).toBe('success');
  }, 120_000);

  it('delivers the source files of a launch, checks them locally first, and is safe to run again', async () => {
    const request = await pack();
    const submit = await cli([
      'submit',
      request.path,
      '--journal',
      join(dir, 'journals', 'journal-sources.json'),
      '--json',
    ]);
    expect(submit.code, submit.stderr).toBe(0);
    const launchId = submit.json.launch.launchId as string;
    const manifest = JSON.parse(request.bytes.toString('utf8')).sourceBundleManifest as {
      files: Array<{ path: string; sha256: string }>;
    };
    const puts = () => proxy.seen.filter((s) => s.method === 'PUT' && s.path.startsWith(`${createPath}/${launchId}/`));

    const args = ['sources', launchId, '--request', request.path, '--project', 'examples/example-launch'];
    const first = await cli([...args, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json.receipt).toMatchObject({ launchId, filesReceived: 3, filesExpected: 3 });
    expect(puts().map((p) => p.path)).toEqual(
      manifest.files.map((f) => `${createPath}/${launchId}/source-files/${f.sha256}`),
    );
    for (const [i, f] of manifest.files.entries()) {
      expect(puts()[i]?.headers['content-type']).toBe('application/octet-stream');
      expect(puts()[i]?.body.equals(readFileSync(join('examples/example-launch', f.path)))).toBe(true);
    }
    const again = await cli(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('already held (3/3 files');
    expect(again.stdout).toContain('the service holds 3 of 3 manifest files');

    // A source changed since packing can never verify: refused locally, nothing sent.
    const copy = join(dir, 'changed-project');
    cpSync('examples/example-launch', copy, { recursive: true });
    appendFileSync(join(copy, manifest.files[0]?.path as string), '\n// edited after packing\n');
    const sent = puts().length;
    const changed = await cli(['sources', launchId, '--request', request.path, '--project', copy]);
    expect(changed.code).toBe(3);
    expect(changed.stderr).toContain('SOURCE_FILE_CHANGED');
    expect(puts().length).toBe(sent);
    expect((await cli(['sources', launchId, '--request', request.path])).code).toBe(2);
  }, 120_000);

  it('resends the same bytes with the same key after a 503 and a 429, honoring Retry-After in seconds and as a date', async () => {
    const request = await pack();
    const retryAfterDate = new Date(Date.now() + 2000).toUTCString();
    proxy.plan('POST', createPath, {
      kind: 'answer',
      status: 503,
      headers: { 'Retry-After': '1' },
      body: JSON.stringify({
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: 'injected',
          requestId: 'req_00000000000000000000000000000503',
          retryable: true,
        },
      }),
    });
    proxy.plan('POST', createPath, {
      kind: 'answer',
      status: 429,
      headers: { 'Retry-After': retryAfterDate },
      body: JSON.stringify({
        error: {
          code: 'RATE_LIMITED',
          message: 'injected',
          requestId: 'req_00000000000000000000000000000429',
          retryable: true,
        },
      }),
    });
    const before = creates().length;
    const journal = join(dir, 'journal-retry.json');
    const run = await cli(['submit', request.path, '--journal', journal, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.httpStatus).toBe(202);
    expect(run.stderr).toMatch(/attempt 1: 503 SERVICE_UNAVAILABLE; resending the same bytes with the same key in 1 s/);
    expect(run.stderr).toMatch(/attempt 2: 429 RATE_LIMITED; resending the same bytes with the same key/);

    const sent = creates().slice(before);
    expect(sent).toHaveLength(3);
    const keyOf = JSON.parse(readFileSync(journal, 'utf8')).idempotencyKey as string;
    for (const s of sent) {
      expect(s.body.equals(request.bytes)).toBe(true);
      expect(s.headers['idempotency-key']).toBe(keyOf);
    }
    expect((sent[1]?.at ?? 0) - (sent[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    // The HTTP date is at whole-second precision: the resend waits until that second at the earliest.
    expect(sent[2]?.at ?? 0).toBeGreaterThanOrEqual(Date.parse(retryAfterDate) - 50);
    const recorded = JSON.parse(readFileSync(journal, 'utf8')).attempts.map(
      (a: { httpStatus?: number }) => a.httpStatus,
    );
    expect(recorded).toEqual([503, 429, 202]);
    expect(await launchesOf(JSON.parse(request.bytes.toString()).launchIntentHash)).toHaveLength(1);
  }, 60_000);

  it('does not resend after a 503 that is not retryable', async () => {
    const request = await pack();
    proxy.plan('POST', createPath, {
      kind: 'answer',
      status: 503,
      headers: { 'Retry-After': '1' },
      body: JSON.stringify({
        error: {
          code: 'CHAIN_NOT_CONFIGURED',
          message: 'injected',
          requestId: 'req_0000000000000000000000000000503f',
          retryable: false,
        },
      }),
    });
    const before = creates().length;
    const journal = join(dir, 'journal-503-final.json');
    const started = Date.now();
    const run = await cli(['submit', request.path, '--journal', journal]);
    expect(run.code).toBe(exitCodes.refused.code);
    expect(run.stderr).toContain('503 CHAIN_NOT_CONFIGURED');
    expect(supportOf(run, started, Date.now())).toMatchObject({
      requestId: 'req_0000000000000000000000000000503f',
      status: '503',
      code: 'CHAIN_NOT_CONFIGURED',
    });
    expect(creates().length - before).toBe(1);
    // Run again: the journal's refusal is quoted with the time of its answer, and nothing is sent.
    const recorded = JSON.parse(readFileSync(journal, 'utf8')).attempts.at(-1).at as string;
    const again = await cli(['submit', '--journal', journal]);
    expect(again.code).toBe(exitCodes.refused.code);
    expect(supportOf(again, started, Date.now())).toEqual({
      requestId: 'req_0000000000000000000000000000503f',
      status: '503',
      at: recorded,
      code: 'CHAIN_NOT_CONFIGURED',
    });
    expect(creates().length - before).toBe(1);
  }, 60_000);

  it('a 500 is unresolved and quotes its support line; the launch may exist', async () => {
    const request = await pack();
    proxy.plan('POST', createPath, {
      kind: 'answer',
      status: 500,
      body: JSON.stringify({
        error: {
          code: 'INTERNAL',
          message: 'injected',
          requestId: 'req_00000000000000000000000000000500',
          retryable: false,
        },
      }),
    });
    const started = Date.now();
    const run = await cli(['submit', request.path, '--journal', join(dir, 'journal-500.json')]);
    expect(run.code).toBe(exitCodes.unresolved.code);
    expect(run.stderr).toContain('the launch may exist');
    expect(supportOf(run, started, Date.now())).toMatchObject({
      requestId: 'req_00000000000000000000000000000500',
      status: '500',
      code: 'INTERNAL',
    });
  }, 60_000);

  it('resends after a timeout, and the server answers the resend as an exact replay of the one launch', async () => {
    const request = await pack();
    let firstStatus = 0;
    proxy.plan('POST', createPath, { kind: 'forward-and-hold', onServerAnswer: (status) => (firstStatus = status) });
    const run = await cli([
      'submit',
      request.path,
      '--journal',
      join(dir, 'journal-timeout.json'),
      '--timeout-ms',
      '2000',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(firstStatus).toBe(202);
    expect(run.json.httpStatus).toBe(200);
    expect(run.stderr).toMatch(/no answer within 2000 ms; resending the same bytes with the same key/);
    expect(await launchesOf(JSON.parse(request.bytes.toString()).launchIntentHash)).toHaveLength(1);
  }, 60_000);

  it('resumes a killed client from its journal without creating a second launch', async () => {
    const request = await pack();
    const journal = join(dir, 'journal-killed.json');
    let answered!: (value: { status: number; body: string }) => void;
    const serverAnswer = new Promise<{ status: number; body: string }>((resolve) => (answered = resolve));
    proxy.plan('POST', createPath, {
      kind: 'forward-and-hold',
      onServerAnswer: (status, body) => answered({ status, body }),
    });
    const before = creates().length;
    const client = spawnCli(['submit', request.path, '--journal', journal], env);
    const first = await serverAnswer;
    expect(first.status).toBe(202);
    client.child.kill('SIGKILL');
    const killed = await client.done;
    expect(killed.signal).toBe('SIGKILL');
    // The journal was durable before the send; the client died before it learned the outcome.
    expect(JSON.parse(readFileSync(journal, 'utf8')).outcome.state).toBe('pending');

    const resumed = await cli(['submit', '--journal', journal, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('resuming');
    expect(resumed.json.httpStatus).toBe(200);
    expect(resumed.json.launch.launchId).toBe(JSON.parse(first.body).launchId);
    const sent = creates().slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.body.equals(sent[0]?.body ?? Buffer.alloc(0))).toBe(true);
    expect(sent[1]?.headers['idempotency-key']).toBe(sent[0]?.headers['idempotency-key']);
    expect(await launchesOf(JSON.parse(request.bytes.toString()).launchIntentHash)).toHaveLength(1);
  }, 60_000);

  it('keeps a journal bound to its bytes, its origin and its credential', async () => {
    const [a, b] = [await pack(), await pack()];
    const journal = join(dir, 'journal-bound.json');
    expect((await cli(['submit', a.path, '--journal', journal])).code).toBe(0);
    const before = proxy.seen.length;
    const other = await cli(['submit', b.path, '--journal', journal]);
    expect(other.code).toBe(exitCodes.usage.code);
    expect(other.stderr).toContain('binds other bytes');
    const otherKey = await cli(['submit', '--journal', journal], { PLATFORM_API_KEY: `${key.slice(0, -2)}zz` });
    expect(otherKey.code).toBe(exitCodes.usage.code);
    expect(otherKey.stderr).toContain('started with another API key');
    const otherOrigin = await cli(['submit', '--journal', journal], { CUSTOM_LAUNCH_ORIGIN: server.url });
    expect(otherOrigin.code).toBe(exitCodes.usage.code);
    expect(otherOrigin.stderr).toContain(`binds the origin ${proxy.url}`);
    chmodSync(journal, 0o644);
    const loose = await cli(['submit', '--journal', journal]);
    expect(loose.code).toBe(exitCodes.usage.code);
    expect(loose.stderr).toContain('must be 0600');
    expect(proxy.seen.length).toBe(before);
  }, 60_000);

  it.each([
    [
      'publicWrites false on the chain entry',
      (m: any) => ({ ...m, chains: { 4663: { ...m.chains['4663'], publicWrites: false } } }),
    ],
    [
      'releaseReady false on the version entry',
      (m: any) => ({ ...m, versions: { v4: { ...m.versions.v4, releaseReady: false } } }),
    ],
    ['a missing chain entry', (m: any) => ({ ...m, chains: {} })],
    [
      'pending-public-discovery-promotion',
      (m: any) => ({ ...m, versions: { v4: { ...m.versions.v4, state: 'pending-public-discovery-promotion' } } }),
    ],
  ])(
    'stops before any authenticated request when the discovery manifest reports %s',
    async (_name, edit) => {
      const request = await pack();
      for (const command of [
        ['preflight', request.path],
        ['submit', request.path, '--journal', join(dir, `journal-stop-${packs}.json`)],
      ]) {
        proxy.plan('GET', manifestPath, { kind: 'rewrite', edit });
        const before = proxy.seen.length;
        const run = await cli(command);
        expect(run.code, run.stderr).toBe(exitCodes.discoveryStop.code);
        const after = proxy.seen.slice(before);
        expect(after.map((s) => s.path)).toEqual([manifestPath]);
        expect(after.some((s) => s.headers.authorization !== undefined)).toBe(false);
      }
    },
    60_000,
  );

  it('refuses a redirect: the key never follows it', async () => {
    const request = await pack();
    const elsewhere = await startProxy(() => server.url);
    try {
      proxy.plan('POST', createPath, {
        kind: 'answer',
        status: 307,
        headers: { Location: `${elsewhere.url}${createPath}` },
      });
      const run = await cli(['submit', request.path, '--journal', join(dir, 'journal-redirect.json')]);
      expect(run.code).toBe(exitCodes.unresolved.code);
      expect(run.stderr).toContain('redirects are refused');
      expect(elsewhere.seen).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  }, 60_000);

  it('checks the image locally and sends nothing for a JPEG, WebP or animated GIF', async () => {
    const project = join(dir, 'jpeg-project');
    cpSync('examples/example-launch', project, { recursive: true });
    writeFileSync(join(project, 'logo.png'), Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex'));
    const before = proxy.seen.length;
    const packed = await cli([
      'pack',
      project,
      '--out',
      join(dir, 'jpeg.json'),
      '--chain-deployment',
      join(dir, 'chain-deployment.json'),
    ]);
    expect(packed.code).toBe(exitCodes.localCheck.code);
    expect(packed.stderr).toContain('IMAGE_JPEG_UNSUPPORTED');

    // A request file whose embedded image was swapped after packing is refused by preflight and submit alike.
    const request = JSON.parse((await pack()).bytes.toString());
    const animatedGif = Buffer.concat([
      Buffer.from('GIF89a', 'ascii'),
      Buffer.from([1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff]),
      ...[0, 1].map(() =>
        Buffer.from([0x21, 0xf9, 4, 0, 10, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]),
      ),
      Buffer.from([0x3b]),
    ]);
    const webp = Buffer.concat([
      Buffer.from('RIFF', 'ascii'),
      Buffer.from([26, 0, 0, 0]),
      Buffer.from('WEBPVP8 ', 'ascii'),
      Buffer.alloc(18),
    ]);
    for (const [name, image, mediaType, code] of [
      ['gif', animatedGif, 'image/gif', 'IMAGE_GIF_ANIMATED'],
      ['webp', webp, 'image/png', 'IMAGE_WEBP_UNSUPPORTED'],
    ] as const) {
      const file = join(dir, `swapped-${name}.json`);
      writeFileSync(
        file,
        JSON.stringify({
          ...request,
          projectMetadataImageArtifact: {
            ...request.projectMetadataImageArtifact,
            mediaType,
            bytesBase64: image.toString('base64'),
          },
        }),
      );
      for (const command of [
        ['preflight', file],
        ['submit', file, '--journal', join(dir, `journal-${name}.json`)],
      ]) {
        const run = await cli(command);
        expect(run.code, run.stderr).toBe(exitCodes.localCheck.code);
        expect(run.stderr).toContain(code);
      }
    }
    expect(proxy.seen.length).toBe(before);
  }, 60_000);

  it('reads the key only from PLATFORM_API_KEY and sends it only to an allowed origin', async () => {
    const request = await pack();
    const before = proxy.seen.length;
    const flag = await cli(['preflight', request.path, '--api-key', key]);
    expect(flag.code).toBe(exitCodes.usage.code);
    expect(flag.stderr).toContain('only from PLATFORM_API_KEY');
    const missing = await cli(['preflight', request.path], { PLATFORM_API_KEY: '' });
    expect(missing.code).toBe(exitCodes.usage.code);
    expect(missing.stderr).toContain('set PLATFORM_API_KEY');
    for (const origin of ['http://example.com', 'ftp://127.0.0.1', `${proxy.url}/api`]) {
      const run = await cli(['preflight', request.path], { CUSTOM_LAUNCH_ORIGIN: origin });
      expect(run.code, origin).toBe(exitCodes.usage.code);
    }
    expect(proxy.seen.length).toBe(before);
    const requestId = await cli(['status', 'req_0123456789abcdef']);
    expect(requestId.code).toBe(exitCodes.usage.code);
    expect(requestId.stderr).toContain('never a requestId');
  }, 60_000);

  it('decides an expired permit: status shows the deadline, reissue binds a new transaction, a rerun replays, decline is refused', async () => {
    // The chain's clock will run an hour ahead of the server's: a frozen-profile (4.0.0) launch needs no native/USD
    // quote (which the server would then see dated in the future) for its new permit.
    const frozen = join(dir, 'frozen-project');
    cpSync('examples/example-launch', frozen, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(frozen, 'launch.json'), 'utf8'));
    writeFileSync(
      join(frozen, 'launch.json'),
      JSON.stringify({ ...manifest, profile: '4.0.0', funding: { walletTransactionValueWei: '0' } }),
    );
    const request = await pack(frozen);
    const submit = await cli([
      'submit',
      request.path,
      '--journal',
      join(dir, 'journals', 'journal-reissue.json'),
      '--json',
    ]);
    expect(submit.code, submit.stderr).toBe(0);
    const launchId = submit.json.launch.launchId as string;
    const sources = await cli(['sources', launchId, '--request', request.path, '--project', frozen]);
    expect(sources.code, sources.stderr).toBe(0);
    const handed = await cli(['wait', launchId, '--interval', '0.2', '--max-wait', '40', '--json']);
    expect(handed.code, handed.stderr).toBe(0);
    const first = handed.json.walletTransaction as { data: string; permitExpiresAt: string };

    // A permit that was never expired has no reissue to decide: refused locally, nothing sent.
    const early = await cli(['reissue', launchId, '--decision', 'reissue']);
    expect(early.code).toBe(exitCodes.localCheck.code);
    expect(early.stderr).toContain('PERMIT_REISSUE_NOT_AWAITED');

    const testClient = createTestClient({
      mode: 'anvil',
      chain: chain4663(devnet.deployment.rpcUrl),
      transport: http(devnet.deployment.rpcUrl),
    });
    await testClient.increaseTime({ seconds: 3601 });
    await testClient.mine({ blocks: 1 });
    let waiting: CliRun;
    const deadline = Date.now() + 30_000;
    do {
      await new Promise((resolve) => setTimeout(resolve, 200));
      waiting = await cli(['status', launchId, '--json']);
    } while (waiting.json?.permitReissue?.status !== 'awaiting_decision' && Date.now() < deadline);
    expect(waiting.json).toMatchObject({ status: 'wallet_action_required', walletTransaction: null });
    const { decisionDeadlineAt, expiredPermitExpiresAt } = waiting.json.permitReissue;
    expect(expiredPermitExpiresAt).toBe(first.permitExpiresAt);
    const human = await cli(['status', launchId]);
    expect(human.stdout).toContain(
      `decide by ${decisionDeadlineAt}: custom-launch reissue ${launchId} --decision reissue|decline`,
    );
    // No transaction is offered while the decision is awaited: the expired one can only revert.
    const noHandoff = await cli(['handoff', launchId]);
    expect(noHandoff.code).toBe(exitCodes.needsAction.code);
    expect(noHandoff.stderr).toContain(`decide by ${decisionDeadlineAt}: custom-launch reissue ${launchId}`);

    const path = `${createPath}/${launchId}/permit-reissue-disposition`;
    const decisions = () => proxy.seen.filter((x) => x.method === 'POST' && x.path === path);
    const decided = await cli(['reissue', launchId, '--decision', 'reissue', '--json']);
    expect(decided.code, decided.stderr).toBe(0);
    expect(decided.json).toMatchObject({ launchId, decision: 'reissue', disposition: 'reissue_scheduled' });
    // Run again (as after an interruption): the same bytes with the same key, answered by the service's replay.
    const again = await cli(['reissue', launchId, '--decision', 'reissue', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toEqual(decided.json);
    const [one, two] = decisions();
    expect(one?.headers['idempotency-key']).toBe(`permit-reissue:${launchId}:reissue:${expiredPermitExpiresAt}`);
    expect(two?.headers['idempotency-key']).toBe(one?.headers['idempotency-key']);
    expect(two?.body.equals(one?.body as Buffer)).toBe(true);
    // The other answer, once decided, is the service's refusal.
    const decline = await cli(['reissue', launchId, '--decision', 'decline']);
    expect(decline.code).toBe(exitCodes.refused.code);
    expect(decline.stderr).toContain('409 PERMIT_REISSUE_NOT_AWAITED');

    const reissued = await cli(['wait', launchId, '--interval', '0.2', '--max-wait', '40', '--json']);
    const queue = async () => JSON.stringify((await cli(['status', launchId, '--json'])).json?.lifecycleQueue);
    expect(reissued.code, `${reissued.stderr} ${reissued.code === 0 ? '' : await queue()}`).toBe(0);
    expect(reissued.json.permitReissue).toMatchObject({ status: 'reissued', reissueCount: 1 });
    expect(reissued.json.walletTransaction.data).not.toBe(first.data);
  }, 120_000);

  it('prints coverage and a status, and ends on the documented codes for a missing launch', async () => {
    const coverage = await cli(['coverage', '--json']);
    expect(coverage.code, coverage.stderr).toBe(0);
    expect(coverage.json.schemaVersion).toBe('platform.l2-launch-coverage.v1');
    const started = Date.now();
    const missing = await cli(['status', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(exitCodes.refused.code);
    expect(missing.stderr).toContain('404 NOT_FOUND');
    const support = supportOf(missing, started, Date.now());
    expect(support).toMatchObject({ status: '404', code: 'NOT_FOUND' });
    expect(support.requestId).toMatch(requestIdPattern);
  }, 60_000);

  it('refuses a real requestId given as a launchId before any request (it is no UUID by design)', async () => {
    const request = await pack();
    // A real request id: the one a refusal's support line quoted, as a user would copy it.
    const refusal = await cli(['status', '00000000-0000-4000-8000-000000000001']);
    expect(refusal.code).toBe(exitCodes.refused.code);
    const { requestId } = supportOf(refusal, 0, Date.now());
    expect(requestId).toMatch(requestIdPattern);
    const before = proxy.seen.length;
    for (const args of [
      ['status', requestId],
      ['wait', requestId],
      ['handoff', requestId],
      ['reissue', requestId, '--decision', 'reissue'],
      ['sources', requestId, '--request', request.path, '--project', 'examples/example-launch'],
    ]) {
      const run = await cli(args);
      expect(run.code, args[0]).toBe(exitCodes.usage.code);
      expect(run.stderr).toContain(
        `"${requestId}" is a requestId (the per-call support correlation id), not a launchId`,
      );
      expect(run.stderr).toContain('nothing was sent');
    }
    // The server was asked nothing: not the launch, not even the discovery manifest.
    expect(proxy.seen.slice(before)).toEqual([]);
  }, 120_000);

  it('never printed the API key', () => {
    expect(runs.length).toBeGreaterThan(20);
    for (const run of runs) {
      expect(run.stdout).not.toContain(key);
      expect(run.stderr).not.toContain(key);
    }
  });
});
