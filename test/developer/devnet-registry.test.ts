import { createPublicClient, createTestClient, erc20Abi, getAddress, type Hex, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chain4663 } from '../../src/chain/chain.ts';
import { packLaunchProject } from '../../src/client/launches/pack/pack.ts';
import { predictGraphTarget } from '../../src/core/create2.ts';
import { validateTokenList } from '../support/developer.ts';
import { type DevnetServer, startDevnetServer } from '../support/devnet-server.ts';
import { auth, call } from '../support/http.ts';
import { broadcastFrom0 } from '../support/multi-role-devnet.ts';
import { deliverExampleSources, exampleProject } from '../support/sources.ts';
import { untilV4Status } from '../support/v4-launch-status.ts';

/**
 * A V4 launch finalized on a real devnet appears in the developer API: its token in the token list (checksummed
 * address, name and symbol of its request, decimals as the token answers them) and the launch in /api/v2/launches.
 */
describe('the developer API after a V4 launch finalizes on the devnet', () => {
  let running: DevnetServer;
  let developer: string;
  beforeAll(async () => {
    running = await startDevnetServer('developer-registry', {
      LIFECYCLE_TRACKER_POLL_MS: '100',
      VALIDATE_RESPONSES: 'true',
    });
    developer = await running.server.developerUrl();
  }, 120_000);
  afterAll(async () => {
    await running?.stop();
  });

  const until = (launchId: string, statuses: string[]) =>
    untilV4Status(running.server.url, running.key, launchId, statuses);

  it('lists the finalized token and the launch', async () => {
    const { devnet, server, key } = running;
    const empty = await call(`${developer}/api/v2/token-list`);
    expect(empty.status).toBe(404);
    expect(empty.json.error.code).toBe('TOKEN_LIST_EMPTY');

    const packed = packLaunchProject(exampleProject, { chainDeployment: devnet.chainDeployment });
    const created = await call(`${server.url}/v4/chains/4663/custom-launches`, {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': 'developer-registry-0001' }),
      body: packed.bytes,
    });
    expect(created.status, created.text).toBe(202);
    const { launchId } = created.json;
    await deliverExampleSources(server.url, key, launchId, packed.request);
    const handedOff = await until(launchId, ['awaiting_wallet_signature', 'action_required', 'failed']);
    expect(handedOff.status, JSON.stringify(handedOff.findings)).toBe('awaiting_wallet_signature');

    const rpc = devnet.deployment.rpcUrl;
    const chain = chain4663(rpc);
    const reader = createPublicClient({ chain, transport: http(rpc) });
    const tx = handedOff.walletTransaction;
    const hash = await broadcastFrom0(rpc, tx, BigInt(tx.gasLimit));
    expect((await reader.getTransactionReceipt({ hash })).status).toBe('success');
    await until(launchId, ['sequencer_soft_confirmed']);
    await createTestClient({ mode: 'anvil', chain, transport: http(rpc) }).mine({ blocks: 65 });
    const finalized = await until(launchId, ['finalized']);

    const target = packed.request.graphBundle.targets.find((t) => t.role === 'token');
    const { graphFactory, platformLaunchStampRouter } = devnet.deployment.contracts;
    const token = getAddress(
      predictGraphTarget(
        graphFactory.address as Hex,
        platformLaunchStampRouter.address as Hex,
        target?.create2Salt as Hex | undefined,
        target?.runtimeBytecode as Hex,
      ),
    );
    const decimals = await reader.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' });
    const { name, symbol } = packed.request.projectMetadata;

    const list = await call(`${developer}/api/v2/token-list`);
    expect(list.status, list.text).toBe(200);
    expect(validateTokenList(list.json), JSON.stringify(validateTokenList.errors)).toBe(true);
    expect(list.json.tokens).toEqual([{ chainId: 4663, address: token, name, symbol, decimals }]);
    expect(list.json.version).toEqual({ major: 1, minor: 1, patch: 0 });
    expect(list.json.timestamp).toBe(finalized.chainEvidence.finalizedAt);

    const launches = await call(`${developer}/api/v2/launches`);
    expect(launches.status, launches.text).toBe(200);
    expect(launches.json).toEqual({
      schemaVersion: 'platform.developer-launches.v2',
      items: [
        {
          lane: 'v4',
          launchId,
          chainId: '4663',
          caip2: 'eip155:4663',
          token: { address: token, name, symbol, decimals },
          transactionHash: hash,
          blockNumber: finalized.chainEvidence.blockNumber,
          finalizedAt: finalized.chainEvidence.finalizedAt,
        },
      ],
      nextCursor: null,
    });

    const manifest = await call(`${developer}/api/v2/manifest`);
    expect(manifest.json.deployments.chain4663).toMatchObject({
      chainDeploymentId: devnet.chainDeployment.chainDeploymentId,
      finality: devnet.chainDeployment.finality,
    });
    const router = manifest.json.deployments.chain4663.contracts.find(
      (c: { name: string }) => c.name === 'platformLaunchStampRouter',
    );
    expect(router.address.toLowerCase()).toBe(platformLaunchStampRouter.address.toLowerCase());
    expect((await call(`${developer}/api/v2/status`)).json.lanes[0]).toMatchObject({ lane: 'v4', readiness: 'ready' });
  }, 180_000);
});
