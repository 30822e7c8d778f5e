import type { LaunchGuideV1 } from '../../../generated/types/service.ts';
import { type ErrorCode, errorTable } from '../../errors/codes.ts';
import { type FindingCode, findingCodes } from '../launches/finding-codes.ts';
import { staticBaselineRuleCodes } from '../static-baseline/rule-codes.ts';
import { type RunningGates, writesGate } from './running-gates.ts';

/** The launch guide, generated from spec/schemas/launch-guide.v1.schema.json. */
type Recovery = LaunchGuideV1['errorRecovery'][number];

const stages: LaunchGuideV1['workflowStages'] = [
  {
    order: 1,
    stageId: 'discover',
    title: 'Read discovery and capabilities',
    instructions:
      'Read the discovery manifest; stop unless the V4 and chain-4663 entries report publicAuthorization, publicWrites and releaseReady true. Then read the chain capabilities.',
    operationId: 'getCustomLaunchCapabilitiesV4',
    authenticated: false,
  },
  {
    order: 2,
    stageId: 'pack',
    title: 'Pack the request',
    instructions:
      'Build the closed create request for chain 4663: metadata bound by projectMetadataHash, the graph, the hash-bound funding plan (4.1.0), launchIntentHash.',
    operationId: null,
    authenticated: false,
  },
  {
    order: 3,
    stageId: 'preflight',
    title: 'Validate remotely',
    instructions: 'Preflight persists nothing and allocates no nonce. Fix findings by rebuilding the request.',
    operationId: 'preflightCustomLaunchV4',
    authenticated: true,
  },
  {
    order: 4,
    stageId: 'submit',
    title: 'Submit with an idempotency key',
    instructions:
      'Journal the idempotency key, origin and exact bytes first; retry only those bytes with the same key. Poll with the returned launchId.',
    operationId: 'createCustomLaunchV4',
    authenticated: true,
  },
  {
    order: 5,
    stageId: 'deliver_sources',
    title: 'Deliver the source files',
    instructions:
      'PUT the bytes of every file of the sourceBundleManifest, addressed by its SHA-256 (the CLI: custom-launch sources). The permit waits for them: until the last file is held the launch stays validating with lifecycleQueue.lastErrorCode SOURCE_FILES_PENDING.',
    operationId: 'putCustomLaunchSourceFileV4',
    authenticated: true,
  },
  {
    order: 6,
    stageId: 'poll_until_authorized',
    title: 'Poll until authorized',
    instructions: 'Poll the launch resource with launchId (never requestId), guarded by API version 4 and chain 4663.',
    operationId: 'getCustomLaunchV4',
    authenticated: true,
  },
  {
    order: 7,
    stageId: 'wallet_handoff',
    title: 'Review, sign and broadcast in the wallet',
    instructions:
      'The controller verifies chain, sender, router, value and calldata of the exact walletTransaction, then signs and pays gas in the wallet. The service never signs.',
    operationId: null,
    authenticated: false,
  },
  {
    order: 8,
    stageId: 'poll_until_finalized',
    title: 'Poll until finalized',
    instructions: 'Keep polling; finalized means the launch evidence satisfies the published finality policy.',
    operationId: 'getCustomLaunchV4',
    authenticated: true,
  },
];

function retryOf(status: number, retryable: boolean): Recovery['retry'] {
  if (status === 500) return 'reconcile_first';
  if (status === 429) return 'same_bytes_after_retry_after';
  if (status === 503) return 'only_if_retryable';
  return retryable ? 'only_if_retryable' : 'never';
}

const launchCodes = [
  'INVALID_REQUEST',
  'MALFORMED_JSON',
  'UNAUTHENTICATED',
  'INSUFFICIENT_SCOPE',
  'CHAIN_NOT_ALLOWED',
  'WALLET_MISMATCH',
  'NOT_FOUND',
  'CHAIN_MISMATCH',
  'IDEMPOTENCY_CONFLICT',
  'WALLET_KEY_REQUIRED',
  'PERMIT_REISSUE_NOT_AWAITED',
  'CUSTOM_LAUNCH_V2_READ_ONLY',
  'CUSTOM_LAUNCH_V1_READ_ONLY',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'ADMISSION_QUOTA_EXHAUSTED',
  'INTERNAL',
  'UNAVAILABLE',
  'PRICE_SOURCE_UNAVAILABLE',
  'DEPLOYMENT_EVIDENCE_TAMPERED',
  'DEPLOYMENT_EVIDENCE_UNVERIFIED',
] as const satisfies readonly ErrorCode[];

