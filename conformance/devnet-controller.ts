/*
 * The controller's side of a launch on the local devnet, for the conformance run's lifecycle driver and the clients
 * scenario's seed launch: JSON-RPC to anvil, which unlocks its accounts (eth_sendTransaction needs no key), so a
 * launch's exact wallet transaction is sent as the controller would after review, and blocks are mined to move the
 * chain's `safe` and `finalized` checkpoints. The service itself never signs or sends.
 */

/** The anvil account the devnet unlocks and the examples' wallet. */
export const anvilAccount0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
/** The tracker commits `finalized` once the `finalized` checkpoint (latest - 64 on anvil) covers the block. */
export const blocksToFinalize = 65;
/** `ethereum_posted` once the `safe` checkpoint (latest - 32) covers it, still short of `finalized`. */
export const blocksToPost = 40;

/** A launch's wallet transaction, as the resource gives it. */
export interface WalletTransactionFields {
  from: string;
  to: string;
  valueWei: string;
  data: string;
  gasLimit: string;
}

/** JSON-RPC over the devnet at `rpcUrl`: any method, anvil_mine, and a wallet transaction sent as given. */
export function devnetController(rpcUrl: string) {
  const rpc = async (method: string, params: unknown[]): Promise<unknown> => {
    const r = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const answer = (await r.json()) as { result?: unknown; error?: { message: string } };
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result;
  };
  return {
    rpc,
    mine: (blocks: number) => rpc('anvil_mine', [`0x${blocks.toString(16)}`]),
    /** Sends the transaction from its `from` (an unlocked account); answers its hash. */
    send: (tx: WalletTransactionFields) =>
      rpc('eth_sendTransaction', [
        {
          from: tx.from,
          to: tx.to,
          value: `0x${BigInt(tx.valueWei).toString(16)}`,
          data: tx.data,
          gas: `0x${BigInt(tx.gasLimit).toString(16)}`,
        },
      ]) as Promise<string>,
  };
}
