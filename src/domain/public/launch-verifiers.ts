import type { LaunchCoverageV1 } from '../../../generated/types/service.ts';
import { imageFindingCodes } from '../../core/image.ts';
import type { ErrorCode } from '../../errors/codes.ts';
import type { FindingCode } from '../launches/finding-codes.ts';
import { staticBaselineRuleCodes } from '../static-baseline/rule-codes.ts';
import type { RunningGates } from './running-gates.ts';

type Coverage = LaunchCoverageV1['verifierCoverage'][number]['coverage'];

/** One server verifier of the V4 lane: the codes it owns and whether, and how far, it runs in a configuration. */
export interface LaunchVerifier {
  verifierId: string;
  /** What it checks, for the coverage report. */
  checks: string;
  /** The codes it reports (finding codes, or error codes for refusals). */
  codes: ReadonlyArray<FindingCode | ErrorCode>;
  /** Whether it runs at all in this configuration (main.ts wiring). */
  runs(gates: RunningGates): boolean;
  /** The codes it owns but does not implement yet (reported as missing: partial coverage). */
  missing?(): ReadonlyArray<FindingCode>;
  /** A limit that holds even when it runs (partial coverage), or null. */
  limit?(gates: RunningGates): string | null;
}

const chainGates = (gates: RunningGates) => gates.chainGates !== null;
const noChainGates = 'Not run: this deployment runs no chain gates (CHAIN_NOT_CONFIGURED).';

/** The static baseline's obligations: the statically decided hard blocks and the bound evidence duties. */
const staticBaselineObligations = [
  'RUNTIME_CALLCODE',
  'RUNTIME_SELFDESTRUCT',
  'NONCANONICAL_POOL_MANAGER',
  'TOKEN_ROLE_BINDING_INVALID',
  'HOOK_ROLE_BINDING_INVALID',
  'PROXY_OR_DELEGATECALL',
  'MINT_CONTROL',
  'TAX_CONTROL',
  'PAUSE_CONTROL',
  'TRANSFER_CONTROL',
  'LIQUIDITY_CUSTODY',
  'EXTERNAL_DEPENDENCY',
  'RETURN_DELTA_ACCOUNTING',
  'POOL_MANAGER_NOT_STATIC',
] as const satisfies readonly FindingCode[];

/**
 * Every server verifier of the V4 lane, in the order a request meets them: the schema and request rules on every
 * preflight and create, the chain-free admission gates (image, static baseline, USD 1 initial buy) in preflight and
 * in the lifecycle worker, then the chain gates of the worker (LaunchAuthorizer) and the post-authorization tracker
 * and source verifier, which run only when the configuration binds a chain deployment. Each hard-block and
 * evidence-duty code of the finding table belongs to exactly one verifier (test/domain/public-documents.test.ts).
 * Spec: `verifierCoverage` of spec/schemas/launch-coverage.v1.schema.json (getLaunchCoverageV4).
 */
