import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, createPublicClient, createTestClient, createWalletClient, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomLaunchCreateRequestV3, CustomLaunchFundingTypedDataV3 } from '../../generated/types/service.ts';
import { BaseLaunchChain } from '../../src/chain/base-launch-chain.ts';
import { chain1 } from '../../src/chain/chain.ts';
import { PermitAttester } from '../../src/chain/launch-permit.ts';
import { exitCodes } from '../../src/cli/exit-codes.ts';
import { helpText } from '../../src/cli/main.ts';
import { loadConfig } from '../../src/config.ts';
import { baseLaunchIntentHashOf } from '../../src/core/base-graph.ts';
import {
  fundingAuthorizationNonceOf,
  receiveWithAuthorizationTypedData,
} from '../../src/core/funding-authorization.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import { type BaseDevnetDeployment, baseDevnetServerEnv, startBaseDevnet } from '../../src/devnet/base-devnet.ts';
import { devnetPermitAttesterKey } from '../../src/devnet/devnet.ts';
import {
  type BaseLaunchFields,
  type BaseLaunchStatus,
  baseLaunchRow,
  moveBaseLaunch,
} from '../../src/domain/base-layer/launch-store.ts';
import { BaseLayerLifecycleWorker } from '../../src/domain/base-layer/lifecycle-worker.ts';
import { pinnedBaseLaunchRules } from '../../src/domain/base-layer/pinned-rules.ts';
import { BaseLayerTracker } from '../../src/domain/base-layer/tracker.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import { type CliRun, runCli } from '../support/cli.ts';
import { auth, call } from '../support/http.ts';
import { testLifecycle } from '../support/lifecycle.ts';
import { type LoopbackProxy, startProxy } from '../support/proxy.ts';
import { startServer, type TestServer } from '../support/server.ts';

/**
 * `custom-launch v3 …` run as a user runs it (the CLI in a child process) against a real server (real HTTP, a fresh
 * SQLite file) bound to a real chain-1 devnet, through the loopback proxy of the V4 CLI tests, which records every
 * request and injects the 503 of the journal's replay rule. The server runs no lifecycle worker, so a launch stays
 * where the test puts it (as the lifecycle would).
 */

const account0 = privateKeyToAccount(devnetOperatorKey);
const devnetPort = 23417;
const project = 'examples/v3-launch';
const slow = 180_000;

let dir: string;
let devnet: Awaited<ReturnType<typeof startBaseDevnet>>;
let deployment: BaseDevnetDeployment;
let server: TestServer;
let proxy: LoopbackProxy;
let key: string;
let env: Record<string, string>;
let packed: { path: string; bytes: Buffer; request: CustomLaunchCreateRequestV3 };

const cli = (args: string[], extra: Record<string, string> = {}): Promise<CliRun> => runCli(args, { ...env, ...extra });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'v3-cli-'));
  devnet = await startBaseDevnet({ port: devnetPort, outputDir: dir });
  deployment = devnet.deployment;
  server = await startServer({
    baseDeploymentPath: join(dir, 'base-deployment.json'),
    chain1RpcUrls: [deployment.rpcUrl, deployment.rpcUrl],
  });
  key = server.key({ wallet: account0.address, chains: ['1'] });
  proxy = await startProxy(() => server.url);
  env = { PLATFORM_API_KEY: key, CUSTOM_LAUNCH_ORIGIN: proxy.url };
  const path = join(dir, 'requests', 'v3-request.json');
  const run = await cli(['v3', 'pack', project, '--launch-wallet', account0.address, '--out', path, '--json']);
  expect(run.code, run.stderr).toBe(0);
  const bytes = readFileSync(path);
  packed = { path, bytes, request: JSON.parse(bytes.toString('utf8')) };
}, slow);

