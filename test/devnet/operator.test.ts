import { afterAll, describe, expect, it } from 'vitest';
import { chain4663 } from '../../src/chain/chain.ts';
import { startAnvil } from '../../src/devnet/anvil.ts';
import { devnetGenesisTimestamp } from '../../src/devnet/devnet.ts';
import { devnetOperator } from '../../src/devnet/operator.ts';

// src/devnet/operator.ts: the devnet's blocks get fixed times until it follows the wall clock, so every start yields
// the same block hashes, however long the machine takes between two of its calls.
describe('the devnet operator', () => {
  const started: Array<Awaited<ReturnType<typeof startAnvil>>> = [];
  afterAll(async () => {
    for (const anvil of started) await anvil.stop();
  });

  it('mines empty blocks 12 s apart from its last transaction, also after a pause longer than a second', async () => {
    const anvil = await startAnvil(undefined, ['--timestamp', String(devnetGenesisTimestamp)]);
    started.push(anvil);
    const operator = devnetOperator(anvil.url, chain4663(anvil.url), devnetGenesisTimestamp);
    const receipt = await operator.send({ to: operator.address, data: '0x' });
    // anvil's own clock runs on with the wall clock: a slow machine between two calls.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await operator.mine(3);
    const times: number[] = [];
    for (let n = receipt.blockNumber; n <= receipt.blockNumber + 3n; n++) {
      times.push(Number((await operator.reader.getBlock({ blockNumber: n })).timestamp) - devnetGenesisTimestamp);
    }
    expect(times).toEqual([12, 24, 36, 48]);
  });
});
