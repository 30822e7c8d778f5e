/*
 * `make devnet`: the local devnets alone, until Ctrl-C: chain 4663 (anvil on DEVNET_PORT, default 8545, with the v4
 * PoolManager, the native/USD feed, the V4 root contracts and the shared lane's contracts) and the base layer, chain 1 (anvil on BASE_DEVNET_PORT, default 8546, with the
 * v4 PoolManager, the V3 lane's contracts and dUSD). Prints the RPC URLs and writes var/devnet/deployment.json,
 * var/devnet/multi-role-deployment.json and var/devnet/base-deployment.json.
 */
import { fileURLToPath } from 'node:url';
import { baseDevnetDefaultPort, startBaseDevnet } from '../src/devnet/base-devnet.ts';
import { startDevnet } from '../src/devnet/devnet.ts';

const port = Number(process.env.DEVNET_PORT ?? '8545');
const basePort = Number(process.env.BASE_DEVNET_PORT ?? String(baseDevnetDefaultPort));
const outputDir = fileURLToPath(new URL('../var/devnet/', import.meta.url));
const devnet = await startDevnet({ port, outputDir });
console.log(
  JSON.stringify({
    level: 'info',
    msg: 'devnet ready (Ctrl-C stops it)',
    ...devnet.deployment,
    multiRole: devnet.multiRoleDeployment.contracts,
    documents: outputDir,
  }),
);
const baseDevnet = await startBaseDevnet({ port: basePort, outputDir }).catch(async (err: unknown) => {
  await devnet.stop();
  throw err;
});
console.log(
  JSON.stringify({
    level: 'info',
    msg: 'base-layer devnet ready (Ctrl-C stops it)',
    ...baseDevnet.deployment,
    documents: outputDir,
  }),
);
const stop = () => void Promise.all([devnet.stop(), baseDevnet.stop()]).then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
setInterval(() => undefined, 1 << 30);