afterAll(async () => {
  await proxy?.close();
  await server?.close();
  await devnet?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Moves a launch straight to `to` (as the lifecycle would) and sets `fields`. */
function put(launchId: string, to: BaseLaunchStatus, fields: BaseLaunchFields = {}): void {
  const from = baseLaunchRow(server.db, launchId)?.status as BaseLaunchStatus;
  expect(moveBaseLaunch(server.db, { launchId, from, to, worker: 'test', at: new Date().toISOString() }, fields)).toBe(
    true,
  );
}

/** The launch resource as the service answers it to the key. */
async function resource(launchId: string): Promise<any> {
  const reply = await call(`${server.url}/v3/custom-launches/${launchId}`, { headers: auth(key) });
  expect(reply.status, reply.text).toBe(200);
  return reply.json;
}

let nonce = 1000;
/** A fresh launch of the packed project (a new nonce, so new bytes), created through the CLI's submit. */
async function submitted(): Promise<string> {
  const path = join(dir, 'requests', `v3-request-${++nonce}.json`);
  const run = await cli([
    'v3',
    'pack',
    project,
    '--launch-wallet',
    account0.address,
    '--nonce',
    String(nonce),
    '--out',
    path,
  ]);
  expect(run.code, run.stderr).toBe(0);
  const journal = join(dir, 'journals', `v3-${nonce}.json`);
  const submit = await cli(['v3', 'submit', path, '--journal', journal, '--json']);
  expect(submit.code, submit.stderr).toBe(0);
  return submit.json.launch.launchId as string;
}

/** An eip3009 launch at awaiting_funding_authorization with typed data for account 0, as the lifecycle offers it. */
async function awaitingSignature(): Promise<{ launchId: string; typedData: CustomLaunchFundingTypedDataV3 }> {
  const launchId = await submitted();
  const row = baseLaunchRow(server.db, launchId);
  const request = JSON.parse(String(row?.request_bytes)) as CustomLaunchCreateRequestV3;
  const funding = request.funding as Extract<CustomLaunchCreateRequestV3['funding'], { mode: 'eip3009' }>;
  const typedData = receiveWithAuthorizationTypedData({
    domain: { name: 'Devnet USD', version: '2', verifyingContract: funding.token },
    from: request.launchWallet,
    to: deployment.contracts.launchRouter.address,
    value: funding.amount,
    validAfter: 0n,
    validBefore: BigInt(Math.floor(Date.now() / 1000) + 3600),
    nonce: fundingAuthorizationNonceOf(launchId, request.launchIntentHash),
  });
  const stored = JSON.parse(row?.funding_authorization_json ?? 'null');
  put(launchId, 'awaiting_funding_authorization', {
    funding_authorization_json: JSON.stringify({ ...stored, typedData }),
  });
  return { launchId, typedData };
}

/** What the controller's wallet does with the typed data (eth_signTypedData_v4), here with test account 0's key. */
const walletSigns = (typedData: CustomLaunchFundingTypedDataV3) =>
  account0.signTypedData({
    domain: { ...typedData.domain, verifyingContract: typedData.domain.verifyingContract as Address },
    types: { ReceiveWithAuthorization: typedData.types.ReceiveWithAuthorization },
    primaryType: 'ReceiveWithAuthorization',
    message: {
      from: typedData.message.from as Address,
      to: typedData.message.to as Address,
      value: BigInt(typedData.message.value),
      validAfter: BigInt(typedData.message.validAfter),
      validBefore: BigInt(typedData.message.validBefore),
      nonce: typedData.message.nonce as Hex,
    },
  });

describe('custom-launch v3', () => {
  it('--help lists every v3 command from the command table', () => {
    const help = helpText();
    for (const command of [
      'v3 pack <project-folder> --launch-wallet <address> --out <request.json>',
      'v3 preflight <request.json>',
      'v3 submit <request.json> --journal <file>',
      'v3 status <launchId>',
      'v3 wait <launchId> [--until <status>]',
      'v3 funding-typed-data <launchId>',
      'v3 funding-signature <launchId> --signature 0x…',
      'v3 cancel <launchId>',
      'v3 handoff <launchId>',
    ]) {
      expect(help).toContain(`custom-launch ${command}`);
    }
  });

  it('packs examples/v3-launch for the lane the service names, its hook carrying the mask', () => {
    const { request } = packed;
    expect(schemaProblems('custom-launch-create-request.v3.schema.json', request)).toEqual([]);
    expect(request.launchIntentHash).toBe(baseLaunchIntentHashOf(request));
    expect(request.launchWallet).toBe(account0.address);
    const caps = proxy.seen.filter((s) => s.path === '/v3/capabilities');
    expect(caps.length).toBeGreaterThan(0);
    // The capabilities are public: the key never goes with them.
    for (const seen of caps) expect(seen.headers.authorization).toBeUndefined();
    const hook = request.graph.targets.find((t) => t.role === 'hook');
    expect(hook?.hookPermissionMask).toBe(0x00c0);
  });

  it.each([
    ['without a hook', '"role": "hook"'],
    ['without a manifest', null],
  ])('refuses a project %s with exit 3 before any request', async (_name, role) => {
    const broken = join(dir, `broken-${role ? 'hook' : 'manifest'}`);
    cpSync(project, broken, { recursive: true });
    const manifestPath = join(broken, 'launch-v3.json');
    if (role) {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
      manifest.targets = manifest.targets.filter((t: { role: string }) => t.role !== 'hook');
      writeFileSync(manifestPath, JSON.stringify(manifest));
    } else {
      rmSync(manifestPath);
    }
    const before = proxy.seen.length;
    const run = await cli(['v3', 'pack', broken, '--launch-wallet', account0.address, '--out', join(broken, 'r.json')]);
    expect(run.code, run.stderr).toBe(exitCodes.localCheck.code);
    expect(run.stderr).toMatch(role ? /PROJECT_MANIFEST_INVALID: .*exactly 1 hook/ : /PROJECT_MANIFEST_MISSING/);
    expect(proxy.seen.length).toBe(before);
  });

  it(
    'preflights the packed bytes after the public capabilities, and the service finds no hard block',
    async () => {
      const before = proxy.seen.length;
      const run = await cli(['v3', 'preflight', packed.path, '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.schemaVersion).toBe('platform.custom-launch-preflight.v3');
      expect(run.json.blockingFindingCodes).toEqual([]);
      expect(run.json.launchEligibility.deployable).toBe(true);
      const [gate, sent] = proxy.seen.slice(before);
      expect(gate).toMatchObject({ method: 'GET', path: '/v3/capabilities' });
      expect(gate?.headers.authorization).toBeUndefined();
      expect(sent?.path).toBe('/v3/custom-launches/preflight');
      expect(sent?.body.equals(packed.bytes)).toBe(true);
    },
    slow,
  );

  it(
    'submits through the journal, resending only the same bytes with the same key after a 503 Retry-After',
    async () => {
      const journal = join(dir, 'journals', 'v3-happy.json');
      proxy.plan('POST', '/v3/custom-launches', {
        kind: 'answer',
        status: 503,
        headers: { 'Retry-After': '1', 'Content-Type': 'application/json' },
        body: JSON.stringify({
          error: {
            code: 'SERVICE_UNAVAILABLE',
            message: 'try again',
            requestId: `req_${'0'.repeat(32)}`,
            retryable: true,
          },
        }),
      });
      const before = proxy.seen.length;
      const started = Date.now();
      const run = await cli(['v3', 'submit', packed.path, '--journal', journal, '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(run.json.httpStatus).toBe(202);
      expect(run.stderr).toContain(
        'attempt 1: 503 SERVICE_UNAVAILABLE; resending the same bytes with the same key in 1 s',
      );
      const creates = proxy.seen.slice(before).filter((s) => s.method === 'POST' && s.path === '/v3/custom-launches');
      expect(creates).toHaveLength(2);
      const doc = JSON.parse(readFileSync(journal, 'utf8'));
      expect(statSync(journal).mode & 0o777).toBe(0o600);
      expect(doc).toMatchObject({ apiVersion: 3, chainId: '1', origin: proxy.url });
      for (const sent of creates) {
        expect(sent.body.equals(packed.bytes)).toBe(true);
        expect(sent.headers['idempotency-key']).toBe(doc.idempotencyKey);
      }
      const launchId = run.json.launch.launchId as string;
      expect(doc.outcome).toMatchObject({ state: 'accepted', launchId, httpStatus: 202 });
      expect(doc.attempts.map((a: { httpStatus?: number }) => a.httpStatus)).toEqual([503, 202]);

      // Resuming the journal is an exact replay of the one launch.
      const replay = await cli(['v3', 'submit', '--journal', journal, '--json']);
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.json).toMatchObject({ httpStatus: 200, launch: { launchId } });
      // A V3 journal never resumes as a V4 one.
      const v4 = await cli(['submit', '--journal', journal]);
      expect(v4.code).toBe(exitCodes.usage.code);
      expect(v4.stderr).toContain('is not a journal');
    },
    slow,
  );

  it(
    'funding-typed-data prints exactly the typed data of the launch resource',
    async () => {
      const { launchId, typedData } = await awaitingSignature();
      const shown = (await resource(launchId)).fundingAuthorization.typedData;
      expect(shown).toEqual(typedData);
      const plain = await cli(['v3', 'funding-typed-data', launchId]);
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout).toBe(`${JSON.stringify(shown, null, 2)}\n`);
      expect(plain.stderr).toContain(`custom-launch v3 funding-signature ${launchId} --signature 0x…`);
      const json = await cli(['v3', 'funding-typed-data', launchId, '--json']);
      expect(json.code, json.stderr).toBe(0);
      expect(json.json).toEqual(shown);
    },
    slow,
  );

  it(
    'a wait for authorized stops at the funding signature; funding-signature sends exactly the wallet signature',
    async () => {
      const { launchId, typedData } = await awaitingSignature();
      const wait = await cli(['v3', 'wait', launchId, '--interval', '0.2', '--max-wait', '5']);
      expect(wait.code, wait.stderr).toBe(exitCodes.needsAction.code);
      expect(wait.stderr).toContain(`custom-launch v3 funding-typed-data ${launchId}`);
      const reached = await cli(['v3', 'wait', launchId, '--until', 'awaiting_funding_authorization']);
      expect(reached.code, reached.stderr).toBe(0);

      const signature = await walletSigns(typedData);
      const before = proxy.seen.length;
      const run = await cli(['v3', 'funding-signature', launchId, '--signature', signature, '--json']);
      expect(run.code, run.stderr).toBe(0);
      const [sent] = proxy.seen.slice(before);
      expect(sent?.path).toBe(`/v3/custom-launches/${launchId}/funding-authorization`);
      expect(JSON.parse(sent?.body.toString('utf8') ?? '')).toEqual({
        schemaVersion: 'platform.custom-launch-funding-authorization.v3',
        signature,
      });
      expect(run.json.status).toBe('funding_authorization_verified');
      expect((await resource(launchId)).fundingAuthorization.signature).toBe(signature);
    },
    slow,
  );

  it.each([
    ['a signature of 64 bytes', `0x${'ab'.repeat(64)}`],
    ['no hex', `0x${'zz'.repeat(65)}`],
  ])('refuses %s with exit 3 before any request', async (_name, signature) => {
    const before = proxy.seen.length;
    const run = await cli([
      'v3',
      'funding-signature',
      '00000000-0000-4000-8000-000000000000',
      '--signature',
      signature,
    ]);
    expect(run.code, run.stderr).toBe(exitCodes.localCheck.code);
    expect(proxy.seen.length).toBe(before);
  });

  it(
    'refuses a signature the launch wallet did not make with the service code (exit 5); the launch keeps waiting',
    async () => {
      const { launchId, typedData } = await awaitingSignature();
      const stranger = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
      const signature = await stranger.signTypedData({
        domain: { ...typedData.domain, verifyingContract: typedData.domain.verifyingContract as Address },
        types: { ReceiveWithAuthorization: typedData.types.ReceiveWithAuthorization },
        primaryType: 'ReceiveWithAuthorization',
        message: {
          from: typedData.message.from as Address,
          to: typedData.message.to as Address,
          value: BigInt(typedData.message.value),
          validAfter: BigInt(typedData.message.validAfter),
          validBefore: BigInt(typedData.message.validBefore),
          nonce: typedData.message.nonce as Hex,
        },
      });
      const run = await cli(['v3', 'funding-signature', launchId, '--signature', signature]);
      expect(run.code, run.stderr).toBe(exitCodes.refused.code);
      expect(run.stderr).toContain('FUNDING_AUTHORIZATION_SIGNER_MISMATCH');
      expect(run.stderr).toMatch(/support: requestId req_[0-9a-f]{32}, HTTP 409/);
      expect((await resource(launchId)).status).toBe('awaiting_funding_authorization');
    },
    slow,
  );

  it(
    'cancels a launch before it is submitted; a wait then stops on cancelled',
    async () => {
      const { launchId } = await awaitingSignature();
      const run = await cli(['v3', 'cancel', launchId, '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.status).toBe('cancelled');
      const again = await cli(['v3', 'cancel', launchId, '--json']);
      expect(again.code, again.stderr).toBe(0);
      const wait = await cli(['v3', 'wait', launchId, '--until', 'finalized']);
      expect(wait.code).toBe(exitCodes.needsAction.code);
      expect(wait.stderr).toContain('cancelled (terminal)');
    },
    slow,
  );

  it.each([
    ['an unknown v3 command', ['v3', 'sign']],
    ['a status wait cannot wait for', ['v3', 'wait', '00000000-0000-4000-8000-000000000000', '--until', 'cancelled']],
    ['a flag of another v3 command', ['v3', 'cancel', '00000000-0000-4000-8000-000000000000', '--journal', 'j.json']],
    ['a requestId for a launchId', ['v3', 'status', `req_${'0'.repeat(32)}`]],
    ['pack without --launch-wallet', ['v3', 'pack', project, '--out', 'r.json']],
    [
      'a v3 flag on a V4 command',
      ['status', '00000000-0000-4000-8000-000000000000', '--signature', `0x${'ab'.repeat(65)}`],
    ],
  ])('exits 2 for %s, sending nothing', async (_name, args) => {
    const before = proxy.seen.length;
    const run = await cli(args);
    expect(run.code, run.stderr).toBe(exitCodes.usage.code);
    expect(proxy.seen.length).toBe(before);
  });
});

describe('custom-launch v3 walks examples/v3-launch to finalized with the real lifecycle', () => {
  it(
    'submit, wait, funding typed data, the wallet signature, handoff, the wallet sends, wait until finalized',
    async () => {
      // The lane's lifecycle worker and tracker, in process over the server's own database and the devnet.
      const config = loadConfig({
        ...baseDevnetServerEnv(deployment, dir),
        PERMIT_ATTESTER_KEY: devnetPermitAttesterKey,
      });
      const chain = new BaseLaunchChain(config.chain1RpcUrls, deployment);
      const ctx = {
        db: server.db,
        rules: pinnedBaseLaunchRules(devnet.deployment, config.v3.feeCertifications),
        chain,
        attester: new PermitAttester(devnetPermitAttesterKey),
        now: Date.now,
        fundingWindowSeconds: 600,
      };
      const worker = new BaseLayerLifecycleWorker(ctx, {
        workerId: 'cli-worker',
        lifecycle: testLifecycle,
        random: () => 0,
      });
      const tracker = new BaseLayerTracker({
        db: server.db,
        chain,
        now: Date.now,
        workerId: 'cli-tracker',
        maxBlocksPerPoll: 500,
      });
      const driveTo = async (launchId: string, status: BaseLaunchStatus) => {
        // The earlier launches of this file share the worker, so it may take many ticks to come to this one.
        for (let i = 0; i < 200 && baseLaunchRow(server.db, launchId)?.status !== status; i++) {
          if (!(await worker.tick())) await tracker.tick();
        }
        const row = baseLaunchRow(server.db, launchId);
        expect(row?.status, `${row?.failure_json ?? row?.finding_codes_json}`).toBe(status);
      };

      const launchId = await submitted();
      await driveTo(launchId, 'awaiting_funding_authorization');
      const waited = await cli(['v3', 'wait', launchId, '--until', 'awaiting_funding_authorization']);
      expect(waited.code, waited.stderr).toBe(0);
      expect(waited.stdout).toContain(`next: custom-launch v3 funding-typed-data ${launchId}`);

      const typed = await cli(['v3', 'funding-typed-data', launchId, '--json']);
      expect(typed.code, typed.stderr).toBe(0);
      expect(typed.json).toEqual((await resource(launchId)).fundingAuthorization.typedData);
      const signature = await walletSigns(typed.json);
      const signed = await cli(['v3', 'funding-signature', launchId, '--signature', signature, '--json']);
      expect(signed.code, signed.stderr).toBe(0);
      expect(signed.json.status).toBe('funding_authorization_verified');

      await driveTo(launchId, 'authorized');
      const handoff = await cli(['v3', 'handoff', launchId, '--json']);
      expect(handoff.code, handoff.stderr).toBe(0);
      const tx = (await resource(launchId)).walletTransaction;
      expect(handoff.json.walletTransaction).toEqual(tx);
      expect(handoff.json.walletRequest).toEqual({
        chainId: '0x1',
        from: tx.from,
        to: tx.to,
        value: `0x${BigInt(tx.valueWei).toString(16)}`,
        data: tx.data,
      });

      // The controller's wallet sends exactly the handed-off request; then the chain finalizes it.
      const link = { chain: chain1(deployment.rpcUrl), transport: http() };
      const wallet = createWalletClient({ account: account0, ...link });
      const hash = await wallet.sendTransaction({
        to: handoff.json.walletRequest.to as Address,
        value: BigInt(handoff.json.walletRequest.value),
        data: handoff.json.walletRequest.data as Hex,
        gas: 8_000_000n,
      });
      const receipt = await createPublicClient(link).waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe('success');
      await driveTo(launchId, 'submitted');
      await createTestClient({ ...link, mode: 'anvil' }).mine({ blocks: 65 });
      await driveTo(launchId, 'finalized');
      const final = await cli(['v3', 'wait', launchId, '--until', 'finalized', '--json']);
      expect(final.code, final.stderr).toBe(0);
      expect(final.json.status).toBe('finalized');
      expect(final.json.publicOutput).not.toBeNull();
    },
    slow,
  );
});
