import {
  type Chain,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  keccak256,
  type TransactionReceipt,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';

/** A wallet transaction as the service hands it off (the gas limit is the caller's to give). */
export interface WalletSend {
  to: string;
  valueWei: string;
  data: string;
  gas: bigint;
}

/**
 * Signs `tx` from `account` with the account's pending nonce, sends it as raw bytes and resolves its receipt once it is
 * mined, reverted or not. The hash is known before sending, so a send whose answer was lost still resolves: viem's transport
 * resends a call that failed on the way (a reset connection, a 5xx), and the node then refuses the second copy
 * ('nonce too low', 'already known') although the first one is in. Any other refusal is thrown as the node gave it.
 */
export async function sendSigned(
  rpcUrl: string,
  chain: Chain,
  account: PrivateKeyAccount,
  tx: WalletSend,
): Promise<TransactionReceipt> {
  const reader = createPublicClient({ chain, transport: http(rpcUrl) });
  const wallet = createWalletClient({ chain, transport: http(rpcUrl) });
  const [nonce, fees] = await Promise.all([
    reader.getTransactionCount({ address: account.address, blockTag: 'pending' }),
    reader.estimateFeesPerGas(),
  ]);
  const serializedTransaction = await account.signTransaction({
    type: 'eip1559',
    chainId: chain.id,
    nonce,
    to: tx.to as Hex,
    value: BigInt(tx.valueWei),
    data: tx.data as Hex,
    gas: tx.gas,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  const hash = keccak256(serializedTransaction);
  try {
    await wallet.sendRawTransaction({ serializedTransaction });
  } catch (err) {
    const held = await reader.getTransaction({ hash }).catch(() => undefined);
    if (!held) throw err;
  }
  return reader.waitForTransactionReceipt({ hash });
}
