/*
 * Deterministic generator of the two V4 create-request examples:
 *   spec/examples/custom-launch-create-request.v4.json                 (profile 4.1.0, funded)
 *   spec/examples/custom-launch-create-request.v4--profile-4.0.0.json  (frozen profile 4.0.0)
 *
 * Both are packed from the example project examples/example-launch/ by the client's packer, the same code as
 * `custom-launch pack`, bound to a fresh local devnet's chain-deployment document (the same at every start). Instead
 * of random values the nonce and CREATE2 salts are derived from labels, so the output is reproducible; nothing here
 * reads the clock or a random source.
 *
 * Run after changing contracts/ or the example project: npx tsx scripts/examples/build-v4-examples.ts
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { Hex } from 'viem';
import { packLaunchProject } from '../../src/client/launches/pack/pack.ts';
import { readProjectManifest } from '../../src/client/launches/pack/project-manifest.ts';
import { startDevnet } from '../../src/devnet/devnet.ts';

const exampleDir = new URL('../../spec/examples/', import.meta.url);
const projectDir = new URL('../../examples/example-launch', import.meta.url).pathname;

/** A 32-byte value (0x + 64 lowercase hex) derived from a label. */
function fresh(label: string): Hex {
  return `0x${createHash('sha256').update(`custom-launch-api example: ${label}`, 'utf8').digest('hex')}`;
}

const devnet = await startDevnet();
const chainDeployment = devnet.chainDeployment;
await devnet.stop();

const current = readProjectManifest(projectDir);
const frozen = { ...current, profile: '4.0.0' as const, funding: { walletTransactionValueWei: '0' } };
const outputs = [
  ['custom-launch-create-request.v4.json', packLaunchProject(projectDir, { chainDeployment, fresh })],
  [
    'custom-launch-create-request.v4--profile-4.0.0.json',
    packLaunchProject(projectDir, { chainDeployment, fresh, manifest: frozen }),
  ],
] as const;
for (const [file, packed] of outputs) {
  writeFileSync(new URL(file, exampleDir), packed.bytes);
  console.log(`wrote spec/examples/${file}`);
}
