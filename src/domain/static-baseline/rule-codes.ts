import type { FindingCode } from '../launches/finding-codes.ts';

/**
 * The finding codes the static baseline implements: every code evaluateStaticBaseline (rules.ts) can report (its
 * emitter accepts only these), plus the hook's address-bit rule admission reports beside it (admission/evaluate.ts,
 * HOOK_ROLE_BINDING_INVALID). The coverage report and the launch guide read this list, so a rule added here is
 * reported covered and a rule missing here is reported missing. Spec: the hard-block rules and evidence duties of
 * `staticBaseline` in spec/schemas/custom-launch-preflight.v2.schema.json.
 */
export const staticBaselineRuleCodes = [
  'RUNTIME_CALLCODE',
  'RUNTIME_SELFDESTRUCT',
  'NONCANONICAL_POOL_MANAGER',
  'TOKEN_ROLE_BINDING_INVALID',
  'HOOK_ROLE_BINDING_INVALID',
  'PROXY_OR_DELEGATECALL',
  'MINT_CONTROL',
  'PAUSE_CONTROL',
  'TRANSFER_CONTROL',
  'TAX_CONTROL',
  'EXTERNAL_DEPENDENCY',
  'LIQUIDITY_CUSTODY',
  'RETURN_DELTA_ACCOUNTING',
  'POOL_MANAGER_NOT_STATIC',
] as const satisfies readonly FindingCode[];

/** A code the static baseline implements. */
export type StaticBaselineRuleCode = (typeof staticBaselineRuleCodes)[number];
