import type { Address } from 'viem';
import { type ContractBinding, deploymentFieldReaders } from './deployment-document.ts';

/** A deployed base-layer contract: its address and the keccak-256 of its runtime code. */
export type BaseContractBinding = ContractBinding;

/** The EIP-3009 funding token of the base layer, with the EIP-712 domain fields it signs under. */
export interface BaseFundingTokenBinding extends BaseContractBinding {
  name: string;
  version: string;
  symbol: string;
  decimals: number;
}

/**
 * The base-layer (chain 1) contracts of the V3 lane a server is bound to (BASE_DEPLOYMENT_PATH; the base devnet
 * writes it as base-deployment.json): the v4 PoolManager, the permit authority, the base graph factory, the base
 * launch router (contracts/base/BaseLaunchRouter.sol) and the EIP-3009 funding token.
 */
export interface BaseDeployment {
  chainId: 1;
  rpcUrl: string;
  permitAttester: Address;
  contracts: {
    poolManager: BaseContractBinding;
    permitAuthority: BaseContractBinding;
    graphFactory: BaseContractBinding;
    launchRouter: BaseContractBinding;
    fundingToken: BaseFundingTokenBinding;
  };
}

const contractKeys = ['poolManager', 'permitAuthority', 'graphFactory', 'launchRouter', 'fundingToken'] as const;

/**
 * Reads and validates the base-layer deployment document at `path` (the shape of BaseDeployment; other fields, such
 * as the devnet's `operator`, are ignored). Throws a message naming the file and the first field that is wrong.
 */
export function readBaseDeployment(path: string): BaseDeployment {
  const { fail, record, stringOf, header, bindingsOf } = deploymentFieldReaders('base deployment', path);
  const { rpcUrl, permitAttester, contracts } = header(1);
  const bound = bindingsOf(contracts, contractKeys);
  const token = record(contracts.fundingToken, 'contracts.fundingToken');
  const decimals = token.decimals;
  if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
    fail('contracts.fundingToken.decimals must be an integer from 0 to 255');
  }
  return {
    chainId: 1,
    rpcUrl,
    permitAttester,
    contracts: {
      ...bound,
      fundingToken: {
        ...bound.fundingToken,
        name: stringOf(token.name, 'contracts.fundingToken.name'),
        version: stringOf(token.version, 'contracts.fundingToken.version'),
        symbol: stringOf(token.symbol, 'contracts.fundingToken.symbol'),
        decimals: decimals as number,
      },
    },
  };
}
