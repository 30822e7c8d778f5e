import type {
  CustomLaunchCapabilitiesV3,
  CustomLaunchFundingAuthorizationRequestV3,
  CustomLaunchFundingTypedDataV3,
  CustomLaunchPreflightV3,
  CustomLaunchResourceV3,
  CustomLaunchStatusV3,
} from '../../../generated/types/service.ts';
import { schemaProblems } from '../../spec/schema-registry.ts';
import {
  pinnedCall as call,
  type LaneCallOptions,
  type LaneCallResult,
  type NoAnswer,
  type PinnedReadResult,
  pollLaunch,
  readPinned,
  laneSend as sendOf,
} from '../core/lane-calls.ts';
import { LocalCheckError } from '../core/local-check-error.ts';
import type { Refusal } from '../core/transport.ts';
import { DiscoveryStop } from '../launches/discovery.ts';
import { checkLaunchId } from '../launches/poll.ts';

export type { NoAnswer };

/** A V3 call's outcome: `data`, or a definite refusal or no answer. */
export type BaseLayerCallResult<T> = LaneCallResult<T>;

/** Where a V3 call goes and with what. */
export type BaseLayerCallOptions = LaneCallOptions;

const chain1 = (json: unknown): boolean => (json as { chainId?: unknown } | undefined)?.chainId === '1';

/** A pin that accepts only the V3 launch resource of `launchId` on chain 1. */
function launchPin(launchId: string | undefined) {
  return (json: unknown) => {
    const launch = json as Partial<CustomLaunchResourceV3> | undefined;
    const ok =
      launch?.schemaVersion === 'platform.custom-launch-resource.v3' &&
      chain1(launch) &&
      (launchId === undefined || launch.launchId === launchId);
    return ok ? null : `the V3 launch on chain 1${launchId ? ` ${launchId}` : ''} that was asked for`;
  };
}

/**
 * GET /v3/capabilities (spec/openapi/paths/v3-capabilities.yaml, getCustomLaunchCapabilitiesV3), unauthenticated:
 * the lane's contracts, pinned compiler and funding tokens. An answer that is not chain 1's is a refusal.
 */
export async function readBaseLayerCapabilities(
  options: Omit<BaseLayerCallOptions, 'apiKey'>,
): Promise<BaseLayerCallResult<{ capabilities: CustomLaunchCapabilitiesV3 }>> {
  const result = await call<CustomLaunchCapabilitiesV3>(
    sendOf(options, { method: 'GET', path: '/v3/capabilities' }),
    [200],
    (json) => (chain1(json) ? null : 'the base-layer capabilities of chain 1'),
  );
  return result.error ? { error: result.error } : { data: { capabilities: result.data.body } };
}

/**
 * The V3 lane's write gate, read before every authenticated preflight or submission with no key sent: the
 * capabilities must say the deployment accepts new submissions and name its contracts. Throws DiscoveryStop
 * otherwise (the CLI exits 4), as the discovery manifest's stop does for V4.
 */
export async function requireBaseLayerWrites(
  options: Omit<BaseLayerCallOptions, 'apiKey'>,
): Promise<CustomLaunchCapabilitiesV3> {
  const where = `${options.origin}/v3/capabilities`;
  const result = await readBaseLayerCapabilities(options);
  if (result.error?.kind === 'no_answer') throw new DiscoveryStop(`cannot read ${where}: ${result.error.reason}`);
  if (result.error) {
    throw new DiscoveryStop(`${where} answered ${result.error.status} ${result.error.code}: ${result.error.message}`);
  }
  const { capabilities } = result.data;
  if (!capabilities.acceptsNewSubmissions || !capabilities.deployment) {
    throw new DiscoveryStop(
      `${where} reports that this deployment accepts no new V3 submissions${capabilities.deployment ? '' : ' (no base-layer deployment)'}; stopping before any authenticated request`,
    );
  }
  return capabilities;
}

/**
 * POST /v3/custom-launches/preflight (spec/openapi/paths/v3-custom-launches-preflight.yaml,
 * preflightCustomLaunchV3) with the exact request bytes: the server's evaluation; nothing is stored.
 */
