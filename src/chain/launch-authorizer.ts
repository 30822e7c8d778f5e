import { readFileSync } from 'node:fs';
import {
  type Address,
  createPublicClient,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { launchStampRouterAbi } from '../../generated/contracts/abis.ts';
import type { components } from '../../generated/types/service.ts';
import type { Config } from '../config.ts';
import { type AdmissionFinding, unboundReferenceFinding } from '../domain/admission/evaluate.ts';
import { callbackFlags } from '../core/hook-permissions.ts';
import { digestOf } from '../core/request-hashes.ts';
import type { CreateRequestV4 } from '../domain/launches/request-rules.ts';
import { schemaProblems } from '../spec/schema-registry.ts';
import { chain4663 } from './chain.ts';
import { isExecutionRevert, ProviderDisagreement } from './chain-failure.ts';
import type { ChainDeployment } from './deployment-evidence.ts';
import {
  bindExternalReference,
  loadSourceVerificationRegistry,
  type SourceVerificationRecord,
} from './external-references.ts';
import { predictGraphTarget } from '../core/create2.ts';
import { probeHookCallbacks } from './hook-probe.ts';
import { describeRevert, revertDataOf } from './revert.ts';

export type WalletTransaction = components['schemas']['CustomLaunchWalletTransactionV4'];
/** The read-only binding of a request's external references (CustomLaunchPreflightV2 externalReferenceBinding). */
export type ExternalReferenceBinding = components['schemas']['ExternalReferenceBindingV2'];
type ExternalReferenceOutcome = components['schemas']['ExternalReferenceOutcomeV2'];

/** What the chain gates concluded: the exact wallet transaction, or server-authored blocking findings. */
export type ChainGateOutcome =
  | { kind: 'authorized'; walletTransaction: WalletTransaction; findings: AdmissionFinding[] }
  | { kind: 'action_required'; findings: AdmissionFinding[] };

export interface LaunchAuthorizerConfig {
  /** Two JSON-RPC URLs: the fixed provider positions 1 and 2. */
  rpcUrls: readonly [string, string];
  /** The chain-deployment document this server is bound to. */
  chainDeployment: ChainDeployment;
  /** The permit attester's key: it signs EIP-712 permits (attestations), never a transaction. */
  permitAttesterKey: Hex;
  sourceVerificationRegistry: readonly SourceVerificationRecord[];
}

const zero32: Hex = `0x${'0'.repeat(64)}`;

/** The EIP-712 domain and type of a launch permit, as contracts/PermitAuthority.sol verifies them. */
export function launchPermitTypedData(permitAuthority: Address) {
  return {
    domain: { name: 'CustomLaunchPermitAuthority', version: '1', chainId: 4663, verifyingContract: permitAuthority },
    types: {
      LaunchPermit: [
        { name: 'launchIntentHash', type: 'bytes32' },
        { name: 'wallet', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'checkpointBlockNumber', type: 'uint256' },
        { name: 'checkpointBlockHash', type: 'bytes32' },
        { name: 'issuedAt', type: 'uint64' },
        { name: 'expiresAt', type: 'uint64' },
      ],
    },
    primaryType: 'LaunchPermit',
  } as const;
}

function blocking(code: AdmissionFinding['code'], message: string, targetId: string | null = null): AdmissionFinding {
  return { code, severity: 'blocking', targetId, message };
}

/**
 * The chain gates before a wallet handoff (launch-transport.md What the service does 5-8, States `validating` and
 * `authorized`; issue 5): the request's chainDeployment must be the one this server is bound to, and both providers
 * must read the bound root contracts' code; enabled hook callbacks are probed on the chain; every external reference
 * must bind; then the service issues the permit (an EIP-712 attestation bound to the launch intent hash, the wallet,
 * the exact value, the finalized checkpoint and an expiry at most one hour away), encodes the router call with viem
 * and simulates the exact wallet transaction. A revert gives `action_required` with the decoded reason. The service
 * never signs or sends a transaction: the simulation is an eth_call with the wallet's balance overridden (budgets do
 * not prove funds; the wallet checks gas and balance).
 */
export class LaunchAuthorizer {
  private readonly clients: readonly [PublicClient, PublicClient];
  private readonly attester;

  /** The chain deployment this server is bound to (its finality policy is the tracker's). */
  get chainDeployment(): ChainDeployment {
    return this.config.chainDeployment;
  }

  constructor(private readonly config: LaunchAuthorizerConfig) {
    this.clients = config.rpcUrls.map((url) =>
      createPublicClient({ chain: chain4663(url), transport: http(url, { retryCount: 1, timeout: 20_000 }) }),
    ) as unknown as readonly [PublicClient, PublicClient];
    this.attester = privateKeyToAccount(config.permitAttesterKey);
  }

  /**
   * Infrastructure problems throw and the worker retries them (a provider down: viem's error; providers disagreeing
   * with each other or the bound deployment: ProviderDisagreement); only the gates' own verdicts are returned.
   */
  async authorize(request: CreateRequestV4): Promise<ChainGateOutcome> {
    const deployment = this.config.chainDeployment;
    const boundDigest = digestOf(deployment);
    if (!this.bindsDeployment(request)) {
      return {
        kind: 'action_required',
        findings: [
          blocking(
            'CHAIN_DEPLOYMENT_MISMATCH',
            `The request is bound to another chain deployment; this server is bound to ${boundDigest}.`,
          ),
        ],
      };
    }
    const [primary] = this.clients;
    await this.checkRootCode();
    const finalized = await this.agreedFinalizedCheckpoint();

    const router = deployment.contracts.platformLaunchStampRouter.address as Address;
    const factory = deployment.contracts.graphFactory.address as Address;
    const poolManager = deployment.contracts.canonicalPoolManager.address as Address;
    const targets = request.graphBundle.targets;
    const addresses = targets.map((t) =>
      predictGraphTarget(factory, router, t.create2Salt as Hex | undefined, t.runtimeBytecode as Hex),
    );
    const indexOf = (role: string) => targets.findIndex((t) => t.role === role);
    const [tokenIndex, hookIndex, initializerIndex] = [indexOf('token'), indexOf('hook'), indexOf('initializer')];
    const hook = targets[hookIndex];
    if (tokenIndex < 0 || hookIndex < 0 || initializerIndex < 0 || !hook?.hookPermissions) {
      return {
        kind: 'action_required',
        findings: [blocking('HOOK_ROLE_BINDING_INVALID', 'The graph needs a token, a hook and an initializer target.')],
      };
    }
    const lm = request.liquidityModel;
    const key = {
      currency0: '0x0000000000000000000000000000000000000000' as Address,
      currency1: addresses[tokenIndex] as Address,
      fee: lm.lpFeePips,
      tickSpacing: lm.tickSpacing,
      hooks: addresses[hookIndex] as Address,
    };

    const findings: AdmissionFinding[] = [];
    const permissions = hook.hookPermissions;
    const enabled = callbackFlags.filter((flag) => permissions[flag] === true);
    const verdicts = await probeHookCallbacks(primary, {
      hookAddress: key.hooks,
      runtimeCode: hook.runtimeBytecode as Hex,
      poolManager,
      router,
      key,
      sqrtPriceX96: BigInt(lm.initialSqrtPriceX96),
      enabled,
    });
    for (const v of verdicts) {
      if (v.outcome === 'unguarded') {
        findings.push(
          blocking(
            'CALLBACK_GUARD_MISSING',
            `${v.callback} succeeds for any caller: it is not guarded to the pool manager.`,
            hook.targetId,
          ),
        );
      } else if (v.outcome === 'not_implemented') {
        findings.push(blocking('ENABLED_CALLBACK_MISSING', `${v.callback} is enabled but ${v.detail}.`, hook.targetId));
      } else if (v.outcome === 'undecided') {
        findings.push({
          code: 'CALLBACK_GUARD_UNDECIDED',
          severity: 'needs_evidence',
          targetId: hook.targetId,
          message: `${v.callback} ${v.detail}; the router simulation decides whether the launch proceeds.`,
        });
      }
    }

    for (const outcome of await this.referenceOutcomes(request, finalized.number)) {
      if (outcome.status === 'unbound') findings.push(unboundReferenceFinding(outcome, outcome.reasons));
    }
    if (findings.some((f) => f.severity === 'blocking')) return { kind: 'action_required', findings };

    // The permit, on chain time: the latest block's timestamp, expiring within the requested window (at most 1 h).
    const latest = await primary.getBlock({ blockTag: 'latest' });
    const issuedAt = latest.timestamp;
    const expiresAt = issuedAt + BigInt(Math.min(request.permitWindow.lifetimeSeconds, 3600));
    const funded = request.profile === '4.1.0' ? request.fundingPlan : null;
    const value = BigInt(
      request.profile === '4.1.0'
        ? request.fundingPlan.walletTransactionValueWei
        : request.funding.walletTransactionValueWei,
    );
    const launchIntentHash = `0x${request.launchIntentHash.slice('sha256:'.length)}` as Hex;
    const permit = {
      launchIntentHash,
      wallet: request.launchWallet as Address,
      value,
      checkpointBlockNumber: finalized.number,
      checkpointBlockHash: finalized.hash,
      issuedAt,
      expiresAt,
    };
    const signature = await this.attester.signTypedData({
      ...launchPermitTypedData(deployment.contracts.permitAuthority.address as Address),
      message: permit,
    });
    const data = encodeFunctionData({
      abi: launchStampRouterAbi,
      functionName: 'launch',
      args: [
        {
          launchIntentHash,
          lpFee: lm.lpFeePips,
          tickSpacing: lm.tickSpacing,
          sqrtPriceX96: BigInt(lm.initialSqrtPriceX96),
          tokenSupply: BigInt(lm.tokenLiquidityAmount),
          liquidityNative: BigInt(funded?.nativeAllocations.initialLiquidityWei ?? '0'),
          initialBuyNative: BigInt(funded?.nativeAllocations.initialBuyWei ?? '0'),
          minTokenOut: BigInt(funded?.initialBuy.minTokenOut ?? '0'),
          hookMask: hook.hookPermissions.mask,
          tokenIndex,
          hookIndex,
          initializerIndex,
        },
        targets.map((t) => ({
          runtimeCode: t.runtimeBytecode as Hex,
          salt: (t.create2Salt as Hex | undefined) ?? zero32,
        })),
        permit,
        signature,
      ],
    });

    // The exact router simulation, at the latest block, with the wallet's balance overridden.
    const from = request.launchWallet as Address;
    const simulation = { account: from, to: router, data, value, blockNumber: latest.number };
    const stateOverride = [{ address: from, balance: value + 10n ** 21n }];
    let gasUsed: bigint;
    try {
      await primary.call({ ...simulation, stateOverride });
      gasUsed = await primary.estimateGas({ ...simulation, stateOverride });
    } catch (err) {
      // Only the EVM's revert is the simulation's verdict; a provider that did not answer proves nothing.
      if (!isExecutionRevert(err)) throw err;
      const reason = describeRevert(revertDataOf(err));
      return {
        kind: 'action_required',
        findings: [
          ...findings,
          blocking(
            'ROUTER_SIMULATION_REVERTED',
            `The exact router simulation at block ${latest.number} reverted: ${reason}.`,
          ),
        ],
      };
    }
    const simulationDigest = digestOf({
      chainId: '4663',
      blockNumber: latest.number.toString(),
      blockHash: latest.hash,
      from: from.toLowerCase(),
      to: router.toLowerCase(),
      valueWei: value.toString(),
      calldataHash: keccak256(data),
      gasUsed: gasUsed.toString(),
      outcome: 'success',
    });
    return {
      kind: 'authorized',
      findings,
      walletTransaction: {
        chainId: '4663',
        from: request.launchWallet,
        to: router,
        valueWei: value.toString(),
        data,
        // Advisory: the simulated gas plus a quarter; the wallet performs exact gas and balance checks.
        gasLimit: ((gasUsed * 5n) / 4n).toString(),
        permitExpiresAt: new Date(Number(expiresAt) * 1000).toISOString(),
        simulationDigest,
      },
    };
  }

  /**
   * The read-only binding of the request's external references, as the chain gates run it in `authorize` (same
   * checks, same finalized checkpoint rule), for preflight: it reads the chain and nothing else (no permit, no
   * signature, no write). Spec: custom-launch-preflight.v2.schema.json ExternalReferenceBinding; launch-transport.md
   * What the service does 4 and 8. Infrastructure problems throw, as in `authorize`.
   */
  async bindExternalReferences(request: CreateRequestV4): Promise<ExternalReferenceBinding> {
    if (request.externalContracts.length === 0) return { status: 'not_run', reason: 'no_external_references' };
    if (!this.bindsDeployment(request)) return { status: 'not_run', reason: 'chain_deployment_mismatch' };
    await this.checkRootCode();
    const finalized = await this.agreedFinalizedCheckpoint();
    return { status: 'ran', references: await this.referenceOutcomes(request, finalized.number) };
  }

  /** The request binds the chain deployment this server is bound to (the document and its descriptor digest). */
  private bindsDeployment(request: CreateRequestV4): boolean {
    const boundDigest = digestOf(this.config.chainDeployment);
    return digestOf(request.chainDeployment) === boundDigest && request.chainDeploymentDescriptorDigest === boundDigest;
  }

  /**
   * Binds each external reference (bindExternalReference) at the agreed finalized block, with the launch's own graph
   * targets and the platform's contracts reserved; one outcome per reference, in request order.
   */
  private async referenceOutcomes(
    request: CreateRequestV4,
    finalizedBlockNumber: bigint,
  ): Promise<ExternalReferenceOutcome[]> {
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
    const outcomes: ExternalReferenceOutcome[] = [];
    for (const ref of request.externalContracts) {
      const reasons = await bindExternalReference(this.clients, ref, {
        finalizedBlockNumber,
        reservedAddresses: reserved,
        registry: this.config.sourceVerificationRegistry,
      });
      outcomes.push({
        referenceId: ref.referenceId,
        address: ref.address,
        status: reasons.length === 0 ? 'bound' : 'unbound',
        reasons,
      });
    }
    return outcomes;
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

  /** The finalized checkpoint both providers agree on: the lower finalized height, with the same hash on both. */
  private async agreedFinalizedCheckpoint(): Promise<{ number: bigint; hash: Hex }> {
    const heads = await Promise.all(this.clients.map((c) => c.getBlock({ blockTag: 'finalized' })));
    let number = heads[0]?.number ?? 0n;
    for (const head of heads) if (head.number < number) number = head.number;
    const blocks = await Promise.all(this.clients.map((c) => c.getBlock({ blockNumber: number })));
    if (blocks[0]?.hash !== blocks[1]?.hash)
      throw new ProviderDisagreement(`providers disagree on the hash of finalized block ${number}`);
    return { number, hash: blocks[0]?.hash as Hex };
  }
}

/**
 * The chain gates of a configuration, or null when it configures no chain gates (then launches wait in `validating`
 * with CHAIN_NOT_CONFIGURED). They need two provider URLs, the chain-deployment document (checked against its schema
 * and against CANONICAL_POOL_MANAGER) and the permit attester key. A half-configured chain is an error.
 */
export function authorizerFromConfig(config: Config): LaunchAuthorizer | null {
  const wanted = [config.chainDeploymentPath, config.permitAttesterKey];
  if (wanted.every((v) => v === null)) return null;
  if (wanted.some((v) => v === null) || config.chain4663RpcUrls.length !== 2) {
    throw new Error(
      'chain gates need CHAIN_DEPLOYMENT_PATH, PERMIT_ATTESTER_KEY and two CHAIN_4663_RPC_URLS (comma-separated)',
    );
  }
  const chainDeployment = JSON.parse(readFileSync(config.chainDeploymentPath as string, 'utf8')) as ChainDeployment;
  const problems = schemaProblems('chain-deployment.v1.schema.json', chainDeployment);
  if (problems.length > 0) {
    throw new Error(`${config.chainDeploymentPath} is not a chain-deployment.v1 document: ${problems.join('; ')}`);
  }
  if (
    chainDeployment.contracts.canonicalPoolManager.address.toLowerCase() !== config.canonicalPoolManager.toLowerCase()
  ) {
    throw new Error('the chain deployment binds another canonical pool manager than CANONICAL_POOL_MANAGER');
  }
  return new LaunchAuthorizer({
    rpcUrls: config.chain4663RpcUrls as unknown as readonly [string, string],
    chainDeployment,
    permitAttesterKey: config.permitAttesterKey as Hex,
    sourceVerificationRegistry: loadSourceVerificationRegistry(config.sourceVerificationRegistryPath),
  });
}
