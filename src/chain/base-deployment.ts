import { readFileSync } from 'node:fs';
import type { Address, Hex } from 'viem';

/** A deployed base-layer contract: its address and the keccak-256 of its runtime code. */
export interface BaseContractBinding {
  address: Address;
  runtimeCodeHash: Hex;
}

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

function fail(path: string, what: string): never {
  throw new Error(`base deployment ${path}: ${what}`);
}

function record(value: unknown, path: string, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, `${where} must be an object`);
  return value as Record<string, unknown>;
}

function hexOf(value: unknown, bytes: number, path: string, where: string): Hex {
  if (typeof value !== 'string' || !new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`).test(value)) {
    fail(path, `${where} must be 0x and ${bytes * 2} hex digits`);
  }
  return value as Hex;
}

function stringOf(value: unknown, path: string, where: string): string {
  if (typeof value !== 'string' || value === '') fail(path, `${where} must be a non-empty string`);
  return value;
}

function bindingOf(value: unknown, path: string, where: string): BaseContractBinding {
  const b = record(value, path, where);
  return {
    address: hexOf(b.address, 20, path, `${where}.address`) as Address,
    runtimeCodeHash: hexOf(b.runtimeCodeHash, 32, path, `${where}.runtimeCodeHash`),
  };
}

/**
 * Reads and validates the base-layer deployment document at `path` (the shape of BaseDeployment; other fields, such
 * as the devnet's `operator`, are ignored). Throws a message naming the file and the first field that is wrong.
 */
export function readBaseDeployment(path: string): BaseDeployment {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    fail(path, `cannot be read as JSON (${(err as Error).message})`);
  }
  const doc = record(parsed, path, 'the document');
  if (doc.chainId !== 1) fail(path, 'chainId must be 1');
  const rpcUrl = stringOf(doc.rpcUrl, path, 'rpcUrl');
  const contracts = record(doc.contracts, path, 'contracts');
  const bound = Object.fromEntries(
    contractKeys.map((key) => [key, bindingOf(contracts[key], path, `contracts.${key}`)]),
  ) as Record<(typeof contractKeys)[number], BaseContractBinding>;
  const token = record(contracts.fundingToken, path, 'contracts.fundingToken');
  const decimals = token.decimals;
  if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
    fail(path, 'contracts.fundingToken.decimals must be an integer from 0 to 255');
  }
  return {
    chainId: 1,
    rpcUrl,
    permitAttester: hexOf(doc.permitAttester, 20, path, 'permitAttester') as Address,
    contracts: {
      ...bound,
      fundingToken: {
        ...bound.fundingToken,
        name: stringOf(token.name, path, 'contracts.fundingToken.name'),
        version: stringOf(token.version, path, 'contracts.fundingToken.version'),
        symbol: stringOf(token.symbol, path, 'contracts.fundingToken.symbol'),
        decimals,
      },
    },
  };
}
