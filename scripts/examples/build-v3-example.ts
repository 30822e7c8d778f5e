/*
 * Deterministic generator of the base-layer V3 create-request example:
 *   spec/examples/custom-launch-create-request.v3.json  (profile 3.3.0, a direct graph of four targets, EIP-3009
 *   funding in dUSD)
 *
 * The request is the test graph of test/fixtures/base-layer (test/support/base-layer-request.ts): real init code
 * hashes of the pinned solc-js build, the hook's salt mined for its mask under the base devnet's graph factory and
 * router (test/fixtures/base-deployment.json, the same addresses at every start), a real PNG, both hashes sealed. Its
 * launchWallet is the devnet's first account, the wallet of the examples' keys, so the example is a request the
 * server admits (the conformance run's stateful pass follows its links). Nothing here reads the clock or a random
 * source.
 *
 * Run after changing the fixture graph or the pinned compiler: npx tsx scripts/examples/build-v3-example.ts
 */
import { writeFileSync } from 'node:fs';
import { baseDevnetAddresses, baseLayerRequest } from '../../test/support/base-layer-request.ts';

const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const request = baseLayerRequest({
  launchWallet: wallet,
  nonce: '7',
  auxiliaries: ['BaseNote'],
  funding: {
    mode: 'eip3009',
    valueWei: '500000000000000000',
    token: baseDevnetAddresses.fundingToken,
    amount: '25000000',
    recipient: wallet,
  },
});
const file = 'custom-launch-create-request.v3.json';
writeFileSync(new URL(`../../spec/examples/${file}`, import.meta.url), `${JSON.stringify(request, null, 2)}\n`);
console.log(`wrote spec/examples/${file}`);
