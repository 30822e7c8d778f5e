import { type Address, createPublicClient, type Hex, keccak256, type PublicClient } from 'viem';
import type { ChainDeploymentV1, CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { predictGraphTarget } from '../core/create2.ts';
import { callbackFlags } from '../core/hook-permissions.ts';
import { digestOf } from '../core/request-hashes.ts';
import { chain4663 } from './chain.ts';
import { isExecutionRevert, ProviderDisagreement } from './chain-failure.ts';
import { bindExternalReference, type SourceVerificationRecord } from './external-references.ts';
import { type CallbackVerdict, probeHookCallbacks } from './hook-probe.ts';
import { providerTransport } from './provider-transport.ts';
import { describeRevert, revertDataOf } from './revert.ts';

type GraphTarget = CustomLaunchCreateRequestV4['graphBundle']['targets'][number];

/** Where the launch chain reads: two providers, the bound deployment and the source-verification registry. */
export interface LaunchChainConfig {
  /** Two JSON-RPC URLs: the fixed provider positions 1 and 2. */
  rpcUrls: readonly [string, string];
  /** The chain-deployment document this server is bound to. */
  chainDeployment: ChainDeploymentV1;
  sourceVerificationRegistry: readonly SourceVerificationRecord[];
  /** Each provider request's timeout in ms (CHAIN_RPC_TIMEOUT_MS); 20 s when not given. */
  rpcTimeoutMs?: number;
}

/** A block both providers agree on: its number and hash. */
export interface Checkpoint {
  number: bigint;
  hash: Hex;
}

/** The graph's targets at their predicted CREATE2 addresses, with the index of each role the router needs. */
export interface GraphRoles {
  addresses: Address[];
  tokenIndex: number;
  hookIndex: number;
  initializerIndex: number;
  hook: GraphTarget & { hookPermissions: NonNullable<GraphTarget['hookPermissions']> };
}

/** The reasons one external reference does not bind (none: it binds), in request order. */
export interface ReferenceReasons {
  referenceId: string;
  address: string;
  reasons: string[];
}

/** The exact transaction the router simulation ran. */
export interface SimulatedCall {
  from: Address;
  to: Address;
  data: Hex;
  value: bigint;
  block: Checkpoint;
}

/** What the exact router simulation returned: the gas it used and its digest, or the EVM's decoded revert. */
export type SimulationResult = { ok: true; gasUsed: bigint; simulationDigest: string } | { ok: false; revert: string };

/**
 * What chain 4663 says about one launch request, read through both providers: whether the request binds the
 * deployment this server is bound to, the finalized checkpoint both providers agree on, the hook callbacks' probe
 * verdicts, each external reference's binding reasons and the router simulation. It reads and computes; it decides
 * nothing. Infrastructure problems throw (a provider down: viem's error; providers disagreeing with each other or the
 * bound deployment: ProviderDisagreement). Nothing is signed or sent: eth_call and reads only.
 */
export class LaunchChain {
  private readonly clients: readonly [PublicClient, PublicClient];

  constructor(private readonly config: LaunchChainConfig) {
    this.clients = config.rpcUrls.map((url, position) =>
      createPublicClient({
        chain: chain4663(url),
        transport: providerTransport(
          url,
          { chain: '4663', position },
          { retryCount: 1, timeout: config.rpcTimeoutMs ?? 20_000 },
        ),
      }),
    ) as unknown as readonly [PublicClient, PublicClient];
  }

  /** The chain deployment this server is bound to. */
  get chainDeployment(): ChainDeploymentV1 {
    return this.config.chainDeployment;
  }

  /** The request binds the chain deployment this server is bound to (the document and its descriptor digest). */
  bindsDeployment(request: CustomLaunchCreateRequestV4): boolean {
    const boundDigest = digestOf(this.config.chainDeployment);
    return digestOf(request.chainDeployment) === boundDigest && request.chainDeploymentDescriptorDigest === boundDigest;
  }

  /**
   * Both providers serve chain 4663 with the bound code at every root contract and the pool manager; then the
   * finalized checkpoint both agree on: the lower finalized height, with the same hash on both.
   */
  async agreedFinalizedCheckpoint(): Promise<Checkpoint> {
    await this.checkRootCode();
    const heads = await Promise.all(this.clients.map((c) => c.getBlock({ blockTag: 'finalized' })));
    let number = heads[0]?.number ?? 0n;
    for (const head of heads) if (head.number < number) number = head.number;
    const blocks = await Promise.all(this.clients.map((c) => c.getBlock({ blockNumber: number })));
    if (blocks[0]?.hash !== blocks[1]?.hash)
      throw new ProviderDisagreement(`providers disagree on the hash of finalized block ${number}`);
    return { number, hash: blocks[0]?.hash as Hex };
  }

  /**
   * The graph's predicted addresses and role indices; null when it lacks a token, a hook with permissions or an
   * initializer.
   */
  graphRoles(request: CustomLaunchCreateRequestV4): GraphRoles | null {
    const { contracts } = this.config.chainDeployment;
    const router = contracts.platformLaunchStampRouter.address as Address;
    const factory = contracts.graphFactory.address as Address;
    const targets = request.graphBundle.targets;
    const addresses = targets.map((t) =>
      predictGraphTarget(factory, router, t.create2Salt as Hex | undefined, t.runtimeBytecode as Hex),
    );
    const indexOf = (role: string) => targets.findIndex((t) => t.role === role);
    const [tokenIndex, hookIndex, initializerIndex] = [indexOf('token'), indexOf('hook'), indexOf('initializer')];
    const hook = targets[hookIndex];
    if (tokenIndex < 0 || hookIndex < 0 || initializerIndex < 0 || !hook?.hookPermissions) return null;
    return {
      addresses,
      tokenIndex,
      hookIndex,
      initializerIndex,
      hook: { ...hook, hookPermissions: hook.hookPermissions },
    };
  }

  /** The verdict of each enabled hook callback, probed on the first provider (probeHookCallbacks), in flag order. */
  async probeHook(request: CustomLaunchCreateRequestV4, roles: GraphRoles): Promise<CallbackVerdict[]> {
    const { contracts } = this.config.chainDeployment;
    const lm = request.liquidityModel;
    const hooks = roles.addresses[roles.hookIndex] as Address;
    const permissions = roles.hook.hookPermissions;
    return probeHookCallbacks(this.clients[0], {
      hookAddress: hooks,
      runtimeCode: roles.hook.runtimeBytecode as Hex,
      poolManager: contracts.canonicalPoolManager.address as Address,
      router: contracts.platformLaunchStampRouter.address as Address,
      key: {
        currency0: '0x0000000000000000000000000000000000000000',
        currency1: roles.addresses[roles.tokenIndex] as Address,
        fee: lm.lpFeePips,
        tickSpacing: lm.tickSpacing,
        hooks,
      },
      sqrtPriceX96: BigInt(lm.initialSqrtPriceX96),
      enabled: callbackFlags.filter((flag) => permissions[flag] === true),
    });
  }

  /**
   * Binds each external reference (bindExternalReference) at the agreed finalized block, with the launch's own graph
   * targets and the platform's contracts reserved; one entry per reference, in request order.
   */
  async referenceReasons(
    request: CustomLaunchCreateRequestV4,
    finalizedBlockNumber: bigint,
  ): Promise<ReferenceReasons[]> {
    const { contracts } = this.config.chainDeployment;
    const router = contracts.platformLaunchStampRouter.address as Address;
    const factory = contracts.graphFactory.address as Address;
    const targets = request.graphBundle.targets.map((t) =>
      predictGraphTarget(factory, router, t.create2Salt as Hex | undefined, t.runtimeBytecode as Hex),
    );
    const reserved = [
      ...targets,
      router,
      factory,
      contracts.canonicalPoolManager.address,
      contracts.permitAuthority.address,
    ].map((a) => a.toLowerCase());
    const outcomes: ReferenceReasons[] = [];
    for (const ref of request.externalContracts) {
      const reasons = await bindExternalReference(this.clients, ref, {
        finalizedBlockNumber,
        reservedAddresses: reserved,
        registry: this.config.sourceVerificationRegistry,
      });
      outcomes.push({ referenceId: ref.referenceId, address: ref.address, reasons });
    }
    return outcomes;
  }

  /** The first provider's latest block: the permit's chain time and the simulation's block. */
  async latestBlock(): Promise<Checkpoint & { timestamp: bigint }> {
    const latest = await this.clients[0].getBlock({ blockTag: 'latest' });
    return { number: latest.number, hash: latest.hash, timestamp: latest.timestamp };
  }

  /**
   * The exact router simulation (eth_call, then eth_estimateGas) at the given block, with the wallet's balance
   * overridden: budgets do not prove funds, the wallet checks gas and balance. Only the EVM's revert is a result; a
   * provider that did not answer proves nothing and throws.
   */
  async simulate(call: SimulatedCall): Promise<SimulationResult> {
    const primary = this.clients[0];
    const simulation = { account: call.from, to: call.to, data: call.data, value: call.value };
    const at = {
      blockNumber: call.block.number,
      stateOverride: [{ address: call.from, balance: call.value + 10n ** 21n }],
    };
    let gasUsed: bigint;
    try {
      await primary.call({ ...simulation, ...at });
      gasUsed = await primary.estimateGas({ ...simulation, ...at });
    } catch (err) {
      if (!isExecutionRevert(err)) throw err;
      return { ok: false, revert: describeRevert(revertDataOf(err)) };
    }
    const simulationDigest = digestOf({
      chainId: '4663',
      blockNumber: call.block.number.toString(),
      blockHash: call.block.hash,
      from: call.from.toLowerCase(),
      to: call.to.toLowerCase(),
      valueWei: call.value.toString(),
      calldataHash: keccak256(call.data),
      gasUsed: gasUsed.toString(),
      outcome: 'success',
    });
    return { ok: true, gasUsed, simulationDigest };
  }

  /** Both providers must serve chain 4663 with the bound code at every root contract and the pool manager. */
  private async checkRootCode(): Promise<void> {
    const { contracts } = this.config.chainDeployment;
    for (const [i, client] of this.clients.entries()) {
      const chainId = await client.getChainId();
      if (chainId !== 4663) throw new ProviderDisagreement(`provider ${i + 1} serves chain ${chainId}, not 4663`);
      for (const [name, binding] of Object.entries(contracts)) {
        const code = await client.getCode({ address: binding.address as Address });
        if (keccak256(code ?? '0x') !== binding.runtimeCodeHash.toLowerCase()) {
          throw new ProviderDisagreement(
            `provider ${i + 1}: ${name} at ${binding.address} does not hold the bound runtime code`,
          );
        }
      }
    }
  }
}
