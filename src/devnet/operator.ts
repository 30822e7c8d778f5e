import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
  keccak256,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetOperatorKey } from './anvil.ts';

/** A deployed contract's address and the keccak-256 of its runtime code. */
export type Binding = { address: Address; runtimeCodeHash: Hex };
/** A contract deployed by the devnet operator: its binding and the transaction that created it. */
export type Deployed = Binding & { transactionHash: Hex };

const require = createRequire(import.meta.url);

/**
 * The devnet operator (anvil's well-known first account) on the devnet at `url` of `chain`. Until `followWallClock`,
 * each transaction is mined alone in a block 12 s after the previous one, from `genesisTimestamp` on, with fixed gas
 * and fees, so every start yields the same block and transaction hashes.
 */
export function devnetOperator(url: string, chain: Chain, genesisTimestamp: number) {
  const account = privateKeyToAccount(devnetOperatorKey);
  const wallet = createWalletClient({ account, chain, transport: http(url) });
  const reader = createPublicClient({ chain, transport: http(url) });
  const testClient = createTestClient({ mode: 'anvil', chain, transport: http(url) });
  let clock = genesisTimestamp;
  const fixedFees = { gas: 25_000_000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n } as const;
  const bindingOf = async (address: Address): Promise<Binding> => {
    const code = await reader.getCode({ address });
    if (!code) throw new Error(`no code at ${address}`);
    return { address, runtimeCodeHash: keccak256(code) };
  };
  const send = async (request: { to?: Address; data: Hex }) => {
    clock += 12;
    await testClient.setNextBlockTimestamp({ timestamp: BigInt(clock) });
    const hash = await wallet.sendTransaction({ ...request, ...fixedFees });
    const receipt = await reader.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`devnet transaction ${hash} reverted`);
    return receipt;
  };
  const deploy = async (bytecode: Hex): Promise<Deployed> => {
    const receipt = await send({ data: bytecode });
    if (!receipt.contractAddress) throw new Error('no contract address');
    return { ...(await bindingOf(receipt.contractAddress)), transactionHash: receipt.transactionHash };
  };
  /** Mines `blocks` empty blocks 12 s apart; the next transaction comes 12 s after the last of them. */
  const mine = async (blocks: number) => {
    // anvil times the first mined block by its own clock, which runs with the wall clock since the last block: a slow
    // start (a loaded machine) would move every later block and its hash. The first block's time is set instead.
    await testClient.setNextBlockTimestamp({ timestamp: BigInt(clock + 12) });
    await testClient.mine({ blocks, interval: 12 });
    clock = Number((await reader.getBlock({ blockTag: 'latest' })).timestamp);
  };
  /** From here on the devnet follows the wall clock, so permits and quotes are current at any date. */
  const followWallClock = async () => {
    await testClient.setNextBlockTimestamp({ timestamp: BigInt(Math.max(Math.floor(Date.now() / 1000), clock + 1)) });
    await testClient.mine({ blocks: 1 });
  };
  return { address: account.address, wallet, reader, testClient, bindingOf, send, deploy, mine, followWallClock };
}

export type DevnetOperator = ReturnType<typeof devnetOperator>;

/** The real Uniswap v4 PoolManager's creation code, from the `@uniswap/v4-core` artifacts. */
export function poolManagerBytecode(): Hex {
  const poolManagerArtifact = require('@uniswap/v4-core/out/PoolManager.sol/PoolManager.json') as {
    bytecode: { object: Hex };
  };
  return poolManagerArtifact.bytecode.object;
}

/** Writes each document as indented JSON with a final newline into `outputDir` (created if missing). */
export function writeDevnetDocuments(outputDir: string, documents: Record<string, unknown>): void {
  mkdirSync(outputDir, { recursive: true });
  for (const [name, value] of Object.entries(documents)) {
    writeFileSync(join(outputDir, name), `${JSON.stringify(value, null, 2)}\n`);
  }
}

/** The binding of a deployed contract, without its creating transaction. */
export function bindingOnly(deployed: Binding): Binding {
  return { address: deployed.address, runtimeCodeHash: deployed.runtimeCodeHash };
}
