import type { Address } from 'viem';
import { type ContractBinding, deploymentFieldReaders } from './deployment-document.ts';

/**
 * The chain-4663 contracts of the shared (MultiRole V2) lane a server is bound to (MULTI_ROLE_DEPLOYMENT_PATH; the
 * chain-4663 devnet writes it as multi-role-deployment.json): the v4 PoolManager, the lane's own permit authority
 * (its own EIP-712 domain, so a permit of the V4 lanes never passes it), its graph factory (an instance of
 * contracts/base/BaseGraphFactory.sol) and its launch router (contracts/multi-role/MultiRoleLaunchRouter.sol). The
 * capabilities of spec/openapi/paths/multi-role-capabilities.yaml publish it.
 */
export interface MultiRoleDeployment {
  chainId: 4663;
  rpcUrl: string;
  /** The address whose EIP-712 launch permits the lane's permit authority accepts. */
  permitAttester: Address;
  contracts: {
    poolManager: ContractBinding;
    permitAuthority: ContractBinding;
    graphFactory: ContractBinding;
    launchRouter: ContractBinding;
  };
}

const contractKeys = ['poolManager', 'permitAuthority', 'graphFactory', 'launchRouter'] as const;

/**
 * Reads and validates the shared lane's deployment document at `path` (the shape of MultiRoleDeployment; other fields
 * are ignored). Throws a message naming the file and the first field that is wrong.
 */
export function readMultiRoleDeployment(path: string): MultiRoleDeployment {
  const { header, bindingsOf } = deploymentFieldReaders('multi-role deployment', path);
  const { rpcUrl, permitAttester, contracts } = header(4663);
  return { chainId: 4663, rpcUrl, permitAttester, contracts: bindingsOf(contracts, contractKeys) };
}
