/*
 * `make devnet`: the local chain-4663 devnet alone (anvil on DEVNET_PORT, default 8545, with the v4 PoolManager and
 * the native/USD feed), until Ctrl-C. Prints the RPC URL and writes var/devnet/deployment.json.
 */
import { fileURLToPath } from 'node:url';
import { startDevnet } from '../src/devnet/devnet.ts';

const port = Number(process.env.DEVNET_PORT ?? '8545');
const outputDir = fileURLToPath(new URL('../var/devnet/', import.meta.url));
const devnet = await startDevnet({ port, outputDir });
console.log(
  JSON.stringify({ level: 'info', msg: 'devnet ready (Ctrl-C stops it)', ...devnet.deployment, documents: outputDir }),
);
const stop = () => void devnet.stop().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
setInterval(() => undefined, 1 << 30);
