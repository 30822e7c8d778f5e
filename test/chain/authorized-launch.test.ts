import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, defineChain, type Hex, http, parseAbi, parseEventLogs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchStampRouterAbi } from '../../generated/contracts/abis.ts';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { utf8Order } from '../../src/core/canonical-json.ts';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import { devnetServerEnv, startDevnet } from '../../src/devnet/devnet.ts';
import { openDatabase } from '../../src/store/db.ts';
import { auth, call } from '../support/http.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';
import { freshNonce } from '../support/server.ts';
import { deliverExampleSources, exampleProject } from '../support/sources.ts';

const example = JSON.parse(
  readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url), 'utf8'),
);

const read = async (url: string, key: string, launchId: string) =>
  (await call(`${url}/v4/chains/4663/custom-launches/${launchId}`, { headers: auth(key) })).json;

/**
 * Polls a launch until it leaves received/validating, or until a failed step waits for its retry (or until `stop`
 * holds of a launch still validating).
 */
async function settle(url: string, key: string, launchId: string, stop?: (launch: any) => boolean): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const launch = await read(url, key, launchId);
    if (!['received', 'validating'].includes(launch.status) || launch.lifecycleQueue.state === 'retry_wait')
      return launch;
    if (stop?.(launch)) return launch;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the launch did not settle');
}

