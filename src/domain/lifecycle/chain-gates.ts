import type { Address } from 'viem';
import type {
  ChainDeploymentV1,
  CustomLaunchCreateRequestV4,
  CustomLaunchWalletTransactionV4,
  ExternalReferenceBindingV2,
  ExternalReferenceOutcomeV2,
} from '../../../generated/types/service.ts';
import { type ChainGatesConfig, chainGatesConfigFrom } from '../../chain/chain-gates-config.ts';
import type { CallbackVerdict } from '../../chain/hook-probe.ts';
import {
  type Checkpoint,
  type GraphRoles,
  LaunchChain,
  type ReferenceReasons,
  type SimulationResult,
} from '../../chain/launch-chain.ts';
import { encodeRouterLaunch, type LaunchPermit, launchPermitFor, PermitAttester } from '../../chain/launch-permit.ts';
import type { Config } from '../../config.ts';
import { digestOf } from '../../core/request-hashes.ts';
import { type AdmissionFinding, unboundReferenceFinding } from '../admission/evaluate.ts';

/** What the chain gates concluded: the exact wallet transaction, or server-authored blocking findings. */
export type ChainGateOutcome =
  | { kind: 'authorized'; walletTransaction: CustomLaunchWalletTransactionV4; findings: AdmissionFinding[] }
  | { kind: 'action_required'; findings: AdmissionFinding[] };

function blocking(code: AdmissionFinding['code'], message: string, targetId: string | null = null): AdmissionFinding {
  return { code, severity: 'blocking', targetId, message };
}

/**
 * The findings of the hook callbacks' probe verdicts, on the hook target: an unguarded callback blocks
 * (CALLBACK_GUARD_MISSING), an enabled callback the hook lacks blocks (ENABLED_CALLBACK_MISSING), and an undecided
 * one needs evidence (the router simulation decides); a guarded callback finds nothing.
 */
export function hookProbeFindings(verdicts: readonly CallbackVerdict[], hookTargetId: string): AdmissionFinding[] {
  const findings: AdmissionFinding[] = [];
  for (const v of verdicts) {
    if (v.outcome === 'unguarded') {
      findings.push(
        blocking(
          'CALLBACK_GUARD_MISSING',
          `${v.callback} succeeds for any caller: it is not guarded to the pool manager.`,
          hookTargetId,
        ),
      );
    } else if (v.outcome === 'not_implemented') {
      findings.push(blocking('ENABLED_CALLBACK_MISSING', `${v.callback} is enabled but ${v.detail}.`, hookTargetId));
    } else if (v.outcome === 'undecided') {
      findings.push({
        code: 'CALLBACK_GUARD_UNDECIDED',
        severity: 'needs_evidence',
        targetId: hookTargetId,
        message: `${v.callback} ${v.detail}; the router simulation decides whether the launch proceeds.`,
      });
    }
  }
  return findings;
}

/**
 * Each reference's outcome (spec/schemas/custom-launch-preflight.v2.schema.json): bound when no reason holds it back.
 */
export function referenceOutcomes(references: readonly ReferenceReasons[]): ExternalReferenceOutcomeV2[] {
  return references.map(({ referenceId, address, reasons }) => ({
    referenceId,
    address,
    status: reasons.length === 0 ? 'bound' : 'unbound',
    reasons,
  }));
}

/**
 * The outcome of the exact router simulation: a revert blocks with its decoded reason (ROUTER_SIMULATION_REVERTED);
 * success authorizes the exact wallet transaction, its gas limit advisory (the simulated gas plus a quarter: the
 * wallet performs exact gas and balance checks).
 */
export function simulationOutcome(
  simulation: SimulationResult,
  transaction: { from: string; to: string; data: `0x${string}`; permit: LaunchPermit; block: Checkpoint },
  findings: AdmissionFinding[],
): ChainGateOutcome {
  if (!simulation.ok) {
    const message = `The exact router simulation at block ${transaction.block.number} reverted: ${simulation.revert}.`;
    return { kind: 'action_required', findings: [...findings, blocking('ROUTER_SIMULATION_REVERTED', message)] };
  }
  return {
    kind: 'authorized',
    findings,
    walletTransaction: {
      chainId: '4663',
      from: transaction.from,
      to: transaction.to,
      valueWei: transaction.permit.value.toString(),
      data: transaction.data,
      gasLimit: ((simulation.gasUsed * 5n) / 4n).toString(),
      permitExpiresAt: new Date(Number(transaction.permit.expiresAt) * 1000).toISOString(),
      simulationDigest: simulation.simulationDigest,
    },
  };
}

