/**
 * The one table of launch finding codes and how each is classified. Admission reports these; the coverage report
 * lists them as obligations. Spec: the finding-code arrays and `staticBaseline` of
 * spec/schemas/custom-launch-preflight.v2.schema.json (seven objective hard-block rules, the evidence duties that
 * never block, the named nonblocking warnings) and `findingObligations` of spec/schemas/launch-coverage.v1.schema.json.
 * Project design: the code names of the rules the spec describes without naming.
 */
export const findingCodes = {
  RUNTIME_CALLCODE: {
    classification: 'hard_block',
    obligation: 'Runtime CALLCODE blocks deployment; rebuild without it.',
  },
  RUNTIME_SELFDESTRUCT: {
    classification: 'hard_block',
    obligation: 'Runtime SELFDESTRUCT blocks deployment; rebuild without it.',
  },
  SOURCE_SELFDESTRUCT: {
    classification: 'hard_block',
    obligation:
      'A selfdestruct(...) call of the builtin in the delivered sources (by the solc AST, never a comment or string) blocks the permit; rebuild without it.',
  },
  CALLBACK_GUARD_MISSING: {
    classification: 'hard_block',
    obligation: 'A definitively missing or invalid callback authentication guard blocks deployment.',
  },
  NONCANONICAL_POOL_MANAGER: {
    classification: 'hard_block',
    obligation: 'A literal noncanonical pool manager blocks deployment.',
  },
  ENABLED_CALLBACK_MISSING: {
    classification: 'hard_block',
    obligation: 'An enabled hook permission without its callback implementation blocks deployment.',
  },
  TOKEN_ROLE_BINDING_INVALID: {
    classification: 'hard_block',
    obligation:
      'The token role must be one project-owned ERC-20 target: its code carries transfer, transferFrom, approve, balanceOf, allowance and totalSupply (unless it delegates) and dispatches no v4 hook callback; a shared token and hook belongs to the MultiRole V2 lane.',
  },
  HOOK_ROLE_BINDING_INVALID: {
    classification: 'hard_block',
    obligation:
      'The hook role must be one project-owned physical target whose address bits equal its mask and whose dispatcher does not serve the whole ERC-20 core; a shared token and hook belongs to the MultiRole V2 lane.',
  },
  PROXY_OR_DELEGATECALL: {
    classification: 'evidence_duty',
    obligation: 'Bind evidence for proxy or delegatecall use.',
  },
  MINT_CONTROL: { classification: 'evidence_duty', obligation: 'Bind evidence for mint controls.' },
  TAX_CONTROL: { classification: 'evidence_duty', obligation: 'Bind evidence for transfer taxes.' },
  PAUSE_CONTROL: { classification: 'evidence_duty', obligation: 'Bind evidence for pause controls.' },
  TRANSFER_CONTROL: { classification: 'evidence_duty', obligation: 'Bind evidence for transfer controls.' },
  LIQUIDITY_CUSTODY: {
    classification: 'evidence_duty',
    obligation:
      'Bind evidence for liquidity custody: the code pushes a PoolManager selector that moves or holds pool assets or ERC-6909 claims (unlock, modifyLiquidity, swap, donate, take, settle, settleFor, sync, clear, mint, burn, transfer, transferFrom).',
  },
  EXTERNAL_DEPENDENCY: { classification: 'evidence_duty', obligation: 'Bind evidence for external dependencies.' },
  POOL_MANAGER_NOT_STATIC: {
    classification: 'evidence_duty',
    obligation: 'The hook pool manager is not a static constant; bind evidence that it is the canonical pool manager.',
  },
  RETURN_DELTA_ACCOUNTING: {
    classification: 'evidence_duty',
    obligation:
      "Bind evidence for return-delta accounting: a returns-delta permission is enabled and the hook's code carries the callback that returns the delta.",
  },
  EXTERNAL_REFERENCE_UNBOUND: {
    classification: 'hard_block',
    obligation: 'An external contract reference must bind address, runtime hash, source evidence, role and checkpoint.',
  },
  IMAGE_JPEG_UNSUPPORTED: {
    classification: 'hard_block',
    obligation: 'The metadata image must be PNG or single-frame GIF, not JPEG.',
  },
  IMAGE_WEBP_UNSUPPORTED: {
    classification: 'hard_block',
    obligation: 'The metadata image must be PNG or single-frame GIF, not WebP.',
  },
  IMAGE_GIF_ANIMATED: {
    classification: 'hard_block',
    obligation: 'An animated GIF is not accepted; use a single frame.',
  },
  IMAGE_PNG_ANIMATED: {
    classification: 'hard_block',
    obligation: 'An animated PNG is not accepted; use a still image.',
  },
  IMAGE_TRUNCATED: { classification: 'hard_block', obligation: 'The metadata image bytes end before the image does.' },
  IMAGE_TYPE_MISMATCH: {
    classification: 'hard_block',
    obligation: 'The image bytes disagree with the declared media type.',
  },
  IMAGE_UNRECOGNIZED: { classification: 'hard_block', obligation: 'The metadata image is not a PNG or GIF file.' },
  IMAGE_CORRUPT: { classification: 'hard_block', obligation: 'The metadata image does not decode.' },
  CHAIN_NOT_CONFIGURED: {
    classification: 'info',
    obligation: 'Every chain-free gate passed; the launch waits for the chain gates (the exact router simulation).',
  },
  SOURCE_FILES_PENDING: {
    classification: 'info',
    obligation:
      'Every chain-free gate passed; the permit waits for the sources: deliver every sourceBundleManifest file with PUT /v4/chains/4663/custom-launches/{launchId}/source-files/{sha256} (the CLI: custom-launch sources). The last file schedules the step again; no request change is needed.',
  },
  LIFECYCLE_STEP_FAILED: {
    classification: 'info',
    obligation:
      'A lifecycle step failed for an unexplained reason; it is retried with backoff until the validation deadline, and no request change is needed.',
  },
  CHAIN_RPC_UNAVAILABLE: {
    classification: 'info',
    obligation:
      'A chain provider did not answer; the step is retried with backoff until the deadline, and no request change is needed.',
  },
  CHAIN_PROVIDERS_DISAGREE: {
    classification: 'info',
    obligation:
      'The two chain providers disagree with each other or with the bound chain deployment; the step is retried with backoff until the deadline.',
  },
  INITIAL_BUY_QUOTE_UNAVAILABLE: {
    classification: 'info',
    obligation:
      'No fresh native/USD quote exists for the USD 1 initial-buy check; the step is retried with backoff until the validation deadline.',
  },
  DATABASE_UNAVAILABLE: { classification: 'info', obligation: 'The database does not answer or lacks a migration.' },
  LIFECYCLE_VALIDATION_DEADLINE_PASSED: {
    classification: 'info',
    obligation:
      'Validation still failed transiently when its deadline (lifecycleQueue.deadlineAt, set at acceptance) passed; submit a new immutable request.',
  },
  BUILD_ONLY_PLAN: {
    classification: 'info',
    obligation: 'A build-only funding plan is valid for pack and preflight but never obtains a launch permit.',
  },
  INITIAL_BUY_USD_UNPROVEN: {
    classification: 'evidence_duty',
    obligation: 'The initial buy must be worth at least USD 1 by a fresh server quote; no price source proves it yet.',
  },
  INITIAL_BUY_BELOW_USD_1: {
    classification: 'hard_block',
    obligation:
      'The funded initial buy must be worth at least USD 1 at permit authorization; raise it in a new request.',
  },
  CALLBACK_GUARD_UNDECIDED: {
    classification: 'evidence_duty',
    obligation: 'The callback guard and each enabled callback are decided by calls on the chain.',
  },
  FUNDING_NONCE_DERIVATION_CONFLICT_SUSPECTED: {
    classification: 'warning',
    obligation:
      'Profile 4.1.0: the server holds another request of the same launchWallet (another launchIntentHash) with the same nonce; pack each new request with a fresh funding nonce. Tooling warning; neither a conformance nor a safety claim.',
  },
  FUNDING_NONCE_CONFORMANCE_UNPROVEN: {
    classification: 'warning',
    obligation:
      'Profile 4.1.0: the nonce does not follow the funding-nonce derivation from its entropy half, launchWallet and fundingPlanHash (LaunchNonce); pack the request with the reference packer. Tooling warning; neither a conformance nor a safety claim.',
  },
  CHAIN_DEPLOYMENT_MISMATCH: {
    classification: 'hard_block',
    obligation: 'Bind the request to the chain deployment this server serves (chainDeployment and its digest).',
  },
  ROUTER_SIMULATION_REVERTED: {
    classification: 'hard_block',
    obligation: 'The exact router simulation must pass before a wallet handoff; fix the decoded revert reason.',
  },
  WALLET_TRANSACTION_MISMATCH: {
    classification: 'warning',
    obligation:
      'A transaction from the launch wallet to the router differs from the exact wallet transaction and is never accepted; verify chain, sender, router, value and calldata, then send the exact one.',
  },
  WALLET_TRANSACTION_REVERTED: {
    classification: 'info',
    obligation: 'The exact wallet transaction reverted on chain; read the failure, then submit a new request.',
  },
  LAUNCH_STAMPED_BY_OTHER_TRANSACTION: {
    classification: 'info',
    obligation:
      'The launch intent was stamped by a transaction other than the exact one; it can never be launched again; submit a new request.',
  },
  LAUNCH_PERMIT_EXPIRED: {
    classification: 'info',
    obligation:
      'The permit expired before the exact transaction was mined (a V4 launch: and no permit-reissue decision was made by its deadline); submit a new request for a new permit.',
  },
  PERMIT_REISSUE_DECLINED: {
    classification: 'info',
    obligation:
      'The controller declined a new permit after the permit expired before the exact transaction was mined; submit a new request to launch.',
  },
  CHAIN_REORG_DETECTED: {
    classification: 'warning',
    obligation:
      'The block that held the launch transaction was replaced; the launch waits for the exact transaction again.',
  },
  DEPLOYMENT_EVIDENCE_TAMPERED: {
    classification: 'info',
    obligation:
      'The bound deployment evidence contradicts itself, or both providers contradict it; the V4 lane accepts no writes until the operator binds a verified document.',
  },
  DEPLOYMENT_EVIDENCE_UNVERIFIED: {
    classification: 'info',
    obligation:
      'The bound deployment evidence is not verified yet (the chain could not be read, or the two providers do not agree on it); retry later.',
  },
  TX_SIMULATION_PENDING: {
    classification: 'info',
    obligation:
      'Deployable: submit the exact validated request for the remaining server simulation; no source rewrite.',
  },
} as const satisfies Record<
  string,
  { classification: 'hard_block' | 'evidence_duty' | 'warning' | 'info'; obligation: string }
>;

/** A code of the table. */
export type FindingCode = keyof typeof findingCodes;
