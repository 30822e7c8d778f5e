import { isExecutionRevert, isProviderUnreachable, ProviderDisagreement } from '../../chain/chain-failure.ts';
import type { FindingCode } from '../launches/finding-codes.ts';

/** No fresh native/USD quote exists for the USD 1 initial-buy check at the permit stage (none, stale or unreadable). */
export class QuoteUnavailable extends Error {
  override readonly name = 'QuoteUnavailable';
}

/** What a failed lifecycle step means for the launch. */
export interface StepFailure {
  /** transient: the launch keeps its status and the step is retried; definitive: the status changes. */
  kind: 'transient' | 'definitive';
  /** The public code: lifecycleQueue.lastErrorCode when transient, the blocking finding when definitive. */
  code: FindingCode;
}

/**
 * Classifies an error a lifecycle step threw (spec/schemas/custom-launch-resource.v4.schema.json, LifecycleQueue).
 * Only an EVM revert is definitive: the call's own outcome. Providers that do not answer, that disagree, a missing
 * fresh quote and anything unexplained are transient: they prove nothing about the launch, and the validation
 * deadline (or the permit's expiry) bounds how long they are waited out.
 */
export function classifyStepFailure(err: unknown): StepFailure {
  if (isExecutionRevert(err)) return { kind: 'definitive', code: 'ROUTER_SIMULATION_REVERTED' };
  if (err instanceof ProviderDisagreement) return { kind: 'transient', code: 'CHAIN_PROVIDERS_DISAGREE' };
  if (err instanceof QuoteUnavailable) return { kind: 'transient', code: 'INITIAL_BUY_QUOTE_UNAVAILABLE' };
  if (isProviderUnreachable(err)) return { kind: 'transient', code: 'CHAIN_RPC_UNAVAILABLE' };
  return { kind: 'transient', code: 'LIFECYCLE_STEP_FAILED' };
}

/** Highest attempt count lifecycleQueue shows (its schema maximum); the counter saturates there. */
export const maxShownAttempt = 1_000_000;

/**
 * The wait before the next attempt after `attempt` failed ones: `baseMs` doubled per attempt, capped at `maxMs`,
 * minus up to a fifth of jitter (`random` in [0, 1)) so launches that failed together do not retry together.
 * Spec: LifecycleQueue in spec/schemas/custom-launch-resource.v4.schema.json.
 */
export function backoffDelayMs(
  attempt: number,
  policy: { baseMs: number; maxMs: number },
  random: () => number = Math.random,
): number {
  const capped = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(capped - capped * 0.2 * random());
}