/** The discovery stage, with what this deployment's discovery manifest says now. */
function stagesFor(gates: RunningGates): LaunchGuideV1['workflowStages'] {
  const writes = writesGate(gates);
  const now = writes.open
    ? ' This deployment keeps no write closed itself.'
    : ` This deployment keeps writes closed (${writes.reasons.join(', ')}): its manifest reports publicWrites and releaseReady false, so a client stops here.`;
  return stages.map((stage) =>
    stage.stageId === 'discover' ? { ...stage, instructions: `${stage.instructions}${now}` } : stage,
  );
}

const staticCodes = (classification: 'hard_block' | 'evidence_duty') =>
  staticBaselineRuleCodes.filter((code) => findingCodes[code].classification === classification);

/**
 * The scenario assessments as this configuration answers them: each cites only codes the running code reports
 * (the static baseline's implemented rules, the finding and error tables) and the disposition preflight gives.
 */
function scenariosFor(gates: RunningGates): LaunchGuideV1['scenarioAssessments'] {
  return [
    ...submissionScenarios(gates),
    ...staticBaselineScenarios(),
    metadataImageScenario,
    externalReferenceScenario(gates),
    sharedTokenAndHookScenario,
  ];
}

type Scenario = LaunchGuideV1['scenarioAssessments'][number];

/**
 * The funded launch and the deployable request: what preflight reports for them and what follows create, as the
 * chain gates, the price source and any closed writes of this deployment decide.
 */
function submissionScenarios(gates: RunningGates): Scenario[] {
  const writes = writesGate(gates);
  const closed = writes.open ? [] : writes.reasons;
  const usd: FindingCode[] = gates.priceFeed ? [] : ['INITIAL_BUY_USD_UNPROVEN'];
  const afterSubmit = gates.chainGates
    ? 'After create, the chain gates bind the chain deployment, probe each enabled callback, bind external references, issue the permit and run the exact router simulation; the launch is then authorized with its exact wallet transaction, or action_required with the finding.'
    : 'This deployment runs no chain gates: capabilities and discovery report writes unavailable (CHAIN_NOT_CONFIGURED) and a client stops before any authenticated request; a launch created anyway waits in validating with CHAIN_NOT_CONFIGURED.';
  const closedNote = closed.some((c) => c !== 'CHAIN_NOT_CONFIGURED')
    ? ` Writes are closed now (${closed.join(', ')}): preflight and create answer 503 with that code.`
    : '';
  const priceNote = gates.priceFeed
    ? ''
    : ' No price source is configured, so the USD 1 initial buy stays unproven (INITIAL_BUY_USD_UNPROVEN).';
  return [
    {
      scenarioId: 'funded_v4_launch',
      summary:
        'A 4.1.0 launch with a hash-bound funding plan, an atomic initial buy worth at least USD 1 and a hook that enables callbacks.',
      disposition: 'needs_evidence',
      findingCodes: ['CALLBACK_GUARD_UNDECIDED', ...usd, ...closed],
      guidance: `Preflight runs the chain-free gates; enabled callbacks stay CALLBACK_GUARD_UNDECIDED until the chain decides them.${priceNote} ${afterSubmit}${closedNote}`,
    },
    {
      scenarioId: 'deployable_request',
      summary: 'A 4.1.0 launch whose hook enables no callbacks and in which nothing blocks, needs evidence or warns.',
      disposition: gates.priceFeed ? 'supported' : 'needs_evidence',
      findingCodes: gates.priceFeed ? ['TX_SIMULATION_PENDING', ...closed] : [...usd, ...closed],
      guidance: gates.priceFeed
        ? `Preflight reports it deployable with TX_SIMULATION_PENDING: submit the exact validated bytes; no source rewrite. ${afterSubmit}${closedNote}`
        : `${priceNote.trim()} ${afterSubmit}${closedNote}`,
    },
  ];
}

