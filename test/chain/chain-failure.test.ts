import { createServer } from 'node:net';
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeHookCallbacks } from '../../src/chain/hook-probe.ts';
import { classifyStepFailure } from '../../src/domain/lifecycle/retry-policy.ts';

/** A loopback port that accepts connections and resets them at once: a provider that never answers. */
let url: string;
const refusing = createServer((socket) => socket.resetAndDestroy());
beforeAll(async () => {
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', () => resolve()));
  const address = refusing.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  url = `http://127.0.0.1:${address.port}`;
});
afterAll(() => new Promise<void>((resolve) => refusing.close(() => resolve())));

describe('a provider that does not answer decides no chain gate (spec LifecycleQueue: transient failures)', () => {
  it('the hook probe throws a transient failure instead of calling the callback not implemented', async () => {
    const client = createPublicClient({ transport: http(url, { retryCount: 0 }) });
    const hook = '0x0000000000000000000000000000000000000fc0';
    const probe = probeHookCallbacks(client, {
      hookAddress: hook,
      runtimeCode: '0x00',
      poolManager: '0x0000000000000000000000000000000000000001',
      router: '0x0000000000000000000000000000000000000002',
      key: {
        currency0: '0x0000000000000000000000000000000000000000',
        currency1: '0x0000000000000000000000000000000000000003',
        fee: 3000,
        tickSpacing: 60,
        hooks: hook,
      },
      sqrtPriceX96: 2n ** 96n,
      enabled: ['beforeSwap'],
    });
    const err = await probe.then(
      (verdicts) => ({ verdicts }),
      (e: unknown) => e,
    );
    expect(err).not.toHaveProperty('verdicts');
    expect(classifyStepFailure(err)).toEqual({ kind: 'transient', code: 'CHAIN_RPC_UNAVAILABLE' });
  });
});
