/*
 * `make start`: the server on its embedded default. Without CHAIN_4663_RPC_URLS it first brings up the local
 * chain-4663 devnet (anvil from npm on DEVNET_PORT, default 8545, with the v4 PoolManager and the native/USD feed),
 * prints its RPC URL, and points the server at it; with CHAIN_4663_RPC_URLS it uses that chain instead. Likewise,
 * without CHAIN_1_RPC_URLS it brings up the base-layer devnet (chain id 1 on BASE_DEVNET_PORT, default 8546, with the
 * v4 PoolManager, the V3 lane's contracts and dUSD); with CHAIN_1_RPC_URLS, BASE_DEPLOYMENT_PATH must name that base
 * layer's deployment document. The devnets stop with the server. The metrics listener is on, at METRICS_PORT 9464 on
 * 127.0.0.1, unless METRICS_PORT says otherwise (docs/configuration.md, Metrics).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopAnvilAtExit } from '../src/devnet/anvil.ts';
import { baseDevnetDefaultPort, baseDevnetServerEnv, startBaseDevnet } from '../src/devnet/base-devnet.ts';
import { devnetServerEnv, startDevnet } from '../src/devnet/devnet.ts';

function portOf(name: string, fallback: number): number {
  const port = Number(process.env[name] ?? String(fallback));
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`${name} must be a port, got ${process.env[name]}`);
  return port;
}

/** Where the devnets write their deployment documents: DEVNET_DIR, default var/devnet/ in the project folder. */
const outputDir = process.env.DEVNET_DIR
  ? resolve(process.env.DEVNET_DIR)
  : fileURLToPath(new URL('../var/devnet/', import.meta.url));

if (process.env.CHAIN_1_RPC_URLS && !process.env.BASE_DEPLOYMENT_PATH) {
  throw new Error("CHAIN_1_RPC_URLS is set: set BASE_DEPLOYMENT_PATH to that base layer's deployment document too");
}

if (!process.env.CHAIN_4663_RPC_URLS) {
  const port = portOf('DEVNET_PORT', 8545);
  console.log(JSON.stringify({ level: 'info', msg: 'starting the chain-4663 devnet', port }));
  const devnet = await startDevnet({ port, outputDir });
  const { deployment } = devnet;
  stopAnvilAtExit(devnet.anvilPid);
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
      multiRoleLaunchRouter: devnet.multiRoleDeployment.contracts.launchRouter.address,
      documents: outputDir,
    }),
  );
}

if (!process.env.CHAIN_1_RPC_URLS) {
  const port = portOf('BASE_DEVNET_PORT', baseDevnetDefaultPort);
  console.log(JSON.stringify({ level: 'info', msg: 'starting the base-layer devnet', port, chainId: 1 }));
  const baseDevnet = await startBaseDevnet({ port, outputDir });
  const { deployment } = baseDevnet;
  stopAnvilAtExit(baseDevnet.anvilPid);
  // CHAIN_1_RPC_URLS is unset on this path; BASE_DEPLOYMENT_PATH alone would name another chain's document.
  Object.assign(process.env, baseDevnetServerEnv(deployment, outputDir));
  console.log(
    JSON.stringify({
      level: 'info',
      msg: 'base-layer devnet ready',
      rpcUrl: deployment.rpcUrl,
      chainId: 1,
      poolManager: deployment.contracts.poolManager.address,
      launchRouter: deployment.contracts.launchRouter.address,
      fundingToken: deployment.contracts.fundingToken.address,
      documents: outputDir,
    }),
  );
}
// The Prometheus listener on its conventional exporter port, unless the environment says otherwise (`off`: none).
process.env.METRICS_PORT ??= '9464';
await import('../bin/server.mjs');
