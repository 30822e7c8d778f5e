import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  keccak256,
  parseAbi,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetOperatorKey, startAnvil } from './anvil.ts';

/** What a running devnet offers the server, written to DEVNET_DEPLOYMENT_PATH for operators and tools. */
export interface DevnetDeployment {
  chainId: 4663;
  rpcUrl: string;
  operator: Address;
  contracts: {
    poolManager: { address: Address; runtimeCodeHash: Hex };
    nativeUsdPriceFeed: { address: Address; runtimeCodeHash: Hex };
  };
}

const require = createRequire(import.meta.url);
/** The devnet's native/USD reference: USD 3,000.00 with 8 decimals. */
const devnetNativeUsd = 300_000_000_000n;
const publishEveryMs = 20_000;

/** Compiles contracts/NativeUsdPriceFeed.sol with solc-js (the devnet's own reference contract). */
export function compilePriceFeed(): { abi: Abi; bytecode: Hex } {
  const solc = require('solc') as { compile(input: string): string };
  const source = readFileSync(new URL('../../contracts/NativeUsdPriceFeed.sol', import.meta.url), 'utf8');
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'NativeUsdPriceFeed.sol': { content: source } },
        settings: {
          optimizer: { enabled: true, runs: 200 },
          outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
        },
      }),
    ),
  );
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`contracts/NativeUsdPriceFeed.sol: ${JSON.stringify(errors)}`);
  const contract = output.contracts['NativeUsdPriceFeed.sol'].NativeUsdPriceFeed;
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}

/**
 * Starts the local chain-4663 devnet: anvil from npm on 127.0.0.1, the real Uniswap v4 PoolManager from the
 * `@uniswap/v4-core` artifacts and the native/USD price feed, deployed in a fixed order by the well-known first
 * account, so every start yields the same addresses. A publisher keeps the feed's round fresh (the quote accepts at
 * most 60 s). CHAIN-NOTES.md; issue 5 adds the router, factory and permit authority.
 */
export async function startDevnet(options: { port?: number; deploymentPath?: string } = {}): Promise<{
  deployment: DevnetDeployment;
  /** The anvil process group, for a synchronous stop at process exit. */
  anvilPid: number;
  stop: () => Promise<void>;
}> {
  const anvil = await startAnvil(options.port);
  try {
    const chain = defineChain({
      id: 4663,
      name: 'chain-4663 devnet',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [anvil.url] } },
    });
    const account = privateKeyToAccount(devnetOperatorKey);
    const wallet = createWalletClient({ account, chain, transport: http(anvil.url) });
    const reader = createPublicClient({ chain, transport: http(anvil.url) });
    const deploy = async (abi: Abi, bytecode: Hex, args: unknown[]) => {
      const hash = await wallet.deployContract({ abi, bytecode, args });
      const receipt = await reader.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deployment ${hash} failed`);
      const code = await reader.getCode({ address: receipt.contractAddress });
      if (!code) throw new Error(`no code at ${receipt.contractAddress}`);
      return { address: receipt.contractAddress, runtimeCodeHash: keccak256(code) };
    };
    const poolManagerArtifact = require('@uniswap/v4-core/out/PoolManager.sol/PoolManager.json') as {
      abi: Abi;
      bytecode: { object: Hex };
    };
    const poolManager = await deploy(poolManagerArtifact.abi, poolManagerArtifact.bytecode.object, [account.address]);
    const feed = compilePriceFeed();
    const nativeUsdPriceFeed = await deploy(feed.abi, feed.bytecode, [devnetNativeUsd]);
    const publishAbi = parseAbi(['function publish(int256 newAnswer)']);
    const publish = async () => {
      const hash = await wallet.writeContract({
        address: nativeUsdPriceFeed.address,
        abi: publishAbi,
        functionName: 'publish',
        args: [devnetNativeUsd],
      });
      await reader.waitForTransactionReceipt({ hash });
    };
    const publisher = setInterval(() => {
      publish().catch((err: unknown) =>
        console.error(
          JSON.stringify({ level: 'error', msg: 'devnet price publish failed', detail: String(err).slice(0, 300) }),
        ),
      );
    }, publishEveryMs);
    publisher.unref();
    const deployment: DevnetDeployment = {
      chainId: 4663,
      rpcUrl: anvil.url,
      operator: account.address,
      contracts: { poolManager, nativeUsdPriceFeed },
    };
    if (options.deploymentPath) {
      mkdirSync(dirname(options.deploymentPath), { recursive: true });
      writeFileSync(options.deploymentPath, `${JSON.stringify(deployment, null, 2)}\n`);
    }
    return {
      deployment,
      anvilPid: anvil.pid,
      stop: async () => {
        clearInterval(publisher);
        await anvil.stop();
      },
    };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}
