import { startAnvil } from '../devnet/anvil.ts';

/** One execution on the local EVM: the gas its transaction used and whether it succeeded. */
export interface LocalExecution {
  gasUsed: number;
  success: boolean;
}

/** A component run: its deployment (creation code with its initialization data), then each operation in order. */
export interface LocalEngineRun {
  deployment: LocalExecution;
  /** The operations run, up to and including the first that failed (none after a failed deployment). */
  operations: LocalExecution[];
}

/** What the module review worker needs of a local EVM. */
export interface EngineEvm {
  runEngine(input: { creationCode: string; operations: readonly string[] }): Promise<LocalEngineRun>;
}

interface Receipt {
  status: string;
  gasUsed: string;
  contractAddress: string | null;
}

/**
 * A private local EVM over JSON-RPC (an anvil of the review worker's own, never a network: the module
 * review's engine execution budget is measured here). Each run starts from a snapshot and
 * reverts to it, so runs never see each other's state. Transactions come from the node's own unlocked development
 * account; no key of the service or of anyone else exists here. Every transaction may use up to `gasCap` (the node's
 * block gas limit), so the gas an execution really needs is measured even when it is far over a budget.
 */
export class JsonRpcEngineEvm implements EngineEvm {
  private id = 0;

  constructor(
    private readonly url: () => Promise<string>,
    private readonly gasCap = 30_000_000,
    /** How long one JSON-RPC call may take before it fails. */
    private readonly callTimeoutMs = 30_000,
  ) {}

  private async rpc<T>(method: string, params: unknown[]): Promise<T> {
    const url = await this.url();
    // A node that stops answering (a stalled connection under load) fails the call within the bound: the build
    // then fails with a message naming the call, where an unbounded wait held the review worker forever.
    const signal = AbortSignal.timeout(this.callTimeoutMs);
    let body: { result?: T; error?: { message?: string } };
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
        signal,
      });
      body = (await res.json()) as typeof body;
    } catch (err) {
      if (!signal.aborted) throw err;
      throw new Error(`local EVM ${method}: no answer within ${this.callTimeoutMs / 1000} s (retry the build)`);
    }
    if (body.error) throw new Error(`local EVM ${method}: ${body.error.message ?? 'error'}`);
    return body.result as T;
  }

  private async send(tx: Record<string, string>): Promise<Receipt> {
    const hash = await this.rpc<string>('eth_sendTransaction', [{ ...tx, gas: `0x${this.gasCap.toString(16)}` }]);
    // The node mines every transaction on arrival, but may publish the receipt a moment after the hash.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const receipt = await this.rpc<Receipt | null>('eth_getTransactionReceipt', [hash]);
      if (receipt) return receipt;
      if (Date.now() > deadline) throw new Error(`local EVM: no receipt for ${hash} within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Deploys `creationCode` and sends each operation's calldata to the deployed contract, measuring each. */
  async runEngine(input: { creationCode: string; operations: readonly string[] }): Promise<LocalEngineRun> {
    const snapshot = await this.rpc<string>('evm_snapshot', []);
    try {
      const [from] = await this.rpc<string[]>('eth_accounts', []);
      if (!from) throw new Error('local EVM: no development account');
      const fact = (r: Receipt): LocalExecution => ({
        gasUsed: Number(BigInt(r.gasUsed)),
        success: r.status === '0x1',
      });
      const deployed = await this.send({ from, data: input.creationCode });
      const run: LocalEngineRun = { deployment: fact(deployed), operations: [] };
      if (!run.deployment.success || !deployed.contractAddress) return run;
      for (const data of input.operations) {
        const executed = fact(await this.send({ from, to: deployed.contractAddress, data }));
        run.operations.push(executed);
        if (!executed.success) break;
      }
      return run;
    } finally {
      await this.rpc('evm_revert', [snapshot]);
    }
  }
}

/**
 * The review worker's own local EVM: an anvil (from npm) on a free loopback port, started at the first engine build
 * and stopped with `stop`. Nothing but the review's runs ever reaches it.
 */
export function privateAnvilEvm(): { evm: JsonRpcEngineEvm; stop: () => Promise<void> } {
  let node: ReturnType<typeof startAnvil> | undefined;
  return {
    evm: new JsonRpcEngineEvm(async () => {
      if (!node) {
        node = startAnvil();
        const { pid } = await node;
        // A process that ends without stop (an uncaught failure) takes its anvil with it.
        process.once('exit', () => {
          try {
            process.kill(-pid, 'SIGTERM');
          } catch {
            // Already stopped.
          }
        });
      }
      return (await node).url;
    }),
    stop: async () => {
      if (node) await (await node).stop();
    },
  };
}
