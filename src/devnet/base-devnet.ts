import { join } from 'node:path';
import { type Address, concat, encodeAbiParameters } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { BaseDeployment } from '../chain/base-deployment.ts';
import { chain1 } from '../chain/chain.ts';
import { artifact } from '../solidity/artifacts.ts';
import { startAnvil } from './anvil.ts';
import { devnetPermitAttesterKey } from './devnet.ts';
import { bindingOnly, devnetOperator, poolManagerBytecode, writeDevnetDocuments } from './operator.ts';

/** What a running base-layer devnet offers the server (base-deployment.json): BaseDeployment and its operator. */
export type BaseDevnetDeployment = BaseDeployment & { operator: Address };

/** The base devnet's default port (BASE_DEVNET_PORT), beside the chain-4663 devnet's 8545. */
export const baseDevnetDefaultPort = 8546;
/**
 * Genesis time of the base devnet (2026-01-02T00:00:00Z). Deployment blocks get fixed times after it, so every start
 * yields the same block and transaction hashes; afterwards the devnet's clock jumps to the wall clock.
 */
export const baseDevnetGenesisTimestamp = 1_767_312_000;
/** Blocks mined after the deployment, so `safe` (latest - 32) and `finalized` (latest - 64) cover it. */
const blocksAfterDeployment = 100;
/** The funding token's EIP-712 domain fields and ERC-20 metadata (contracts/base/DevnetUsd.sol). */
export const devnetUsd = { name: 'Devnet USD', version: '2', symbol: 'dUSD', decimals: 6 } as const;
/** dUSD minted at deployment to anvil's test account 0 (the operator): 1,000,000 dUSD. */
export const devnetUsdInitialSupply = 1_000_000n * 10n ** 6n;

const addressArg = [{ type: 'address' }] as const;

/**
 * Starts the local base-layer devnet (chain id 1): anvil from npm on 127.0.0.1 (port 8546 unless named), then, from
 * the well-known first account in a fixed order with fixed block times and fees: the real Uniswap v4 PoolManager from
 * the `@uniswap/v4-core` artifacts, the permit authority (for the chain-4663 devnet's permit attester), the base
 * graph factory, the base launch router and the EIP-3009 funding token dUSD (its supply to that account), all
 * compiled from contracts/. It mines 100 blocks so `safe` and `finalized` cover the deployment, then follows the wall
 * clock, and writes base-deployment.json into `outputDir`. Every start yields the same addresses.
 */
export async function startBaseDevnet(options: { port?: number; outputDir?: string } = {}): Promise<{
  deployment: BaseDevnetDeployment;
  /** The anvil process group, for a synchronous stop at process exit. */
  anvilPid: number;
  stop: () => Promise<void>;
}> {
  const anvil = await startAnvil(
    options.port ?? baseDevnetDefaultPort,
    ['--timestamp', String(baseDevnetGenesisTimestamp)],
    1,
    'BASE_DEVNET_PORT',
  );
  try {
    const operator = devnetOperator(anvil.url, chain1(anvil.url), baseDevnetGenesisTimestamp);
    const poolManager = await operator.deploy(
      concat([poolManagerBytecode(), encodeAbiParameters(addressArg, [operator.address])]),
    );
    const permitAttester = privateKeyToAccount(devnetPermitAttesterKey).address;
    const permitAuthority = await operator.deploy(
      concat([artifact('PermitAuthority').bytecode, encodeAbiParameters(addressArg, [permitAttester])]),
    );
    const graphFactory = await operator.deploy(artifact('BaseGraphFactory').bytecode);
    const launchRouter = await operator.deploy(
      concat([
        artifact('BaseLaunchRouter').bytecode,
        encodeAbiParameters(
          [{ type: 'address' }, { type: 'address' }, { type: 'address' }],
          [poolManager.address, graphFactory.address, permitAuthority.address],
        ),
      ]),
    );
    const fundingToken = await operator.deploy(
      concat([
        artifact('DevnetUsd').bytecode,
        encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [operator.address, devnetUsdInitialSupply]),
      ]),
    );
    await operator.mine(blocksAfterDeployment);
    await operator.followWallClock();

    const deployment: BaseDevnetDeployment = {
      chainId: 1,
      rpcUrl: anvil.url,
      operator: operator.address,
      permitAttester,
      contracts: {
        poolManager: bindingOnly(poolManager),
        permitAuthority: bindingOnly(permitAuthority),
        graphFactory: bindingOnly(graphFactory),
        launchRouter: bindingOnly(launchRouter),
        fundingToken: { ...bindingOnly(fundingToken), ...devnetUsd },
      },
    };
    if (options.outputDir) writeDevnetDocuments(options.outputDir, { 'base-deployment.json': deployment });
    return { deployment, anvilPid: anvil.pid, stop: anvil.stop };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}

/**
 * The server environment that points it at a running base devnet: its URL at both provider positions and the
 * deployment document written into `outputDir` (src/chain/base-deployment.ts reads it).
 */
export function baseDevnetServerEnv(deployment: BaseDevnetDeployment, outputDir: string): Record<string, string> {
  return {
    CHAIN_1_RPC_URLS: `${deployment.rpcUrl},${deployment.rpcUrl}`,
    BASE_DEPLOYMENT_PATH: join(outputDir, 'base-deployment.json'),
  };
}
