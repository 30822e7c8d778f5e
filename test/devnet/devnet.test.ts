import { createPublicClient, http, parseAbi } from 'viem';
import { describe, expect, it } from 'vitest';
import { startDevnet } from '../../src/devnet/devnet.ts';
import { call } from '../support/http.ts';
import { startServer } from '../support/server.ts';

describe('the local chain-4663 devnet', () => {
  it('deploys the real v4 PoolManager, the feed and the roots at the same addresses, with the same document, on every start', async () => {
    const seen: string[][] = [];
    for (let run = 0; run < 2; run++) {
      const devnet = await startDevnet();
      try {
        const { deployment } = devnet;
        const chain = createPublicClient({ transport: http(deployment.rpcUrl) });
        expect(await chain.getChainId()).toBe(4663);
        const owner = await chain.readContract({
          address: deployment.contracts.poolManager.address,
          abi: parseAbi(['function owner() view returns (address)']),
          functionName: 'owner',
        });
        expect(owner).toBe(deployment.operator);
        seen.push([
          deployment.contracts.poolManager.address,
          deployment.contracts.nativeUsdPriceFeed.address,
          deployment.contracts.platformLaunchStampRouter.address,
          // The whole chain-deployment document, block and transaction hashes included.
          JSON.stringify(devnet.chainDeployment),
        ]);
      } finally {
        await devnet.stop();
      }
    }
    expect(seen[1]).toEqual(seen[0]);
  }, 90_000);

  it('gives the server a fresh initial-buy quote and its canonical pool manager', async () => {
    const devnet = await startDevnet();
    const { deployment } = devnet;
    const s = await startServer({
      chain4663RpcUrls: [deployment.rpcUrl],
      priceFeedAddress: deployment.contracts.nativeUsdPriceFeed.address,
      canonicalPoolManager: deployment.contracts.poolManager.address,
    });
    try {
      const r = await call(`${s.url}/v4/chains/4663/initial-buy-quote`);
      expect(r.status, r.text).toBe(200);
      expect(r.json).toMatchObject({ minimumInitialBuyWei: '333333333333334', nativeUsd: { answer: '300000000000' } });
    } finally {
      await s.close();
      await devnet.stop();
    }
  }, 90_000);
});
