/**
 * The shared lane's (MultiRole V2) own finding codes and the severity each is reported with, beside the one table of
 * launch finding codes (src/domain/launches/finding-codes.ts), whose static-baseline codes the shared lane's review
 * reuses unchanged. Spec: Finding of spec/schemas/multi-role-preflight.v2.schema.json and findingCodes and failure of
 * spec/schemas/multi-role-resource.v2.schema.json. Project design: the code names.
 */
export const multiRoleFindingCodes = {
  evidence_required: {
    severity: 'needs_evidence',
    obligation:
      'The server could not verify the token_hook: its build of the source does not reproduce the declared initCodeHash (source_code), or its code does not answer the declared economics through multiRoleEconomics() (economics). Follow missingVerificationRequirements and submit a new request.',
  },
  MULTI_ROLE_BUILD_FAILED: {
    severity: 'blocking',
    obligation:
      'The source does not compile with the pinned solc, or a target contract is missing or needs library linking; fix the sources, rebuild and submit a new request.',
  },
  MULTI_ROLE_INIT_CODE_MISMATCH: {
    severity: 'blocking',
    obligation:
      "A target other than the token_hook declares an initCodeHash that is not keccak256 of the server's build of its contract followed by its constructorArgs; rebuild with the pinned compiler and submit a new request.",
  },
  MULTI_ROLE_HOOK_ADDRESS_MISMATCH: {
    severity: 'blocking',
    obligation:
      "The token_hook's CREATE2 address (the lane's graph factory, the lane's router, salt, initCodeHash) does not carry its hookPermissionMask in its low 14 bits; mine the salt for the mask and submit a new request.",
  },
  MULTI_ROLE_TOKEN_CORE_MISSING: {
    severity: 'blocking',
    obligation:
      "The token_hook's runtime code does not dispatch the whole ERC-20 core (transfer, transferFrom, approve, balanceOf, allowance, totalSupply); the shared contract must be the token.",
  },
  MULTI_ROLE_HOOK_ROLE_EMPTY: {
    severity: 'blocking',
    obligation:
      'The token_hook enables no hook permission (mask 0); a token without a hook belongs to the V4 lane, not the shared lane.',
  },
  MULTI_ROLE_CHAIN_CHECKS_PENDING: {
    severity: 'warning',
    obligation:
      'No chain-4663 provider is configured here: the economics read and the callback-guard probe run in the lifecycle review after creation.',
  },
  MULTI_ROLE_SIMULATION_REVERTED: {
    severity: 'blocking',
    obligation:
      'The exact wallet transaction reverts in the simulation on chain 4663; read the decoded revert, rebuild and submit a new request.',
  },
  MULTI_ROLE_GAS_BUDGET_EXCEEDED: {
    severity: 'blocking',
    obligation:
      'The simulated gas times the gas price exceeds funding.maxGasCostWei; the service never raises a budget: submit a new request with a budget that covers it.',
  },
} as const satisfies Record<string, { severity: 'blocking' | 'needs_evidence' | 'warning'; obligation: string }>;

/** A code of the shared lane's table. */
export type MultiRoleFindingCode = keyof typeof multiRoleFindingCodes;
