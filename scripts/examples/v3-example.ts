/*
 * The V3 create-request example's pack: examples/v3-launch/ for a base-layer deployment, with the devnet's test
 * account 0 as the launch wallet and the nonce and salts derived from labels instead of random values, so the same
 * deployment always gives the same bytes. scripts/examples/build-v3-examples.ts writes it for a fresh base devnet;
 * test/client/base-layer-pack.test.ts packs it for the committed fixture of that devnet and compares.
 */
import { createHash } from 'node:crypto';
import type { Hex } from 'viem';
import { type BaseLayerPackResult, packBaseLayerLaunch } from '../../src/client/base-layer/pack.ts';

/** The example project folder. */
export const v3ExampleProject = new URL('../../examples/v3-launch', import.meta.url).pathname;
/** The base devnet's test account 0 (anvil's first well-known account): the example's controller. */
export const v3ExampleLaunchWallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** The fresh values of a lane's example pack: a 32-byte value (0x + 64 lowercase hex) derived from a label. */
export function exampleFreshOf(lane: string): (label: string) => Hex {
  return (label) =>
    `0x${createHash('sha256').update(`custom-launch-api ${lane} example: ${label}`, 'utf8').digest('hex')}`;
}

/** A 32-byte value (0x + 64 lowercase hex) derived from a label. */
export const v3ExampleFresh = exampleFreshOf('v3');

/** The lane's contracts as a base deployment document names them. */
interface DeploymentDocument {
  contracts: Record<'launchRouter' | 'graphFactory' | 'poolManager' | 'permitAuthority', { address: string }>;
}

/** Packs the example for a base deployment (src/devnet/base-devnet.ts BaseDevnetDeployment or its fixture). */
export function packV3Example(deployment: DeploymentDocument): BaseLayerPackResult {
  const c = deployment.contracts;
  return packBaseLayerLaunch(v3ExampleProject, {
    lane: {
      deployment: {
        launchRouter: c.launchRouter.address,
        graphFactory: c.graphFactory.address,
        poolManager: c.poolManager.address,
        permitAuthority: c.permitAuthority.address,
      },
    },
    launchWallet: v3ExampleLaunchWallet,
    fresh: v3ExampleFresh,
  });
}
