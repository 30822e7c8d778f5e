/*
 * Deterministic generator of the V3 create-request example:
 *   spec/examples/custom-launch-create-request.v3.json   (profile 3.3.0, direct graph, eip3009 funding in dUSD)
 *
 * Packed from the example project examples/v3-launch/ by the client's V3 packer, the same code as
 * `custom-launch v3 pack`, for the contracts of a fresh local base devnet (chain 1, the same addresses at every
 * start), with the devnet's test account 0 as the launch wallet (scripts/examples/v3-example.ts). Nothing here reads
 * the clock or a random source.
 *
 * Run after changing contracts/ or the example project: npx tsx scripts/examples/build-v3-examples.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBaseDevnet } from '../../src/devnet/base-devnet.ts';
import { packV3Example, v3ExampleLaunchWallet } from './v3-example.ts';

const exampleFile = new URL('../../spec/examples/custom-launch-create-request.v3.json', import.meta.url);

/** A free TCP port on 127.0.0.1 above 20000, for a devnet that cannot collide with a running one. */
async function freePort(): Promise<number> {
  for (let port = 20000 + Math.floor(Math.random() * 20000); ; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

const outputDir = mkdtempSync(join(tmpdir(), 'v3-example-'));
const devnet = await startBaseDevnet({ port: await freePort(), outputDir });
const { deployment } = devnet;
await devnet.stop();
rmSync(outputDir, { recursive: true, force: true });

if (deployment.operator.toLowerCase() !== v3ExampleLaunchWallet.toLowerCase()) {
  throw new Error(`the base devnet's account 0 is ${deployment.operator}, not the example's ${v3ExampleLaunchWallet}`);
}
const c = deployment.contracts;
const packed = packV3Example(deployment);
const { funding } = packed.request;
if (funding.mode !== 'eip3009' || funding.token.toLowerCase() !== c.fundingToken.address.toLowerCase()) {
  throw new Error(`examples/v3-launch/launch-v3.json must fund with the devnet's dUSD ${c.fundingToken.address}`);
}
if (c.poolManager.address.toLowerCase() !== '0x5fbdb2315678afecb367f032d93f642f64180aa3') {
  throw new Error(`the example hook's poolManager constant is not the devnet's PoolManager ${c.poolManager.address}`);
}
writeFileSync(exampleFile, packed.bytes);
console.log(
  `wrote spec/examples/custom-launch-create-request.v3.json (hook ${packed.predicted.hook}, token ${packed.predicted.token})`,
);