describe('the spec example on a fresh devnet: the chain-deployment document and admission', () => {
  let devnet: Awaited<ReturnType<typeof startDevnet>>;
  let server: ServerProcess;
  let dir: string;
  let key: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'custom-launch-authorized-'));
    devnet = await startDevnet({ outputDir: dir });
    const databasePath = join(dir, 'api.sqlite');
    const db = openDatabase(databasePath);
    key = mintWalletKey(db, {
      wallet: example.launchWallet,
      scopes: ['custom-launch:create', 'custom-launch:read'],
      chains: ['4663'],
    }).apiKey;
    db.close();
    server = await startServerProcess({
      ...devnetServerEnv(devnet.deployment, dir),
      DATABASE_PATH: databasePath,
      LIFECYCLE_POLL_MS: '50',
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await devnet?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('binds the devnet chain deployment the example carries', () => {
    expect(example.chainDeployment).toEqual(devnet.chainDeployment);
  });

  it('reaches authorized with the exact wallet transaction, which the wallet can sign and send', async () => {
    const created = await call(`${server.url}/v4/chains/4663/custom-launches`, {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': 'example-authorized-1' }),
      body: JSON.stringify(example),
    });
    expect(created.status, created.text).toBe(202);
    const launchId = created.json.launchId as string;
    // The permit waits for the sources: without them the launch stays validating, idle, with no wallet transaction,
    // however many times the worker polls (LIFECYCLE_POLL_MS 50: some twenty polls in a second).
    const pending = async () => {
      const waiting = await settle(server.url, key, launchId, (l) => l.lifecycleQueue.state === 'idle');
      expect(waiting).toMatchObject({
        status: 'validating',
        walletTransaction: null,
        lifecycleQueue: { state: 'idle', lastErrorCode: 'SOURCE_FILES_PENDING', deadlineAt: null, nextAttemptAt: null },
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await read(server.url, key, launchId)).toMatchObject({
        status: 'validating',
        walletTransaction: null,
        lifecycleQueue: { state: 'idle', lastErrorCode: 'SOURCE_FILES_PENDING' },
      });
    };
    await pending();
    // Every file but one does not wake it.
    const last = example.sourceBundleManifest.files.at(-1).path as string;
    const partial = await deliverExampleSources(server.url, key, launchId, example, { only: (p) => p !== last });
    expect(partial).toMatchObject({ filesReceived: 2, filesExpected: 3 });
    await pending();
    // The last one does.
    await deliverExampleSources(server.url, key, launchId, example, { only: (p) => p === last });
    const launch = await settle(server.url, key, launchId);
    // Authorized, or already handed off by the post-authorization tracker's next poll.
    expect(['authorized', 'awaiting_wallet_signature'], JSON.stringify(launch.findings)).toContain(launch.status);
    const tx = launch.walletTransaction;
    expect(tx).toMatchObject({
      chainId: '4663',
      from: example.launchWallet,
      to: devnet.deployment.contracts.platformLaunchStampRouter.address.toLowerCase(),
      valueWei: example.fundingPlan.walletTransactionValueWei,
    });
    expect(tx.simulationDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    // Beside it, read-only, the metadata the stored request bound (custom-launch-resource.v4 boundMetadata).
    expect(launch.boundMetadata).toEqual({
      projectMetadataHash: example.projectMetadataHash,
      projectMetadata: example.projectMetadata,
    });
    const expires = Date.parse(tx.permitExpiresAt);
    expect(expires - Date.now()).toBeLessThanOrEqual(3_600_000 + 5_000);

    // The controller (not the service) signs and broadcasts the exact transaction.
    const chain = defineChain({
      id: 4663,
      name: 'devnet',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [devnet.deployment.rpcUrl] } },
    });
    const wallet = createWalletClient({ account: privateKeyToAccount(devnetOperatorKey), chain, transport: http() });
    const reader = createPublicClient({ chain, transport: http() });
    const hash = await wallet.sendTransaction({
      to: tx.to,
      data: tx.data as Hex,
      value: BigInt(tx.valueWei),
      gas: BigInt(tx.gasLimit),
    });
    const receipt = await reader.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    const [stamped] = parseEventLogs({ abi: launchStampRouterAbi, logs: receipt.logs, eventName: 'LaunchStamped' });
    expect(stamped?.args.controller).toBe(example.launchWallet);
    const tokens = await reader.readContract({
      address: stamped?.args.token as Hex,
      abi: parseAbi(['function balanceOf(address) view returns (uint256)']),
      functionName: 'balanceOf',
      args: [example.launchWallet],
    });
    expect(stamped?.args.tokensOut).toBeGreaterThanOrEqual(BigInt(example.fundingPlan.initialBuy.minTokenOut));
    expect(tokens).toBeGreaterThanOrEqual(stamped?.args.tokensOut as bigint);
    // 20 bps of the gross initial buy, rounded up, as the fee recipient's native claim.
    expect(stamped?.args.platformFee).toBe(
      (BigInt(example.fundingPlan.nativeAllocations.initialBuyWei) * 20n + 9_999n) / 10_000n,
    );
  }, 120_000);

  it('blocks a launch whose sources call selfdestruct: action_required with SOURCE_SELFDESTRUCT, never a wallet transaction', async () => {
    // The example project plus a file that calls the builtin, bound into the manifest.
    const project = mkdtempSync(join(tmpdir(), 'custom-launch-destroyer-'));
    cpSync(exampleProject, project, { recursive: true });
    const destroyer =
      '// SPDX-License-Identifier: Apache-2.0\npragma solidity ^0.8.26;\n\ncontract Destroyer {\n    function retire() external {\n        selfdestruct(payable(msg.sender));\n    }\n}\n';
    writeFileSync(join(project, 'contracts/Destroyer.sol'), destroyer);
    const request = structuredClone(example);
    request.sourceBundleManifest.files = [
      ...request.sourceBundleManifest.files,
      {
        path: 'contracts/Destroyer.sol',
        sha256: createHash('sha256').update(destroyer).digest('hex'),
        byteLength: Buffer.byteLength(destroyer),
      },
    ].sort((a: { path: string }, b: { path: string }) => utf8Order(a.path, b.path));
    // Another launch of the same wallet: a new intent needs a nonce of its own.
    request.nonce = freshNonce();
    const body = JSON.stringify(bindRequestHashes(request));
    const created = await call(`${server.url}/v4/chains/4663/custom-launches`, {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': 'example-destroyer-1' }),
      body,
    });
    expect(created.status, created.text).toBe(202);
    const launchId = created.json.launchId as string;
    expect(await settle(server.url, key, launchId, (l) => l.lifecycleQueue.state === 'idle')).toMatchObject({
      status: 'validating',
      walletTransaction: null,
      lifecycleQueue: { lastErrorCode: 'SOURCE_FILES_PENDING' },
    });
    await deliverExampleSources(server.url, key, launchId, body, { projectDir: project });
    const launch = await settle(server.url, key, launchId);
    rmSync(project, { recursive: true, force: true });
    expect(launch.status, JSON.stringify(launch.findings)).toBe('action_required');
    expect(launch.walletTransaction).toBeNull();
    expect(launch.findings).toContainEqual({
      code: 'SOURCE_SELFDESTRUCT',
      severity: 'blocking',
      targetId: null,
      message: 'selfdestruct(...) is called in the source at contracts/Destroyer.sol:6:9.',
    });
    expect(launch.remediation).toMatchObject({ findingCodes: ['SOURCE_SELFDESTRUCT'], newRequestRequired: true });
  }, 120_000);

  it('does not make a launch blocked by a chain-free gate wait for its sources: action_required at once', async () => {
    const request = structuredClone(example);
    request.fundingPlan.mode = 'build-only';
    const created = await call(`${server.url}/v4/chains/4663/custom-launches`, {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': 'example-build-only-1' }),
      body: JSON.stringify(bindRequestHashes(request)),
    });
    expect(created.status, created.text).toBe(202);
    // No file delivered.
    const launch = await settle(server.url, key, created.json.launchId);
    expect(launch.status).toBe('action_required');
    expect(launch.walletTransaction).toBeNull();
    expect(launch.remediation.findingCodes).toEqual(['BUILD_ONLY_PLAN']);
    expect(launch.lifecycleQueue.lastErrorCode).toBeNull();
  }, 120_000);
});