/** The static baseline's two outcomes, each citing the implemented rules of its classification. */
function staticBaselineScenarios(): Scenario[] {
  return [
    {
      scenarioId: 'static_hard_block',
      summary: "A target's runtime code matches an objective hard-block rule of the static baseline.",
      disposition: 'unsupported',
      findingCodes: staticCodes('hard_block'),
      guidance:
        'platformAdmission is action_required with the exact static report; rebuild without the matched construct and submit a new immutable request. Retrying the same bytes cannot pass.',
    },
    {
      scenarioId: 'static_evidence_duty',
      summary:
        'A target shows proxy, mint, tax, pause or transfer controls, external dependencies, or a pool manager not decided statically.',
      disposition: 'supported_with_warnings',
      findingCodes: staticCodes('evidence_duty'),
      guidance:
        'Evidence duties are warnings, not blocks: behaviorEvidence names each duty; bind the evidence a reviewer needs. No safety or fee-behavior claim follows.',
    },
  ];
}

const metadataImageScenario: Scenario = {
  scenarioId: 'metadata_image',
  summary: 'The metadata image is a JPEG, WebP, animated or otherwise not a still PNG or single-frame GIF.',
  disposition: 'unsupported',
  findingCodes: [
    'IMAGE_JPEG_UNSUPPORTED',
    'IMAGE_WEBP_UNSUPPORTED',
    'IMAGE_GIF_ANIMATED',
    'IMAGE_PNG_ANIMATED',
    'IMAGE_TYPE_MISMATCH',
  ],
  guidance: 'Convert the image to a still PNG or single-frame GIF, repack (new projectMetadataHash) and revalidate.',
};

/** An external contract reference: whether this deployment's chain gates and source registry can bind it. */
function externalReferenceScenario(gates: RunningGates): Scenario {
  return {
    scenarioId: 'external_reference',
    summary: 'The graph names an external contract reference.',
    disposition: 'unsupported',
    findingCodes: ['EXTERNAL_REFERENCE_UNBOUND'],
    guidance: gates.chainGates
      ? `A reference gains no trust until the chain gates bind its address, live runtime hash, source-verification evidence, role and finalized checkpoint; an unbound one blocks. Preflight runs the same read-only binding and reports each reference in externalReferenceBinding.${gates.sourceVerificationRegistry ? '' : ' No source-verification registry is configured here, so no reference binds.'}`
      : 'This deployment runs no chain gates, so no reference can bind: every reference blocks (EXTERNAL_REFERENCE_UNBOUND).',
  };
}

const sharedTokenAndHookScenario: Scenario = {
  scenarioId: 'shared_token_and_hook',
  summary: 'A token and hook sharing one physical contract.',
  disposition: 'unsupported',
  findingCodes: ['INVALID_REQUEST', 'TOKEN_ROLE_BINDING_INVALID', 'HOOK_ROLE_BINDING_INVALID'],
  guidance:
    'V4 refuses two targets that would be one physical contract (400 INVALID_REQUEST), and its static baseline blocks a token that also serves hook callbacks (TOKEN_ROLE_BINDING_INVALID) or a hook that serves the ERC-20 core (HOOK_ROLE_BINDING_INVALID). Use the separate MultiRole V2 lane; do not split the project or alter profile fields to fit V4.',
};

/**
 * getLaunchGuideV4: the workflow guide (schema platform.l2-launch-guide.v1) as this configuration (`gates`) runs
 * it: the discovery stage says whether writes are closed, the scenario assessments cite only codes the running
 * code reports, and the error-recovery entries come from the one error table
 * (spec/openapi/paths/v4-launch-guide.yaml, spec/schemas/launch-guide.v1.schema.json).
 */
export function launchGuideV4(gates: RunningGates): LaunchGuideV1 {
  return {
    schemaVersion: 'platform.l2-launch-guide.v1',
    chainId: '4663',
    caip2: 'eip155:4663',
    apiVersion: 4,
    currentProfile: '4.1.0',
    workflowStages: stagesFor(gates),
    scenarioAssessments: scenariosFor(gates),
    errorRecovery: launchCodes.map((code) => {
      const entry = errorTable[code];
      return {
        httpStatus: entry.status as Recovery['httpStatus'],
        code,
        retry: retryOf(entry.status, entry.retryable),
        action: entry.message,
      };
    }),
  } as LaunchGuideV1;
}