export const launchVerifiers: readonly LaunchVerifier[] = [
  {
    verifierId: 'request.schema',
    checks: 'Strict JSON bytes and closed JSON Schema validation of every request, its media type and byte limit.',
    codes: ['INVALID_REQUEST', 'MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
    runs: () => true,
  },
  {
    verifierId: 'request.rules',
    checks:
      'Chain-free request rules: chain and wallet binding; metadata, graph, funding-plan and intent hashes; funding-plan sums; unique target, reference and label ids; description bytes; hook mask flags.',
    codes: ['INVALID_REQUEST', 'WALLET_MISMATCH', 'CHAIN_MISMATCH', 'BUILD_ONLY_PLAN'],
    runs: () => true,
  },
  {
    verifierId: 'metadata.image',
    checks: 'The metadata image decodes as a PNG or single-frame GIF equal to its declared media type.',
    codes: imageFindingCodes,
    runs: () => true,
  },
  {
    verifierId: 'static.baseline',
    checks:
      "Static bytecode baseline over every target's runtime code, in preflight and before any permit: hard blocks block, evidence duties warn.",
    codes: staticBaselineObligations,
    runs: () => true,
    missing: () => staticBaselineObligations.filter((c) => !(staticBaselineRuleCodes as readonly string[]).includes(c)),
  },
  {
    verifierId: 'source.selfdestruct',
    checks:
      "solc's AST of the delivered sourceBundleManifest files: a call of the selfdestruct builtin blocks the permit, and the permit waits (SOURCE_FILES_PENDING) until the server holds every file.",
    codes: ['SOURCE_SELFDESTRUCT', 'SOURCE_FILES_PENDING'],
    runs: () => true,
  },
  {
    verifierId: 'initial_buy.usd_quote',
    checks: 'Profile 4.1.0: the initial buy is worth at least USD 1 by a server quote at most 60 seconds old.',
    codes: ['INITIAL_BUY_USD_UNPROVEN', 'INITIAL_BUY_BELOW_USD_1'],
    runs: (gates) => gates.priceFeed,
  },
  {
    verifierId: 'deployment.evidence',
    checks: 'The bound chain-deployment evidence is verified against both providers before the lane takes writes.',
    codes: ['DEPLOYMENT_EVIDENCE_TAMPERED', 'DEPLOYMENT_EVIDENCE_UNVERIFIED'],
    runs: chainGates,
  },
  {
    verifierId: 'hook.callbacks',
    checks: 'Each enabled hook callback is probed on the chain: implemented, and guarded to the pool manager.',
    codes: ['CALLBACK_GUARD_MISSING', 'ENABLED_CALLBACK_MISSING', 'CALLBACK_GUARD_UNDECIDED'],
    runs: chainGates,
  },
  {
    verifierId: 'external.references',
    checks:
      'Each external contract reference binds address, live runtime hash, source-verification evidence, role and finalized checkpoint on both providers; an unbound reference blocks.',
    codes: ['EXTERNAL_REFERENCE_UNBOUND'],
    runs: chainGates,
    limit: (gates) =>
      gates.sourceVerificationRegistry
        ? null
        : 'No source-verification registry is configured, so no reference binds: every reference blocks.',
  },
  {
    verifierId: 'router.simulation',
    checks:
      'The request binds the served chain deployment; the permit is issued and the exact wallet transaction is simulated on the router before any handoff.',
    codes: ['CHAIN_DEPLOYMENT_MISMATCH', 'ROUTER_SIMULATION_REVERTED', 'CHAIN_NOT_CONFIGURED'],
    runs: chainGates,
  },
  {
    verifierId: 'launch.tracking',
    checks:
      "After authorization, the exact wallet transaction is followed on the chain to the published finality policy; a permit that expired before it was mined awaits the controller's permit-reissue decision.",
    codes: [
      'WALLET_TRANSACTION_MISMATCH',
      'WALLET_TRANSACTION_REVERTED',
      'LAUNCH_STAMPED_BY_OTHER_TRANSACTION',
      'LAUNCH_PERMIT_EXPIRED',
      'PERMIT_REISSUE_DECLINED',
      'CHAIN_REORG_DETECTED',
    ],
    runs: chainGates,
  },
];

/**
 * A verifier's coverage row in this configuration: not_covered when it does not run, partial when it runs with
 * owned codes not implemented yet or under a configured limit, else covered. The description says which.
 */
export function verifierCoverage(
  verifier: LaunchVerifier,
  gates: RunningGates,
): { verifierId: string; coverage: Coverage; description: string } {
  const { verifierId, checks } = verifier;
  if (!verifier.runs(gates)) {
    const why =
      verifierId === 'initial_buy.usd_quote'
        ? 'Not run: no price source is configured; the USD 1 check stays INITIAL_BUY_USD_UNPROVEN.'
        : noChainGates;
    return { verifierId, coverage: 'not_covered', description: `${checks} ${why}` };
  }
  const missing = verifier.missing?.() ?? [];
  const limit = verifier.limit?.(gates) ?? null;
  const notes = [
    ...(missing.length > 0 ? [`Not implemented yet: ${missing.join(', ')}.`] : []),
    ...(limit ? [limit] : []),
  ];
  if (notes.length === 0) return { verifierId, coverage: 'covered', description: checks };
  return { verifierId, coverage: 'partial', description: `${checks} ${notes.join(' ')}` };
}