export async function preflightBaseLayerLaunch(
  options: BaseLayerCallOptions & { bytes: Uint8Array },
): Promise<BaseLayerCallResult<{ report: CustomLaunchPreflightV3 }>> {
  const result = await call<CustomLaunchPreflightV3>(
    sendOf(options, {
      method: 'POST',
      path: '/v3/custom-launches/preflight',
      apiKey: options.apiKey,
      body: options.bytes,
    }),
    [200],
    (json) => (chain1(json) ? null : 'a V3 preflight report of chain 1'),
  );
  return result.error ? { error: result.error } : { data: { report: result.data.body } };
}

/** One read of a V3 launch: `data`, a `retry` (no answer, 429, retryable 503; after `waitMs` when given) or a refusal. */
export type BaseLayerReadResult = PinnedReadResult<CustomLaunchResourceV3>;

/**
 * GET /v3/custom-launches/{launchId} (spec/openapi/paths/v3-custom-launch.yaml, getCustomLaunchV3), pinned to chain 1
 * by the answer: a resource that is not the V3 launch asked for is a refusal (PINNED_RESOURCE_MISMATCH). A requestId
 * or anything else that is no launchId throws TypeError before any request.
 */
export function readBaseLayerLaunch(
  options: BaseLayerCallOptions & { launchId: string },
): Promise<BaseLayerReadResult> {
  checkLaunchId(options.launchId);
  const send = sendOf(options, {
    method: 'GET',
    path: `/v3/custom-launches/${options.launchId}`,
    apiKey: options.apiKey,
  });
  return readPinned<CustomLaunchResourceV3>(send, launchPin(options.launchId), options.now);
}

/** The V3 statuses in lifecycle order along the way to finality (action_required, failed and cancelled are off it). */
export const baseLayerStatusOrder = [
  'received',
  'validating',
  'pending_review',
  'awaiting_funding_authorization',
  'funding_authorization_verified',
  'prepared',
  'simulating',
  'authorized',
  'submitted',
  'finalized',
] as const satisfies readonly CustomLaunchStatusV3[];

/** A status a V3 wait can wait for. */
export type BaseLayerWaitGoal = (typeof baseLayerStatusOrder)[number];

/** Whether a launch at `status` has reached `goal` or passed it (a native launch never awaits a funding signature). */
export function reachedBaseLayerStatus(status: CustomLaunchStatusV3, goal: BaseLayerWaitGoal): boolean {
  const at = baseLayerStatusOrder.indexOf(status as BaseLayerWaitGoal);
  return at >= 0 && at >= baseLayerStatusOrder.indexOf(goal);
}

/**
 * How a V3 wait ended: the goal, `stuck` (action_required, failed, cancelled), `awaiting_signature` (the launch waits
 * for the controller's funding signature, which only the wallet can make), a refusal, or `timeout`.
 */
export type BaseLayerWaitResult =
  | { data: { launch: CustomLaunchResourceV3 }; error?: undefined }
  | {
      data?: undefined;
      error:
        | { kind: 'stuck'; launch: CustomLaunchResourceV3 }
        | { kind: 'awaiting_signature'; launch: CustomLaunchResourceV3 }
        | Refusal
        | { kind: 'timeout'; launch: CustomLaunchResourceV3 | undefined };
    };

export interface BaseLayerWaitOptions extends BaseLayerCallOptions {
  launchId: string;
  until: BaseLayerWaitGoal;
  intervalMs: number;
  maxWaitMs: number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * Keep polling at awaiting_funding_authorization when the goal lies beyond it (a signature sent from elsewhere
   * moves the launch on); by default the wait ends there with `awaiting_signature`.
   */
  throughFundingAuthorization?: boolean;
  /** Called after every read with the current status (undefined before the first answer), the elapsed time and a note. */
  onProgress?: (status: CustomLaunchStatusV3 | undefined, elapsedMs: number, note?: string) => void;
}

const stuckStatuses: ReadonlySet<CustomLaunchStatusV3> = new Set(['action_required', 'failed', 'cancelled']);

/**
 * Polls a V3 launch with readBaseLayerLaunch until it reaches `until` or passes it (`data`), cannot get there (a
 * `stuck` error: action_required, failed, cancelled), waits for the funding signature (`awaiting_signature`, unless
 * throughFundingAuthorization), is refused, or `maxWaitMs` passes (`timeout`). A 429 or retryable 503 waits its
 * Retry-After.
 */
