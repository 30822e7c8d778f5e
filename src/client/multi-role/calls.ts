import type {
  MultiRoleCustomLaunchCapabilitiesV2,
  MultiRoleCustomLaunchPreflightV2,
  MultiRoleCustomLaunchResourceV2,
} from '../../../generated/types/service.ts';
import {
  type LaneCallOptions,
  type LaneCallResult,
  laneSend,
  type NoAnswer,
  type PinnedReadResult,
  type PollResult,
  pinnedCall,
  pollLaunch,
  readPinned,
} from '../core/lane-calls.ts';
import { DiscoveryStop } from '../launches/discovery.ts';
import { checkLaunchId } from '../launches/poll.ts';

export type { NoAnswer };

/** The shared lane's base path on chain 4663 (spec/openapi/paths/multi-role-*.yaml). */
export const multiRoleLanePath = '/v4/chains/4663/multi-role-custom-launches';

/** A shared-lane call's outcome: `data`, or a definite refusal or no answer. */
export type MultiRoleCallResult<T> = LaneCallResult<T>;

/** Where a shared-lane call goes and with what. */
export type MultiRoleCallOptions = LaneCallOptions;

/** A launch status of the shared lane (spec/schemas/multi-role-resource.v2.schema.json status). */
export type MultiRoleStatus = MultiRoleCustomLaunchResourceV2['status'];

const chain4663 = (json: unknown): boolean => (json as { chainId?: unknown } | undefined)?.chainId === '4663';

/** A pin that accepts only the shared-lane launch resource of `launchId` on chain 4663. */
function launchPin(launchId: string) {
  return (json: unknown) => {
    const launch = json as Partial<MultiRoleCustomLaunchResourceV2> | undefined;
    const ok =
      launch?.schemaVersion === 'platform.multi-role-custom-launch-resource.v2' &&
      chain4663(launch) &&
      launch.launchId === launchId;
    return ok ? null : `the shared-lane launch ${launchId} on chain 4663 that was asked for`;
  };
}

/**
 * GET .../multi-role-custom-launches/capabilities (spec/openapi/paths/multi-role-capabilities.yaml,
 * getMultiRoleCapabilitiesV2), unauthenticated: readiness, profiles, compiler, reference client and the lane's
 * contracts. An answer that is not the lane's capabilities of chain 4663 is a refusal.
 */
export async function readMultiRoleCapabilities(
  options: Omit<MultiRoleCallOptions, 'apiKey'>,
): Promise<MultiRoleCallResult<{ capabilities: MultiRoleCustomLaunchCapabilitiesV2 }>> {
  const result = await pinnedCall<MultiRoleCustomLaunchCapabilitiesV2>(
    laneSend(options, { method: 'GET', path: `${multiRoleLanePath}/capabilities` }),
    [200],
    (json) =>
      (json as Partial<MultiRoleCustomLaunchCapabilitiesV2> | undefined)?.schemaVersion ===
        'platform.multi-role-custom-launch-capabilities.v2' && chain4663(json)
        ? null
        : 'the shared-lane capabilities of chain 4663',
  );
  return result.error ? { error: result.error } : { data: { capabilities: result.data.body } };
}

/**
 * The shared lane's write gate, read with no key before every authenticated preflight or submission: readiness.status
 * must be ready and readiness.publicWrites true. Throws DiscoveryStop otherwise (the CLI exits 4), naming the
 * readiness reasons.
 */
export async function requireMultiRoleWrites(
  options: Omit<MultiRoleCallOptions, 'apiKey'>,
): Promise<MultiRoleCustomLaunchCapabilitiesV2> {
  const where = `${options.origin}${multiRoleLanePath}/capabilities`;
  const result = await readMultiRoleCapabilities(options);
  if (result.error?.kind === 'no_answer') throw new DiscoveryStop(`cannot read ${where}: ${result.error.reason}`);
  if (result.error) {
    throw new DiscoveryStop(`${where} answered ${result.error.status} ${result.error.code}: ${result.error.message}`);
  }
  const { readiness } = result.data.capabilities;
  if (readiness.status !== 'ready' || !readiness.publicWrites) {
    const reasons = readiness.reasons.length > 0 ? ` (${readiness.reasons.join(', ')})` : '';
    throw new DiscoveryStop(
      `${where} reports the shared lane ${readiness.status}${reasons} with publicWrites ${readiness.publicWrites}; stopping before any authenticated request`,
    );
  }
  return result.data.capabilities;
}

