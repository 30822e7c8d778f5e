import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, defineChain, type Hex, http, parseAbi, parseEventLogs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchStampRouterAbi } from '../../generated/contracts/abis.ts';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import { devnetServerEnv, startDevnet } from '../../src/devnet/devnet.ts';
import { openDatabase } from '../../src/store/db.ts';
import { auth, call } from '../support/http.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';

const example = JSON.parse(
  readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url), 'utf8'),
);

/** Polls a launch until it leaves received/validating, or until a failed step waits for its retry. */
async function settle(url: string, key: string, launchId: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const r = await call(`${url}/v4/chains/4663/custom-launches/${launchId}`, { headers: auth(key) });
    if (!['received', 'validating'].includes(r.json.status) || r.json.lifecycleQueue.state === 'retry_wait')
      return r.json;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the launch did not settle');
}

describe('the spec example on a fresh devnet (issue 5 item 1; issue 4 item 8)', () => {
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
    const launch = await settle(server.url, key, created.json.launchId);
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
});
