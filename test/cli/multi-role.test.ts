import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { exitCodes } from '../../src/cli/exit-codes.ts';
import { devnetServerEnv } from '../../src/devnet/devnet.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import { openDatabase } from '../../src/store/db.ts';
import { type CliRun, runCli } from '../support/cli.ts';
import { type DevnetServer, devnetWallet, startDevnetServer } from '../support/devnet-server.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';
import { type LoopbackProxy, startProxy } from '../support/proxy.ts';

/**
 * `custom-launch multi-role …` run as a user runs it (the CLI in a child process) against one real server process
 * bound to the chain-4663 devnet, through the loopback proxy that records every request and rewrites answers where a
 * test needs a status the server has not reached. A second server process on the same devnet, without the lane's
 * deployment, reports the lane unavailable.
 */

const lane = '/v4/chains/4663/multi-role-custom-launches';
const manifestPath = '/.well-known/platform-custom-launch-discovery.json';
const project = 'examples/multi-role-launch';
const slow = 180_000;

let running: DevnetServer;
let proxy: LoopbackProxy;
let closed: ServerProcess;
let closedProxy: LoopbackProxy;
let closedKey: string;
let env: Record<string, string>;
let requestPath: string;
let launchId: string;

const cli = (args: string[], extra: Record<string, string> = {}): Promise<CliRun> => runCli(args, { ...env, ...extra });

beforeAll(async () => {
  proxy = await startProxy(() => running.server.url);
  running = await startDevnetServer('mr-cli', { PUBLIC_ORIGIN: proxy.url });
  env = { PLATFORM_API_KEY: running.key, CUSTOM_LAUNCH_ORIGIN: proxy.url };
  closedProxy = await startProxy(() => closed.url);
  const databasePath = join(running.dir, 'closed.sqlite');
  const db = openDatabase(databasePath);
  closedKey = mintWalletKey(db, {
    wallet: devnetWallet,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    chains: ['4663'],
  }).apiKey;
  db.close();
  closed = await startServerProcess({
    ...devnetServerEnv(running.devnet.deployment, running.dir),
    DATABASE_PATH: databasePath,
    MULTI_ROLE_DEPLOYMENT_PATH: '',
    PUBLIC_ORIGIN: closedProxy.url,
  });
  requestPath = join(running.dir, 'requests', 'mr-request.json');
}, slow);

afterAll(async () => {
  await proxy?.close();
  await closedProxy?.close();
  await closed?.stop();
  await running?.stop();
});

