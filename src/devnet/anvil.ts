import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** The devnet's first funded account (anvil's well-known test account 0): the devnet operator, never the service. */
export const devnetOperatorKey = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/**
 * A real anvil (from npm) with chain id `chainId` (4663 unless named) on 127.0.0.1, on `port` (a free one when
 * omitted), stopped by the process group it was started in: the real local chain of development and the tests.
 * `portVariable` names the setting that picks the port, for the message when the port is taken.
 */
export async function startAnvil(
  port?: number,
  extraArgs: string[] = [],
  chainId = 4663,
  portVariable = 'DEVNET_PORT',
): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  port ??= await freePort();
  const child: ChildProcess = spawn(
    'npx',
    ['anvil', '--chain-id', String(chainId), '--host', '127.0.0.1', '--port', String(port), '--silent', ...extraArgs],
    { cwd: new URL('../..', import.meta.url).pathname, stdio: 'ignore', detached: true },
  );
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    try {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (((await r.json()) as { result?: string }).result === `0x${chainId.toString(16)}`) break;
    } catch {
      // Not listening yet.
    }
    if (child.exitCode !== null)
      throw new Error(`anvil exited (${child.exitCode}): is port ${port} taken? Set ${portVariable}.`);
    if (Date.now() - started > 30_000) throw new Error('anvil did not start within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid ?? 0,
    stop: async () => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // npx starts anvil as a child: stop the whole process group started here.
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    },
  };
}