export function waitForBaseLayerLaunch(options: BaseLayerWaitOptions): Promise<BaseLayerWaitResult> {
  return pollLaunch<CustomLaunchResourceV3, { kind: 'stuck' | 'awaiting_signature'; launch: CustomLaunchResourceV3 }>({
    read: () => readBaseLayerLaunch(options),
    status: (launch) => launch.status,
    note: (launch) => {
      const rejection = launch.fundingAuthorization?.lastRejection;
      return rejection ? `last signature refused: ${rejection.code}` : undefined;
    },
    verdict: (launch) => {
      if (reachedBaseLayerStatus(launch.status, options.until)) return 'done';
      if (stuckStatuses.has(launch.status)) return { kind: 'stuck', launch };
      if (launch.status === 'awaiting_funding_authorization' && !options.throughFundingAuthorization) {
        return { kind: 'awaiting_signature', launch };
      }
      return undefined;
    },
    intervalMs: options.intervalMs,
    maxWaitMs: options.maxWaitMs,
    ...(options.now ? { now: options.now } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.onProgress
      ? { onProgress: (status, ms, note) => options.onProgress?.(status as CustomLaunchStatusV3 | undefined, ms, note) }
      : {}),
  });
}

/**
 * The exact EIP-712 typed data the controller's wallet signs for the launch's EIP-3009 funding
 * (spec/schemas/custom-launch-resource.v3.schema.json $defs/FundingTypedData), as eth_signTypedData_v4 takes it; null
 * while the launch offers none (native funding, or before awaiting_funding_authorization).
 */
export function fundingTypedDataOf(launch: CustomLaunchResourceV3): CustomLaunchFundingTypedDataV3 | null {
  return launch.fundingAuthorization?.typedData ?? null;
}

/**
 * POST /v3/custom-launches/{launchId}/funding-authorization (spec/openapi/paths/v3-custom-launch-funding-authorization.yaml,
 * submitFundingAuthorizationV3): sends exactly the signature the wallet made; the client never signs. A signature
 * that is not 65 bytes of hex is a LocalCheckError before any request. 200 is `data` (verified, or already); each
 * verification refusal (409, recorded as lastRejection) is a refusal error; sending again is safe.
 */
export async function sendFundingSignature(
  options: BaseLayerCallOptions & { launchId: string; signature: string },
): Promise<BaseLayerCallResult<{ launch: CustomLaunchResourceV3 }>> {
  checkLaunchId(options.launchId);
  const body: CustomLaunchFundingAuthorizationRequestV3 = {
    schemaVersion: 'platform.custom-launch-funding-authorization.v3',
    signature: options.signature,
  };
  const problems = schemaProblems('custom-launch-funding-authorization.v3.schema.json', body);
  if (problems.length > 0) {
    throw new LocalCheckError(
      'REQUEST_INVALID',
      `the signature must be 65 bytes as 0x and 130 hex digits (r || s || v)`,
    );
  }
  const result = await call<CustomLaunchResourceV3>(
    sendOf(options, {
      method: 'POST',
      path: `/v3/custom-launches/${options.launchId}/funding-authorization`,
      apiKey: options.apiKey,
      body: Buffer.from(JSON.stringify(body), 'utf8'),
    }),
    [200],
    launchPin(options.launchId),
  );
  return result.error ? { error: result.error } : { data: { launch: result.data.body } };
}

/**
 * POST /v3/custom-launches/{launchId}/cancellation (spec/openapi/paths/v3-custom-launch-cancellation.yaml,
 * cancelCustomLaunchV3), no body: the launch ends cancelled before it is submitted; 200 is `data`, a launch at
 * submitted, finalized or failed is a refusal (409 LAUNCH_NOT_CANCELLABLE).
 */
export async function cancelBaseLayerLaunch(
  options: BaseLayerCallOptions & { launchId: string },
): Promise<BaseLayerCallResult<{ launch: CustomLaunchResourceV3 }>> {
  checkLaunchId(options.launchId);
  const result = await call<CustomLaunchResourceV3>(
    sendOf(options, {
      method: 'POST',
      path: `/v3/custom-launches/${options.launchId}/cancellation`,
      apiKey: options.apiKey,
    }),
    [200],
    launchPin(options.launchId),
  );
  return result.error ? { error: result.error } : { data: { launch: result.data.body } };
}
