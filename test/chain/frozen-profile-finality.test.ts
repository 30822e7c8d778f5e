import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
  parseAbi,
  parseEventLogs,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleTokenAbi, launchStampRouterAbi } from '../../generated/contracts/abis.ts';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { chain4663 } from '../../src/chain/chain.ts';
import { packLaunchProject } from '../../src/client/launches/pack/pack.ts';
import { readProjectManifest } from '../../src/client/launches/pack/project-manifest.ts';
import { devnetOperatorKey } from '../../src/devnet/anvil.ts';
import { type DevnetServer, startDevnetServer } from '../support/devnet-server.ts';
import { auth, call } from '../support/http.ts';
import { deliverExampleSources } from '../support/sources.ts';
import { untilV4Status } from '../support/v4-launch-status.ts';

/**
 * The frozen profile 4.0.0 on the devnet, from create to finalized (no funding; an exact wallet transaction value;
 * spec/schemas/custom-launch-create-request.v4.schema.json): the server hands off the exact transaction, the controller
 * (the test with anvil's account 0, never the service) signs and sends it, and the devnet mines past the finalized
 * checkpoint.
 */
const project = new URL('../../examples/example-launch', import.meta.url).pathname;
const poolManagerClaimsAbi = parseAbi(['function balanceOf(address owner, uint256 id) view returns (uint256)']);

describe('a frozen-profile (4.0.0) launch on the devnet', () => {
  let running: DevnetServer;

  beforeAll(async () => {
    running = await startDevnetServer('frozen-profile', { LIFECYCLE_TRACKER_POLL_MS: '100' });
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
  });

  const until = (launchId: string, statuses: string[], timeoutMs = 30_000) =>
    untilV4Status(running.server.url, running.key, launchId, statuses, timeoutMs);

  it('keeps its own rules (no funding plan, the exact wallet value) and reaches finalized', async () => {
    const { devnet, server, key } = running;
    const manifest = {
      ...readProjectManifest(project),
      profile: '4.0.0' as const,
      funding: { walletTransactionValueWei: '0' },
    };
    const packed = packLaunchProject(project, { chainDeployment: devnet.chainDeployment, manifest });
    const request = packed.request as Extract<CustomLaunchCreateRequestV4, { profile: '4.0.0' }>;
    expect(request.profile).toBe('4.0.0');
    expect('fundingPlan' in request).toBe(false);
    expect(request.funding).toEqual({
      model: 'exact-wallet-value',
      walletTransactionValueWei: '0',
      initialBuyWei: '0',
    });

    const created = await call(`${server.url}/v4/chains/4663/custom-launches`, {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': 'frozen-profile-finality-0001' }),
      body: packed.bytes,
    });
    expect(created.status, created.text).toBe(202);
    await deliverExampleSources(server.url, key, created.json.launchId, request, { projectDir: project });
    const handedOff = await until(created.json.launchId, ['awaiting_wallet_signature', 'action_required', 'failed']);
    expect(handedOff.status, JSON.stringify(handedOff.findings)).toBe('awaiting_wallet_signature');
    expect(handedOff.profile).toBe('4.0.0');
    const tx = handedOff.walletTransaction as { to: string; valueWei: string; data: string; gasLimit: string };
    // The exact wallet transaction value of the frozen profile: the request's, never raised.
    expect(tx.valueWei).toBe(request.funding.walletTransactionValueWei);
    expect(tx.to).toBe(devnet.deployment.contracts.platformLaunchStampRouter.address.toLowerCase());

    const chain = chain4663(devnet.deployment.rpcUrl);
    const reader = createPublicClient({ chain, transport: http(devnet.deployment.rpcUrl) });
    const wallet = createWalletClient({
      account: privateKeyToAccount(devnetOperatorKey),
      chain,
      transport: http(devnet.deployment.rpcUrl),
    });
    const hash = await wallet.sendTransaction({
      to: tx.to as Address,
      value: BigInt(tx.valueWei),
      data: tx.data as Hex,
      gas: BigInt(tx.gasLimit),
    });
    const receipt = await reader.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');

    // No funding: no liquidity, no initial buy, so no platform fee; the whole token supply returns to the controller.
    const stamped = parseEventLogs({ abi: launchStampRouterAbi, logs: receipt.logs, eventName: 'LaunchStamped' });
    const args = stamped[0]?.args as { tokensOut: bigint; platformFee: bigint; token: Address };
    expect(args).toMatchObject({ tokensOut: 0n, platformFee: 0n });
    const router = devnet.deployment.contracts.platformLaunchStampRouter.address;
    expect(
      await reader.readContract({
        address: devnet.deployment.contracts.poolManager.address,
        abi: poolManagerClaimsAbi,
        functionName: 'balanceOf',
        args: [router, 0n],
      }),
    ).toBe(0n);
    expect(
      await reader.readContract({
        address: args.token,
        abi: exampleTokenAbi,
        functionName: 'balanceOf',
        args: [request.launchWallet as Address],
      }),
    ).toBe(BigInt(request.liquidityModel.tokenLiquidityAmount));

    const soft = await until(handedOff.launchId, ['sequencer_soft_confirmed']);
    expect(soft.chainEvidence).toMatchObject({ transactionHash: receipt.transactionHash, finalizedAt: null });
    // anvil: finalized = latest - 64.
    const testClient = createTestClient({ mode: 'anvil', chain, transport: http(devnet.deployment.rpcUrl) });
    await testClient.mine({ blocks: 65 });
    const finalized = await until(handedOff.launchId, ['finalized']);
    expect(finalized.chainEvidence.transactionHash).toBe(receipt.transactionHash);
    expect(finalized.chainEvidence.finalizedAt).toMatch(/^\d{4}-\d\d-\d\dT/);

    const feed = await call(`${server.url}/v4/chains/4663/finalized-custom-launches?limit=25`);
    expect(feed.status, feed.text).toBe(200);
    const item = feed.json.launches.find((l: { launchId: string }) => l.launchId === handedOff.launchId);
    expect(item).toMatchObject({
      profile: '4.0.0',
      transactionHash: receipt.transactionHash,
      blockNumber: String(receipt.blockNumber),
      router: router.toLowerCase(),
    });
  }, 120_000);
});
