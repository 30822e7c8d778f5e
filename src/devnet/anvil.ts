import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The `anvil` bin of the installed @foundry-rs/anvil package (a devDependency). */
const anvilBin = fileURLToPath(new URL('../../node_modules/.bin/anvil', import.meta.url));

/** The devnet's first funded account (anvil's well-known test account 0): the devnet operator, never the service. */
export const devnetOperatorKey = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

/**
 * A real anvil (from npm) with chain id `chainId` (4663 unless named) on 127.0.0.1, on `port` (a free one anvil
 * binds itself when omitted), stopped by the process group it was started in: the real local chain of development
 * and the tests. `portVariable` names the setting that picks the port, for the message when the port is taken.
 */
export async function startAnvil(
  port?: number,
  extraArgs: string[] = [],
  chainId = 4663,
  portVariable = 'DEVNET_PORT',
): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  // Port 0 lets anvil bind a free port itself and print it: a port picked here and handed over later could be
  // taken by another process in between, and a readiness check would then reach that process's chain.
  // The package's own bin, not `npx anvil`: npx loads npm first, about half a second of CPU for every devnet.
  const child: ChildProcess = spawn(
    anvilBin,
    ['--chain-id', String(chainId), '--host', '127.0.0.1', '--port', String(port ?? 0), ...extraArgs],
    { cwd: new URL('../..', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'ignore'], detached: true },
  );
  const bound = await listeningPort(child, port, portVariable);
  const url = `http://127.0.0.1:${bound}`;
  const started = Date.now();
  for (;;) {
    try {
      // Each probe is bounded, so a connection that is accepted but never answered is retried and the 30 s
      // deadline below still holds.
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        signal: AbortSignal.timeout(5_000),
      });
      if (((await r.json()) as { result?: string }).result === `0x${chainId.toString(16)}`) break;
    } catch {
      // Not answering yet.
    }
    if (child.exitCode !== null) throw new Error(`anvil exited (${child.exitCode}) on port ${bound}`);
    if (Date.now() - started > 30_000) throw new Error('anvil did not start within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid ?? 0,
    stop: async () => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // The bin starts the anvil binary as a child: stop the whole process group started here.
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    },
  };
}

/**
 * Stops an anvil process group (startDevnet's and startBaseDevnet's anvilPid) when this process exits, however it
 * exits: `make start` (scripts/start.ts) and `make conformance` (conformance/run.ts) leave no chain behind.
 */
export function stopAnvilAtExit(anvilPid: number): void {
  process.on('exit', () => {
    try {
      process.kill(-anvilPid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  });
}

/**
 * The port anvil reports once it listens ("Listening on 127.0.0.1:<port>"); its further output (one line per RPC
 * call) is read and dropped so the pipe never fills. Rejects when anvil exits first: the named port is taken.
 */
function listeningPort(child: ChildProcess, port: number | undefined, portVariable: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error('anvil did not start within 30 s')), 30_000);
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-4096);
      const m = /Listening on 127\.0\.0\.1:(\d+)/.exec(seen);
      if (!m) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stdout?.resume();
      resolve(Number(m[1]));
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const which = port === undefined ? 'a free port' : `port ${port}`;
      reject(new Error(`anvil exited (${code}) before listening on ${which}: is it taken? Set ${portVariable}.`));
    });
  });
}