describe('custom-launch multi-role against the devnet server', () => {
  it(
    'packs the example for the lane read from the capabilities without a key',
    async () => {
      const from = proxy.seen.length;
      const run = await cli([
        'multi-role',
        'pack',
        project,
        '--launch-wallet',
        devnetWallet,
        '--out',
        requestPath,
        '--json',
      ]);
      expect(run.code, run.stderr).toBe(0);
      const request = JSON.parse(readFileSync(requestPath, 'utf8'));
      expect(schemaProblems('multi-role-create-request.v2.schema.json', request)).toEqual([]);
      expect(request.launchWallet).toBe(devnetWallet);
      expect(run.json).toMatchObject({ out: requestPath, launchIntentHash: request.launchIntentHash });
      expect(proxy.seen.slice(from).map((s) => [s.path, s.headers.authorization])).toEqual([
        [`${lane}/capabilities`, undefined],
      ]);
    },
    slow,
  );

  it(
    'preflights the exact bytes after discovery and the lane readiness, both read without a key',
    async () => {
      const from = proxy.seen.length;
      const run = await cli(['multi-role', 'preflight', requestPath, '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(schemaProblems('multi-role-preflight.v2.schema.json', run.json)).toEqual([]);
      const [discovery, caps, sent] = proxy.seen.slice(from);
      expect(discovery?.path).toBe(manifestPath);
      expect(caps?.path).toBe(`${lane}/capabilities`);
      expect([discovery?.headers.authorization, caps?.headers.authorization]).toEqual([undefined, undefined]);
      expect(sent).toMatchObject({ method: 'POST', path: `${lane}/preflight` });
      expect(sent?.body.equals(readFileSync(requestPath))).toBe(true);
    },
    slow,
  );

  it('submits through a 0600 lane journal; the same journal replays with 200 and the same launchId', async () => {
    const journal = join(running.dir, 'journals', 'mr.journal.json');
    const run = await cli(['multi-role', 'submit', requestPath, '--journal', journal, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.httpStatus).toBe(202);
    launchId = run.json.launch.launchId;
    expect(statSync(journal).mode & 0o777).toBe(0o600);
    const doc = JSON.parse(readFileSync(journal, 'utf8'));
    expect(schemaProblems('multi-role-submit-journal.v1.schema.json', doc)).toEqual([]);
    expect(doc.outcome).toMatchObject({ state: 'accepted', launchId });
    const replay = await cli(['multi-role', 'submit', '--journal', journal, '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.json).toMatchObject({ httpStatus: 200, launch: { launchId } });
    // A V3 journal command never resumes the lane's journal.
    const v3 = await cli(['v3', 'submit', '--journal', journal]);
    expect(v3.code, v3.stderr).toBe(exitCodes.usage.code);
  });

  it('reads the launch pinned to the lane and chain 4663', async () => {
    const run = await cli(['multi-role', 'status', launchId, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.launchId).toBe(launchId);
    expect(schemaProblems('multi-role-resource.v2.schema.json', run.json)).toEqual([]);
  });

  it('refuses an answer that is another launch (exit 5)', async () => {
    proxy.plan('GET', `${lane}/${launchId}`, {
      kind: 'rewrite',
      edit: (json) => ({ ...json, launchId: '00000000-0000-4000-8000-000000000000' }),
    });
    const run = await cli(['multi-role', 'status', launchId]);
    expect(run.code, run.stderr).toBe(exitCodes.refused.code);
    expect(run.stderr).toContain('PINNED_RESOURCE_MISMATCH');
  });

  it.each([
    [
      'needs_evidence',
      { status: 'needs_evidence', findingCodes: ['evidence_required'], missingVerificationRequirements: ['economics'] },
      exitCodes.needsAction.code,
      'missing economics',
    ],
    [
      'action_required',
      { status: 'action_required', findingCodes: ['MULTI_ROLE_HOOK_ROLE_EMPTY'] },
      exitCodes.needsAction.code,
      'MULTI_ROLE_HOOK_ROLE_EMPTY',
    ],
    [
      'submitted, past authorized',
      { status: 'submitted' },
      exitCodes.ok.code,
      `next: custom-launch multi-role handoff`,
    ],
  ])('wait --until authorized ends at %s', async (_name, edit, code, text) => {
    proxy.plan('GET', `${lane}/${launchId}`, { kind: 'rewrite', edit: (json) => ({ ...json, ...edit }) });
    const run = await cli(['multi-role', 'wait', launchId, '--interval', '0.2', '--max-wait', '5']);
    expect(run.code, run.stderr).toBe(code);
    expect(run.stdout + run.stderr).toContain(text);
  });

  it('handoff prints the exact wallet transaction and its eth_sendTransaction parameter', async () => {
    const tx = { chainId: '4663', from: devnetWallet, to: `0x${'12'.repeat(20)}`, valueWei: '1000', data: '0xabcdef' };
    proxy.plan('GET', `${lane}/${launchId}`, {
      kind: 'rewrite',
      edit: (json) => ({ ...json, status: 'authorized', walletTransaction: tx }),
    });
    const run = await cli(['multi-role', 'handoff', launchId, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.walletTransaction).toEqual(tx);
    expect(run.json.walletRequest).toEqual({
      chainId: '0x1237',
      from: tx.from,
      to: tx.to,
      value: '0x3e8',
      data: tx.data,
    });
  });

  it('handoff without a wallet transaction says to wait for authorized (exit 7)', async () => {
    proxy.plan('GET', `${lane}/${launchId}`, {
      kind: 'rewrite',
      edit: (json) => ({ ...json, status: 'validating', walletTransaction: null }),
    });
    const run = await cli(['multi-role', 'handoff', launchId]);
    expect(run.code, run.stderr).toBe(exitCodes.needsAction.code);
    expect(run.stderr).toContain('wait for authorized');
  });

  it.each([
    ['an unknown subcommand', ['multi-role', 'cancel', '00000000-0000-4000-8000-000000000000']],
    ['pack without --launch-wallet', ['multi-role', 'pack', project, '--out', 'r.json']],
    ['a requestId for a launchId', ['multi-role', 'status', `req_${'0'.repeat(32)}`]],
    ['a v3-only flag', ['multi-role', 'status', '00000000-0000-4000-8000-000000000000', '--signature', '0x00']],
  ])('exits 2 for %s, sending nothing', async (_name, args) => {
    const from = proxy.seen.length;
    const run = await cli(args);
    expect(run.code, run.stderr).toBe(exitCodes.usage.code);
    expect(proxy.seen.length).toBe(from);
  });
});

describe('custom-launch multi-role checks a request file before anything is sent', () => {
  const variant = (name: string, edit: (request: any) => void) => {
    const request = JSON.parse(readFileSync(requestPath, 'utf8'));
    edit(request);
    const path = join(running.dir, 'requests', `${name}.json`);
    writeFileSync(path, JSON.stringify(request));
    return path;
  };
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);

  it.each([
    ['a V4 request', () => 'spec/examples/custom-launch-create-request.v4.json', 'REQUEST_INVALID'],
    [
      'not JSON',
      () => {
        const path = join(running.dir, 'requests', 'not-json.json');
        writeFileSync(path, '{"schemaVersion":');
        return path;
      },
      'REQUEST_UNREADABLE',
    ],
    [
      'a JPEG declared as PNG',
      () =>
        variant('jpeg', (r) => {
          r.projectMetadata.image.contentBase64 = jpeg.toString('base64');
        }),
      'IMAGE_REFUSED',
    ],
    [
      'an unbound launchIntentHash',
      () =>
        variant('unbound', (r) => {
          r.nonce = '2';
        }),
      'launchIntentHash',
    ],
  ])('preflight and submit refuse %s with exit 3', async (name, path, text) => {
    const file = path();
    const from = proxy.seen.length;
    for (const args of [
      ['multi-role', 'preflight', file],
      [
        'multi-role',
        'submit',
        file,
        '--journal',
        join(running.dir, 'journals', `local-${name.replaceAll(' ', '-')}.json`),
      ],
    ]) {
      const run = await cli(args);
      expect(run.code, run.stderr).toBe(exitCodes.localCheck.code);
      expect(run.stderr).toContain(text);
    }
    expect(proxy.seen.length).toBe(from);
  });
});

describe('custom-launch multi-role against a deployment without the lane', () => {
  it.each([
    ['preflight', () => ['multi-role', 'preflight', requestPath]],
    ['submit', () => ['multi-role', 'submit', requestPath, '--journal', join(running.dir, 'journals', 'closed.json')]],
  ])('%s stops with exit 4 before any authenticated request', async (_name, args) => {
    const from = closedProxy.seen.length;
    const run = await cli(args(), { PLATFORM_API_KEY: closedKey, CUSTOM_LAUNCH_ORIGIN: closedProxy.url });
    expect(run.code, run.stderr).toBe(exitCodes.discoveryStop.code);
    expect(run.stderr).toContain('deployment_not_configured');
    const seen = closedProxy.seen.slice(from);
    expect(seen.map((s) => s.path)).toEqual([manifestPath, `${lane}/capabilities`]);
    expect(seen.filter((s) => s.headers.authorization !== undefined)).toEqual([]);
  });
});
