/*
 * The soak's chain driver: it plays the controller of the launches the traffic hands it (each with its own hook
 * salt and its sources delivered). Once a launch offers its exact wallet transaction, the driver sends it from the
 * launch wallet (anvil's unlocked account 0, `eth_sendTransaction`), one transaction at a time; while a sent launch
 * is not final it mines 65 blocks (all at the current time, so the chain's clock and the price feed stay current),
 * which moves the `finalized` tag past the transaction.
 */
import { createPublicClient, createTestClient, createWalletClient, type Hex, http } from 'viem';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { chain4663 } from '../../src/chain/chain.ts';
import type { Recorder } from './recorder.ts';
import { type SoakStack, soakWallet } from './stack.ts';
import type { ChainSlot } from './traffic.ts';

/** Statuses after which a V4 launch never moves again. */
export const terminalStatuses = ['finalized', 'failed', 'action_required'];

/** Statuses of a launch whose exact transaction is in a block that is not final yet. */
const afterInclusion = ['submitted', 'sequencer_soft_confirmed', 'ethereum_posted'];

interface Tracked {
  createdAt: number;
  sentAt: number | null;
  status: string;
}

/** The driver over `stack`; `hookSalt` supplies a fresh hook salt for each launch it takes. */
export function chainDriver(input: {
  stack: SoakStack;
  recorder: Recorder;
  maxInFlight: number;
  hookSalt: () => Hex | undefined;
}) {
  const { stack, recorder } = input;
  const chain = chain4663(stack.rpcUrl);
  const reader = createPublicClient({ chain, transport: http(stack.rpcUrl) });
  const wallet = createWalletClient({ chain, transport: http(stack.rpcUrl) });
  const testClient = createTestClient({ mode: 'anvil', chain, transport: http(stack.rpcUrl) });
  const tracked = new Map<string, Tracked>();
  const finished = new Map<string, { status: string; seconds: number }>();
  let minedAt = 0;
  const figures = { transactionsSent: 0, transactionsReverted: 0, blocksMined: 0, sendErrors: [] as string[] };

  const slot: ChainSlot = {
    wants: () => tracked.size < input.maxInFlight,
    hookSalt: input.hookSalt,
    take: (launchId: string, _request: CustomLaunchCreateRequestV4) => {
      tracked.set(launchId, { createdAt: Date.now(), sentAt: null, status: 'received' });
    },
  };

  const send = async (launchId: string, tx: { to: string; valueWei: string; data: string; gasLimit: string }) => {
    try {
      const hash = await wallet.sendTransaction({
        account: soakWallet,
        chain,
        to: tx.to as Hex,
        value: BigInt(tx.valueWei),
        data: tx.data as Hex,
        gas: BigInt(tx.gasLimit),
      });
      figures.transactionsSent += 1;
      const receipt = await reader.waitForTransactionReceipt({ hash, pollingInterval: 250 });
      if (receipt.status !== 'success') figures.transactionsReverted += 1;
    } catch (err) {
      figures.sendErrors.push(`${launchId}: ${String(err).slice(0, 300)}`);
    }
  };

  /** One pass over the tracked launches: read each, send an offered transaction, retire a final one. */
  const pass = async () => {
    for (const [launchId, t] of [...tracked.entries()]) {
      const r = await recorder.send('driver-read', `${stack.url}/v4/chains/4663/custom-launches/${launchId}`, {
        headers: { Authorization: `Bearer ${stack.walletKey}` },
      });
      if (r?.status !== 200 || !r.json.status) continue;
      t.status = r.json.status;
      if (terminalStatuses.includes(t.status)) {
        finished.set(launchId, { status: t.status, seconds: Math.round((Date.now() - t.createdAt) / 1000) });
        tracked.delete(launchId);
      } else if (t.sentAt === null && r.json.walletTransaction && t.status === 'awaiting_wallet_signature') {
        t.sentAt = Date.now();
        await send(launchId, r.json.walletTransaction);
      }
    }
    // Mined only while a sent transaction waits for finality, at most every 5 s: the chain stays short.
    if (Date.now() - minedAt >= 5000 && [...tracked.values()].some((t) => afterInclusion.includes(t.status))) {
      await testClient.mine({ blocks: 65, interval: 0 });
      minedAt = Date.now();
      figures.blocksMined += 65;
    }
  };

  /** Runs passes about every second until `until()` and nothing is tracked, or `hardStop()`. */
  const run = async (until: () => boolean, hardStop: () => boolean) => {
    while (!hardStop() && !(until() && tracked.size === 0)) {
      const started = Date.now();
      try {
        await pass();
      } catch (err) {
        figures.sendErrors.push(`pass: ${String(err).slice(0, 300)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (Date.now() - started))));
    }
  };
  return { slot, run, tracked, finished, figures };
}