/**
 * The chain gates before a wallet handoff (spec/openapi/paths/v4-custom-launches.yaml createCustomLaunchV4; the
 * launch's `validating` and `authorized` states in spec/schemas/custom-launch-resource.v4.schema.json): the request's
 * chainDeployment must be the one this server is bound to, and both providers must read the bound root contracts' code;
 * enabled hook callbacks are probed on the chain; every external reference must bind; then the service issues the
 * permit (an EIP-712 attestation bound to the launch intent hash, the wallet, the exact value, the finalized checkpoint
 * and an expiry at most one hour away), encodes the router call and simulates the exact wallet transaction. A revert
 * gives `action_required` with the decoded reason. The service never signs or sends a transaction. The chain
 * (LaunchChain) reports what it read; this class turns it into findings and the outcome.
 */
export class LaunchAuthorizer {
  private readonly chain: LaunchChain;
  private readonly attester: PermitAttester;

  constructor(config: ChainGatesConfig) {
    this.chain = new LaunchChain(config);
    this.attester = new PermitAttester(config.permitAttesterKey);
  }

  /** The chain deployment this server is bound to (its finality policy is the tracker's). */
  get chainDeployment(): ChainDeploymentV1 {
    return this.chain.chainDeployment;
  }

  /**
   * Infrastructure problems throw and the worker retries them (a provider down: viem's error; providers disagreeing
   * with each other or the bound deployment: ProviderDisagreement); only the gates' own verdicts are returned.
   */
  async authorize(request: CustomLaunchCreateRequestV4): Promise<ChainGateOutcome> {
    if (!this.chain.bindsDeployment(request)) {
      const message = `The request is bound to another chain deployment; this server is bound to ${digestOf(this.chainDeployment)}.`;
      return { kind: 'action_required', findings: [blocking('CHAIN_DEPLOYMENT_MISMATCH', message)] };
    }
    const finalized = await this.chain.agreedFinalizedCheckpoint();
    const roles = this.chain.graphRoles(request);
    if (!roles) {
      const message = 'The graph needs a token, a hook and an initializer target.';
      return { kind: 'action_required', findings: [blocking('HOOK_ROLE_BINDING_INVALID', message)] };
    }
    const findings = hookProbeFindings(await this.chain.probeHook(request, roles), roles.hook.targetId);
    for (const outcome of referenceOutcomes(await this.chain.referenceReasons(request, finalized.number))) {
      if (outcome.status === 'unbound') findings.push(unboundReferenceFinding(outcome, outcome.reasons));
    }
    if (findings.some((f) => f.severity === 'blocking')) return { kind: 'action_required', findings };
    return this.permitAndSimulate(request, roles, finalized, findings);
  }

  /**
   * The read-only binding of the request's external references, as `authorize` runs it (same checks, same finalized
   * checkpoint rule), for preflight (spec/openapi/paths/v4-custom-launches-preflight.yaml preflightCustomLaunchV4;
   * spec/schemas/custom-launch-preflight.v2.schema.json ExternalReferenceBinding): it reads the chain and nothing else
   * (no permit, no signature, no write). Infrastructure problems throw, as in `authorize`.
   */
  async bindExternalReferences(request: CustomLaunchCreateRequestV4): Promise<ExternalReferenceBindingV2> {
    if (request.externalContracts.length === 0) return { status: 'not_run', reason: 'no_external_references' };
    if (!this.chain.bindsDeployment(request)) return { status: 'not_run', reason: 'chain_deployment_mismatch' };
    const finalized = await this.chain.agreedFinalizedCheckpoint();
    return {
      status: 'ran',
      references: referenceOutcomes(await this.chain.referenceReasons(request, finalized.number)),
    };
  }

  /**
   * The permit on chain time (the latest block's timestamp), the router call it signs, and the exact simulation of
   * that wallet transaction at the latest block.
   */
  private async permitAndSimulate(
    request: CustomLaunchCreateRequestV4,
    roles: GraphRoles,
    finalized: Checkpoint,
    findings: AdmissionFinding[],
  ): Promise<ChainGateOutcome> {
    const { contracts } = this.chainDeployment;
    const latest = await this.chain.latestBlock();
    const permit = launchPermitFor(request, finalized, latest.timestamp);
    const signature = await this.attester.sign(contracts.permitAuthority.address as Address, permit);
    const data = encodeRouterLaunch(request, roles, permit, signature);
    const router = contracts.platformLaunchStampRouter.address as Address;
    const from = request.launchWallet as Address;
    const simulation = await this.chain.simulate({ from, to: router, data, value: permit.value, block: latest });
    return simulationOutcome(
      simulation,
      { from: request.launchWallet, to: router, data, permit, block: latest },
      findings,
    );
  }
}

/**
 * The chain gates of a configuration (chainGatesConfigFrom), or null when it configures none (then launches wait in
 * `validating` with CHAIN_NOT_CONFIGURED). A half-configured chain is an error.
 */
export function authorizerFromConfig(config: Config): LaunchAuthorizer | null {
  const gates = chainGatesConfigFrom(config);
  return gates ? new LaunchAuthorizer(gates) : null;
}
