import type { components } from '../../../generated/types/service.ts';
import { errorTable } from '../../errors/codes.ts';

/** The launch guide, generated from spec/schemas/launch-guide.v1.schema.json. */
export type LaunchGuideV1 = components['schemas']['LaunchGuideV1'];
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
    stageId: 'poll_until_authorized',
    title: 'Poll until authorized',
    instructions: 'Poll the launch resource with launchId (never requestId), guarded by API version 4 and chain 4663.',
    operationId: 'getCustomLaunchV4',
    authenticated: true,
  },
  {
    order: 6,
    stageId: 'wallet_handoff',
    title: 'Review, sign and broadcast in the wallet',
    instructions:
      'The controller verifies chain, sender, router, value and calldata of the exact walletTransaction, then signs and pays gas in the wallet. The service never signs.',
    operationId: null,
    authenticated: false,
  },
  {
    order: 7,
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
  'CUSTOM_LAUNCH_V2_READ_ONLY',
  'CUSTOM_LAUNCH_V1_READ_ONLY',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'ADMISSION_QUOTA_EXHAUSTED',
  'INTERNAL',
  'UNAVAILABLE',
  'PRICE_SOURCE_UNAVAILABLE',
] as const;

/**
 * getLaunchGuideV4: the workflow guide (schema platform.l2-launch-guide.v1) with its error-recovery entries taken
 * from the one error table. Spec: launch-transport.md Endpoints (other public reads), Coverage report paragraph.
 */
export function launchGuideV4(): LaunchGuideV1 {
  return {
    schemaVersion: 'platform.l2-launch-guide.v1',
    chainId: '4663',
    caip2: 'eip155:4663',
    apiVersion: 4,
    currentProfile: '4.1.0',
    workflowStages: stages,
    scenarioAssessments: [
      {
        scenarioId: 'funded_v4_launch',
        summary: 'A 4.1.0 launch with a hash-bound funding plan and an atomic initial buy worth at least USD 1.',
        disposition: 'needs_evidence',
        findingCodes: ['STATIC_BASELINE_NOT_EVALUATED', 'ROUTER_SIMULATION_NOT_RUN'],
        guidance:
          'This deployment validates and stores the request; the static baseline and chain gates are not evaluated yet.',
      },
      {
        scenarioId: 'shared_token_and_hook',
        summary: 'A token and hook sharing one physical contract.',
        disposition: 'unsupported',
        findingCodes: ['TOKEN_ROLE_BINDING_INVALID'],
        guidance: 'Use the separate MultiRole V2 lane; do not split the project or alter profile fields to fit V4.',
      },
    ],
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
