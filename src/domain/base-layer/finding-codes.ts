/**
 * The base-layer (V3) lane's own finding codes and how each is classified, beside the one table of launch finding
 * codes (src/domain/launches/finding-codes.ts), whose static-baseline codes the V3 review reuses unchanged.
 * Spec: the finding-code arrays of spec/schemas/custom-launch-preflight.v3.schema.json and the failure and finding
 * codes of spec/schemas/custom-launch-resource.v3.schema.json. Project design: the code names.
 */
export const baseLayerFindingCodes = {
  V3_BUILD_FAILED: {
    classification: 'hard_block',
    obligation:
      'A compilation unit does not compile with the pinned solc, or a target contract is missing or needs library linking; fix the sources, rebuild and submit a new request.',
  },
  V3_INIT_CODE_MISMATCH: {
    classification: 'hard_block',
    obligation:
      "A target's initCodeHash is not keccak256 of the server's build of its contract followed by its constructorArgs; rebuild with the pinned compiler and submit a new request.",
  },
  V3_HOOK_ADDRESS_MISMATCH: {
    classification: 'hard_block',
    obligation:
      "The hook's CREATE2 address (graph factory, the lane's router, salt, init code hash) does not carry its hookPermissionMask in its low 14 bits; mine the hook's salt for the mask and submit a new request.",
  },
  FEE_CERTIFICATION_NOT_FOUND: {
    classification: 'warning',
    obligation:
      'The named fee adapter is not fee-certified for this profile; the launch proceeds with a platform share of 0.',
  },
  V3_SIMULATION_REVERTED: {
    classification: 'hard_block',
    obligation:
      'The exact wallet transaction reverts in the simulation on chain 1; read the decoded revert, rebuild and submit a new request.',
  },
  V3_FUNDING_AUTHORIZATION_EXPIRED: {
    classification: 'info',
    obligation:
      'The EIP-3009 funding authorization window closed, or its nonce was used, without the launch transaction; submit a new request.',
  },
  V3_CANCELLED_BY_CONTROLLER: {
    classification: 'info',
    obligation: 'The launch controller cancelled the launch before submission; submit a new request to launch.',
  },
} as const satisfies Record<
  string,
  { classification: 'hard_block' | 'evidence_duty' | 'warning' | 'info'; obligation: string }
>;

/** A code of the base-layer table. */
export type BaseLayerFindingCode = keyof typeof baseLayerFindingCodes;
