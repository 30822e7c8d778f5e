/*
 * Deterministic generator of the shared-lane (MultiRole V2) create-request example:
 *   spec/examples/multi-role-create-request.v2.json   (profile revision 1, the Tidewater token_hook and initializer)
 *
 * Packed from the example project examples/multi-role-launch/ by the client's shared-lane packer, the same code as
 * `custom-launch multi-role pack`, for the lane's contracts of the chain-4663 devnet as its deterministic deployment
 * document names them (test/fixtures/multi-role-deployment.json), with the devnet's test account 0 as the launch
 * wallet and a fixed nonce (scripts/examples/multi-role-example.ts). Needs no server and no devnet; nothing here
 * reads the clock or a random source.
 *
 * Run after changing the example project or the devnet's lane deployment:
 *   npx tsx scripts/examples/build-multi-role-examples.ts
 */
import { writeFileSync } from 'node:fs';
import { packMultiRoleExample } from './multi-role-example.ts';

const exampleFile = new URL('../../spec/examples/multi-role-create-request.v2.json', import.meta.url);

const packed = await packMultiRoleExample();
writeFileSync(exampleFile, packed.bytes);
console.log(
  `wrote spec/examples/multi-role-create-request.v2.json (token_hook ${packed.predicted.tokenHook}, pool ${packed.predicted.poolId})`,
);
