import { afterAll, describe, expect, it } from 'vitest';
import { startAnvil } from '../../src/devnet/anvil.ts';

// src/devnet/anvil.ts: anvil binds its own free port and reports it; a named port that is taken is refused instead
// of reaching the chain that holds it.
describe('startAnvil', () => {
  const started: Array<Awaited<ReturnType<typeof startAnvil>>> = [];
  afterAll(async () => {
    for (const anvil of started) await anvil.stop();
  });

  it('binds a free port of its own and answers on it', async () => {
    const first = await startAnvil();
    const second = await startAnvil();
    started.push(first, second);
    expect(first.url).not.toBe(second.url);
    const chainId = await fetch(first.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    }).then((r) => r.json());
    expect(chainId).toMatchObject({ result: '0x1237' });
  });

  it('refuses a named port another anvil holds, naming the setting', async () => {
    const holder = await startAnvil();
    started.push(holder);
    const port = Number(new URL(holder.url).port);
    await expect(startAnvil(port, [], 4663, 'DEVNET_PORT')).rejects.toThrow(
      `before listening on port ${port}: is it taken? Set DEVNET_PORT.`,
    );
  });
});
