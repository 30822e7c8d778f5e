import { join } from 'node:path';
import {
  type Address,
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  keccak256,
  toBytes,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { nativeUsdPriceFeedAbi, rootDeployerAbi } from '../../generated/contracts/abis.ts';
import type { ChainDeploymentV1 } from '../../generated/types/service.ts';
import { chain4663 } from '../chain/chain.ts';
import { readChainDeploymentEvidence } from '../chain/deployment-evidence.ts';
import type { SourceVerificationRecord } from '../chain/external-references.ts';
import type { MultiRoleDeployment } from '../chain/multi-role-deployment.ts';
import { defaultPlatformFeeRecipient } from '../config.ts';
import { digestOf } from '../core/request-hashes.ts';
import { artifact, artifacts } from '../solidity/artifacts.ts';
import { startAnvil } from './anvil.ts';
import {
  type Binding,
  bindingOnly,
  type DevnetOperator,
  devnetOperator,
  poolManagerBytecode,
  writeDevnetDocuments,
} from './operator.ts';

/** What a running devnet offers the server, written beside the chain-deployment document. */
export interface DevnetDeployment {
  chainId: 4663;
  rpcUrl: string;
  operator: Address;
  /** The address of the devnet's permit attester (its key is devnetPermitAttesterKey). */
  permitAttester: Address;
  platformFeeRecipient: Address;
  contracts: {
    poolManager: { address: Address; runtimeCodeHash: Hex };
    nativeUsdPriceFeed: { address: Address; runtimeCodeHash: Hex };
    rootDeployer: { address: Address; runtimeCodeHash: Hex };
    permitAuthority: { address: Address; runtimeCodeHash: Hex };
    graphFactory: { address: Address; runtimeCodeHash: Hex };
    platformLaunchStampRouter: { address: Address; runtimeCodeHash: Hex };
  };
}

/** The devnet's native/USD reference: USD 3,000.00 with 8 decimals. */
const devnetNativeUsd = 300_000_000_000n;
const publishEveryMs = 20_000;
/**
 * Genesis time of the devnet (2026-01-01T00:00:00Z). Deployment blocks get fixed times after it, so every start
 * yields the same block and transaction hashes; afterwards the devnet's clock jumps to the wall clock.
 */
export const devnetGenesisTimestamp = 1_767_225_600;
/** Blocks mined after the root deployment, so `safe` (latest - 32) and `finalized` (latest - 64) cover it. */
const blocksAfterDeployment = 100;
/**
 * The devnet's permit attester key: derived from a public label, so it is known to everyone and good for the devnet
 * only. It signs EIP-712 launch permits (attestations), never a transaction, and its address holds no funds.
 */
export const devnetPermitAttesterKey = keccak256(toBytes('custom-launch-api devnet permit attester'));
/** The devnet's platform fee recipient: the server's default, anvil's well-known test account 1. */
export const devnetPlatformFeeRecipient = defaultPlatformFeeRecipient as Address;
/** The two fixed provider positions of the devnet's readbacks. The devnet is one node: both read it. */
export const devnetProviders = [
  { providerId: 'devnet-a.rpc', trustDomain: 'devnet-local' },
  { providerId: 'devnet-b.rpc', trustDomain: 'devnet-local' },
] as const;
/**
 * The root deployment call is padded to exactly this many calldata bytes, the `calldataBytes` constant of
 * spec/schemas/deployment-evidence.v1.schema.json.
 */
export const rootDeploymentCalldataBytes = 33_412;

/**
 * Starts the local chain-4663 devnet: anvil from npm on 127.0.0.1, then, from the well-known first account in a
 * fixed order with fixed block times: the real Uniswap v4 PoolManager from the `@uniswap/v4-core` artifacts, the
 * native/USD price feed, the root deployer, and the one atomic root deployment of the permit authority, the graph
 * factory and the launch stamp router (compiled from contracts/). It mines 100 blocks so the deployment is final,
 * reads the deployment back as a chain-deployment document (the `chainDeployment` of create requests), deploys the
 * shared lane's contracts (deployMultiRoleLane), moves the clock to now and keeps the feed's round fresh (the quote
 * accepts at most 60 s). With `outputDir` it writes deployment.json, chain-deployment.json, source-verification.json
 * and multi-role-deployment.json there. Every start yields the same addresses and the same documents.
 */
export async function startDevnet(options: { port?: number; outputDir?: string } = {}): Promise<{
  deployment: DevnetDeployment;
  chainDeployment: ChainDeploymentV1;
  sourceVerificationRegistry: SourceVerificationRecord[];
  /** The shared (MultiRole V2) lane's contracts, deployed after the V4 deployment was read back. */
  multiRoleDeployment: MultiRoleDeployment;
  /** The anvil process group, for a synchronous stop at process exit. */
  anvilPid: number;
  stop: () => Promise<void>;
}> {
  const anvil = await startAnvil(options.port, ['--timestamp', String(devnetGenesisTimestamp)]);
  let publisher: NodeJS.Timeout | undefined;
  try {
    const operator = devnetOperator(anvil.url, chain4663(anvil.url), devnetGenesisTimestamp);
    const poolManager = await operator.deploy(
      concat([poolManagerBytecode(), encodeAbiParameters([{ type: 'address' }], [operator.address])]),
    );
    const nativeUsdPriceFeed = await operator.deploy(
      concat([artifact('NativeUsdPriceFeed').bytecode, encodeAbiParameters([{ type: 'int256' }], [devnetNativeUsd])]),
    );
    const rootDeployer = await operator.deploy(artifact('RootDeployer').bytecode);
    const roots = rootContractAddresses(rootDeployer.address);
    const permitAttester = privateKeyToAccount(devnetPermitAttesterKey).address;
    const rootReceipt = await operator.send({
      to: rootDeployer.address,
      data: deployRootsCalldata(roots, permitAttester, poolManager.address),
    });
    await operator.mine(blocksAfterDeployment);

    const chainDeployment = await readChainDeploymentEvidence({
      providers: devnetProviders.map((p) => ({ ...p, url: anvil.url })),
      rootTransactionHash: rootReceipt.transactionHash,
      poolManagerTransactionHash: poolManager.transactionHash,
    });
    const multiRoleDeployment = await deployMultiRoleLane(operator, anvil.url, permitAttester, poolManager);
    await operator.followWallClock();
    publisher = await keepPriceFresh(operator, nativeUsdPriceFeed.address);

    const deployment: DevnetDeployment = {
      chainId: 4663,
      rpcUrl: anvil.url,
      operator: operator.address,
      permitAttester,
      platformFeeRecipient: devnetPlatformFeeRecipient,
      contracts: {
        poolManager: bindingOnly(poolManager),
        nativeUsdPriceFeed: bindingOnly(nativeUsdPriceFeed),
        rootDeployer: bindingOnly(rootDeployer),
        permitAuthority: await operator.bindingOf(roots.permitAuthority),
        graphFactory: await operator.bindingOf(roots.graphFactory),
        platformLaunchStampRouter: await operator.bindingOf(roots.router),
      },
    };
    const sourceVerificationRegistry = devnetSourceVerificationRegistry(deployment);
    if (options.outputDir) {
      writeDevnetDocuments(options.outputDir, {
        'deployment.json': deployment,
        'chain-deployment.json': chainDeployment,
        'source-verification.json': sourceVerificationRegistry,
        'multi-role-deployment.json': multiRoleDeployment,
      });
    }
    const stopPublisher = publisher;
    return {
      deployment,
      chainDeployment,
      sourceVerificationRegistry,
      multiRoleDeployment,
      anvilPid: anvil.pid,
      stop: async () => {
        clearInterval(stopPublisher);
        await anvil.stop();
      },
    };
  } catch (err) {
    if (publisher) clearInterval(publisher);
    await anvil.stop();
    throw err;
  }
}

/**
 * The shared (MultiRole V2) lane on the devnet, after the V4 deployment and its readback so that neither moves: its
 * own permit authority for the devnet's permit attester (its own EIP-712 domain), a graph factory (contracts/base/
 * BaseGraphFactory.sol) and the lane's launch router (contracts/multi-role/MultiRoleLaunchRouter.sol) on the devnet's
 * PoolManager, then 100 blocks so `finalized` covers them.
 */
async function deployMultiRoleLane(
  operator: DevnetOperator,
  rpcUrl: string,
  permitAttester: Address,
  poolManager: Binding,
): Promise<MultiRoleDeployment> {
  const addressArg = [{ type: 'address' }] as const;
  const permitAuthority = await operator.deploy(
    concat([artifact('PermitAuthority').bytecode, encodeAbiParameters(addressArg, [permitAttester])]),
  );
  const graphFactory = await operator.deploy(artifact('BaseGraphFactory').bytecode);
  const launchRouter = await operator.deploy(
    concat([
      artifact('MultiRoleLaunchRouter').bytecode,
      encodeAbiParameters(
        [{ type: 'address' }, { type: 'address' }, { type: 'address' }],
        [poolManager.address, graphFactory.address, permitAuthority.address],
      ),
    ]),
  );
  await operator.mine(blocksAfterDeployment);
  return {
    chainId: 4663,
    rpcUrl,
    permitAttester,
    contracts: {
      poolManager: bindingOnly(poolManager),
      permitAuthority: bindingOnly(permitAuthority),
      graphFactory: bindingOnly(graphFactory),
      launchRouter: bindingOnly(launchRouter),
    },
  };
}

/** The root contracts' addresses: the root deployer creates them with CREATE at its nonces 1, 2 and 3. */
function rootContractAddresses(rootDeployer: Address) {
  const [permitAuthority, graphFactory, router] = [1n, 2n, 3n].map((nonce) =>
    getContractAddress({ from: rootDeployer, nonce }),
  ) as [Address, Address, Address];
  return { permitAuthority, graphFactory, router };
}

/**
 * The one atomic root deployment: `deployRoots` with the init codes of the permit authority (for the devnet's permit
 * attester), the graph factory and the launch stamp router, each expected at its address, padded with zero bytes to
 * exactly `rootDeploymentCalldataBytes`.
 */
function deployRootsCalldata(
  roots: ReturnType<typeof rootContractAddresses>,
  permitAttester: Address,
  poolManager: Address,
): Hex {
  const initCodes = [
    concat([artifact('PermitAuthority').bytecode, encodeAbiParameters([{ type: 'address' }], [permitAttester])]),
    artifact('GraphFactory').bytecode,
    concat([
      artifact('LaunchStampRouter').bytecode,
      encodeAbiParameters(
        [{ type: 'address' }, { type: 'address' }, { type: 'address' }, { type: 'address' }],
        [poolManager, roots.graphFactory, roots.permitAuthority, devnetPlatformFeeRecipient],
      ),
    ]),
  ] as const;
  const expected = [roots.permitAuthority, roots.graphFactory, roots.router] as const;
  const unpadded = encodeFunctionData({
    abi: rootDeployerAbi,
    functionName: 'deployRoots',
    args: [initCodes, expected, '0x'],
  });
  const paddingBytes = rootDeploymentCalldataBytes - (unpadded.length - 2) / 2;
  if (paddingBytes < 0 || paddingBytes % 32 !== 0) {
    throw new Error(`root init codes take ${(unpadded.length - 2) / 2} calldata bytes; no padding reaches 33,412`);
  }
  return encodeFunctionData({
    abi: rootDeployerAbi,
    functionName: 'deployRoots',
    args: [initCodes, expected, `0x${'00'.repeat(paddingBytes)}`],
  });
}

/**
 * Publishes the devnet's native/USD price now and then every 20 s (a failed publish is logged, the timer goes on), so
 * the feed's round stays fresh. Returns the timer, which does not keep the process alive.
 */
async function keepPriceFresh(operator: DevnetOperator, feed: Address): Promise<NodeJS.Timeout> {
  const publish = async () => {
    const hash = await operator.wallet.writeContract({
      address: feed,
      abi: nativeUsdPriceFeedAbi,
      functionName: 'publish',
      args: [devnetNativeUsd],
    });
    await operator.reader.waitForTransactionReceipt({ hash });
  };
  await publish();
  const publisher = setInterval(() => {
    publish().catch((err: unknown) =>
      console.error(
        JSON.stringify({ level: 'error', msg: 'devnet price publish failed', detail: String(err).slice(0, 300) }),
      ),
    );
  }, publishEveryMs);
  publisher.unref();
  return publisher;
}

/**
 * The devnet's source-verification registry: a record for each contract it compiled from contracts/ (the feed and
 * the three roots), bound to the exact compiler input. It stands in for a public verification service, which lies
 * outside this machine; the URI names the record, it is not fetched.
 */
function devnetSourceVerificationRegistry(deployment: DevnetDeployment): SourceVerificationRecord[] {
  const names = {
    nativeUsdPriceFeed: 'NativeUsdPriceFeed',
    permitAuthority: 'PermitAuthority',
    graphFactory: 'GraphFactory',
    platformLaunchStampRouter: 'LaunchStampRouter',
  } as const;
  return Object.entries(names).map(([key, contractName]) => {
    const binding = deployment.contracts[key as keyof typeof names];
    const address = binding.address.toLowerCase();
    return {
      chainId: '4663',
      address,
      runtimeCodeHash: binding.runtimeCodeHash,
      provider: 'local-solc-build',
      evidenceUri: `https://custom-launch-api.dev/devnet/source-verification/4663/${address}`,
      evidenceDigest: digestOf({
        address,
        runtimeCodeHash: binding.runtimeCodeHash,
        sourcePath: artifact(contractName).sourcePath,
        compilerInputDigest: artifacts().compilerInputDigest,
      }),
    };
  });
}

/** The server environment that points it at a running devnet (two provider positions on the one node). */
export function devnetServerEnv(deployment: DevnetDeployment, outputDir: string): Record<string, string> {
  return {
    CHAIN_4663_RPC_URLS: `${deployment.rpcUrl},${deployment.rpcUrl}`,
    PRICE_FEED_ADDRESS: deployment.contracts.nativeUsdPriceFeed.address,
    CANONICAL_POOL_MANAGER: deployment.contracts.poolManager.address,
    PLATFORM_FEE_RECIPIENT: deployment.platformFeeRecipient,
    CHAIN_DEPLOYMENT_PATH: join(outputDir, 'chain-deployment.json'),
    SOURCE_VERIFICATION_REGISTRY_PATH: join(outputDir, 'source-verification.json'),
    PERMIT_ATTESTER_KEY: devnetPermitAttesterKey,
    MULTI_ROLE_DEPLOYMENT_PATH: join(outputDir, 'multi-role-deployment.json'),
  };
}
