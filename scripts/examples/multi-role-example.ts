/*
 * The shared-lane (MultiRole V2) create-request example's pack: examples/multi-role-launch/ for the lane's contracts
 * of the chain-4663 devnet (its deterministic deployment document, test/fixtures/multi-role-deployment.json), with
 * the devnet's test account 0 as the launch wallet, a fixed nonce, and salts derived from labels instead of random
 * values, so the same deployment always gives the same bytes. scripts/examples/build-multi-role-examples.ts writes
 * it; test/client/multi-role-pack.test.ts packs it again and compares.
 */
import { readFileSync } from 'node:fs';
import {
  type MultiRoleDeploymentContracts,
  type MultiRolePackCapabilities,
  type MultiRolePackResult,
  packMultiRoleProject,
} from '../../src/client/multi-role/pack.ts';
import { pinnedCompilerVersion } from '../../src/solidity/compile-contracts.ts';
import { exampleFreshOf, v3ExampleLaunchWallet } from './v3-example.ts';

/** The example project folder. */
export const multiRoleExampleProject = new URL('../../examples/multi-role-launch', import.meta.url).pathname;
/** The devnet's test account 0 (anvil's first well-known account): the example's controller and fee recipient. */
export const multiRoleExampleLaunchWallet = v3ExampleLaunchWallet;
/** The example's launch nonce. */
export const multiRoleExampleNonce = '1';
/** The example's fresh values (the initializer's salt, the hook salt search start). */
export const multiRoleExampleFresh = exampleFreshOf('multi-role');
/** The chain-4663 devnet's shared-lane deployment document the example is packed for. */
export const multiRoleExampleDeploymentFile = new URL(
  '../../test/fixtures/multi-role-deployment.json',
  import.meta.url,
);

/** The lane's contracts as a shared-lane deployment document names them. */
interface DeploymentDocument {
  contracts: Record<keyof MultiRoleDeploymentContracts, { address: string }>;
}

/**
 * The capabilities a service on the devnet answers, as far as a pack reads them: the pinned compiler, the lane's
 * contracts of `deployment` (the fixture unless given) and profile revision 1 accepting submissions.
 */
export function multiRoleExampleCapabilities(
  deployment: DeploymentDocument = JSON.parse(readFileSync(multiRoleExampleDeploymentFile, 'utf8')),
): MultiRolePackCapabilities {
  const c = deployment.contracts;
  return {
    compilerVersion: pinnedCompilerVersion(),
    deployment: {
      launchRouter: c.launchRouter.address,
      graphFactory: c.graphFactory.address,
      poolManager: c.poolManager.address,
      permitAuthority: c.permitAuthority.address,
    },
    profiles: [{ schemaVersion: 'platform.multi-role-launch-profile.v2', revision: 1, acceptsNewSubmissions: true }],
  };
}

/** Packs the example for the devnet's shared-lane deployment (the fixture unless given). */
export function packMultiRoleExample(deployment?: DeploymentDocument): Promise<MultiRolePackResult> {
  return packMultiRoleProject(multiRoleExampleProject, {
    launchWallet: multiRoleExampleLaunchWallet,
    nonce: multiRoleExampleNonce,
    capabilities: multiRoleExampleCapabilities(deployment),
    fresh: multiRoleExampleFresh,
  });
}
