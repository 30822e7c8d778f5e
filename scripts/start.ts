/*
 * `make start`: the server on its embedded default. Without CHAIN_4663_RPC_URLS it first brings up the local
 * chain-4663 devnet (anvil from npm on DEVNET_PORT, default 8545, with the v4 PoolManager and the native/USD feed),
 * prints its RPC URL, and points the server at it; with CHAIN_4663_RPC_URLS it uses that chain instead.
 * The devnet stops with the server.
 */
import { fileURLToPath } from 'node:url';
import { devnetServerEnv, startDevnet } from '../src/devnet/devnet.ts';

if (!process.env.CHAIN_4663_RPC_URLS) {
  const port = Number(process.env.DEVNET_PORT ?? '8545');
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`DEVNET_PORT must be a port, got ${process.env.DEVNET_PORT}`);
  const outputDir = fileURLToPath(new URL('../var/devnet/', import.meta.url));
  console.log(JSON.stringify({ level: 'info', msg: 'starting the chain-4663 devnet', port }));
  const devnet = await startDevnet({ port, outputDir });
  const { deployment } = devnet;
  process.on('exit', () => {
    try {
      process.kill(-devnet.anvilPid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  });
  // The devnet's values; an explicitly set variable wins (CHAIN_4663_RPC_URLS is unset on this path).
  for (const [name, value] of Object.entries(devnetServerEnv(deployment, outputDir))) process.env[name] ??= value;
  console.log(
    JSON.stringify({
      level: 'info',
      msg: 'devnet ready',
      rpcUrl: deployment.rpcUrl,
      chainId: 4663,
      poolManager: deployment.contracts.poolManager.address,
      nativeUsdPriceFeed: deployment.contracts.nativeUsdPriceFeed.address,
      documents: outputDir,
    }),
  );
}
await import('../src/main.ts');