/**
 * POST .../multi-role-custom-launches/preflight (spec/openapi/paths/multi-role-preflight.yaml,
 * preflightMultiRoleCustomLaunch) with the exact request bytes: the disposition and findings; nothing is stored.
 */
export async function preflightMultiRoleLaunch(
  options: MultiRoleCallOptions & { bytes: Uint8Array },
): Promise<MultiRoleCallResult<{ report: MultiRoleCustomLaunchPreflightV2 }>> {
  const result = await pinnedCall<MultiRoleCustomLaunchPreflightV2>(
    laneSend(options, {
      method: 'POST',
      path: `${multiRoleLanePath}/preflight`,
      apiKey: options.apiKey,
      body: options.bytes,
    }),
    [200],
    (json) => (chain4663(json) ? null : 'a shared-lane preflight of chain 4663'),
  );
  return result.error ? { error: result.error } : { data: { report: result.data.body } };
}

/** One read of a shared-lane launch: `data`, a `retry` (no answer, 429, retryable 503) or a refusal. */
export type MultiRoleReadResult = PinnedReadResult<MultiRoleCustomLaunchResourceV2>;

/**
 * GET .../multi-role-custom-launches/{launchId} (spec/openapi/paths/multi-role-custom-launch.yaml,
 * getMultiRoleCustomLaunch), pinned by the answer to this launch on chain 4663 (else PINNED_RESOURCE_MISMATCH). A
 * requestId or anything else that is no launchId throws TypeError before any request.
 */
export function readMultiRoleLaunch(
  options: MultiRoleCallOptions & { launchId: string },
): Promise<MultiRoleReadResult> {
  checkLaunchId(options.launchId);
  const send = laneSend(options, {
    method: 'GET',
    path: `${multiRoleLanePath}/${options.launchId}`,
    apiKey: options.apiKey,
  });
  return readPinned<MultiRoleCustomLaunchResourceV2>(send, launchPin(options.launchId), options.now);
}

/** The shared lane's statuses on the way to finality (action_required, needs_evidence and failed are off it). */
export const multiRoleStatusOrder = [
  'received',
  'validating',
  'simulating',
  'authorized',
  'submitted',
  'finalized',
] as const satisfies readonly MultiRoleStatus[];

/** A status a shared-lane wait can wait for. */
export type MultiRoleWaitGoal = (typeof multiRoleStatusOrder)[number];

/** Whether a launch at `status` has reached `goal` or passed it. */
export function reachedMultiRoleStatus(status: MultiRoleStatus, goal: MultiRoleWaitGoal): boolean {
  const at = multiRoleStatusOrder.indexOf(status as MultiRoleWaitGoal);
  return at >= 0 && at >= multiRoleStatusOrder.indexOf(goal);
}

/** The terminal statuses a wait cannot get past: a new request is the fix. */
const stuckStatuses: ReadonlySet<MultiRoleStatus> = new Set(['action_required', 'needs_evidence', 'failed']);

/** How a shared-lane wait ended: the goal, `stuck` (action_required, needs_evidence, failed), a refusal, or `timeout`. */
export type MultiRoleWaitResult = PollResult<
  MultiRoleCustomLaunchResourceV2,
  { kind: 'stuck'; launch: MultiRoleCustomLaunchResourceV2 }
>;

export interface MultiRoleWaitOptions extends MultiRoleCallOptions {
  launchId: string;
  until: MultiRoleWaitGoal;
  intervalMs: number;
  maxWaitMs: number;
  sleep?: (ms: number) => Promise<void>;
  /** Called after every read with the current status (undefined before the first answer), the elapsed time and a note. */
  onProgress?: (status: string | undefined, elapsedMs: number, note?: string) => void;
}

/**
 * Polls a shared-lane launch with readMultiRoleLaunch until it reaches `until` or passes it (`data`), cannot get
 * there (`stuck`), is refused, or maxWaitMs passes (`timeout`). A 429 or retryable 503 waits its Retry-After.
 */
export function waitForMultiRoleLaunch(options: MultiRoleWaitOptions): Promise<MultiRoleWaitResult> {
  return pollLaunch({
    read: () => readMultiRoleLaunch(options),
    status: (launch) => launch.status,
    verdict: (launch) => {
      if (reachedMultiRoleStatus(launch.status, options.until)) return 'done';
      return stuckStatuses.has(launch.status) ? { kind: 'stuck' as const, launch } : undefined;
    },
    intervalMs: options.intervalMs,
    maxWaitMs: options.maxWaitMs,
    ...(options.now ? { now: options.now } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
}
