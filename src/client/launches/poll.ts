import type { CustomLaunchResourceV4 } from '../../../generated/types/service.ts';
import { authorizedOnward, type LaunchStatusV4 } from '../../core/launch-statuses.ts';
import { retryAfterMs } from '../core/retry-after.ts';
import { utcNow } from '../core/support.ts';
import {
  apiErrorOf,
  type CallOptions,
  exchange,
  type Refusal,
  redirectRefusal,
  refusalOf,
  requestIdPattern,
  uuidPattern,
} from '../core/transport.ts';

export type { LaunchStatusV4 };

/**
 * Refuses, before any request, what is not a launchId (the polling identifier is
 * the returned launchId, never the requestId): a launchId is a lowercase UUID (common.schema.json
 * $defs.Uuid); a request id (`req_…`, $defs.RequestId) is named as one. Throws TypeError (misuse); sends nothing.
 */
export function checkLaunchId(launchId: string): void {
  if (requestIdPattern.test(launchId)) {
    throw new TypeError(
      `"${launchId}" is a requestId (the per-call support correlation id), not a launchId; nothing was sent. Use the launchId of the create answer (launch.launchId, or outcome.launchId in the submit journal)`,
    );
  }
  if (!uuidPattern.test(launchId)) {
    throw new TypeError(
      `"${launchId.slice(0, 80)}" is not a launchId: poll with the launchId (a lowercase UUID), never a requestId; nothing was sent`,
    );
  }
}

/** The statuses at or past each goal a wait can have (custom-launch-resource.v4.schema.json status). */
const reached: Record<'authorized' | 'finalized', ReadonlySet<LaunchStatusV4>> = {
  authorized: new Set<LaunchStatusV4>(authorizedOnward),
  finalized: new Set<LaunchStatusV4>(['finalized']),
};
/** Statuses a wait cannot get past: a rebuilt request (action_required) or the terminal failure. */
const stuck: ReadonlySet<LaunchStatusV4> = new Set<LaunchStatusV4>(['action_required', 'failed']);

/**
 * One read: `data` holds the launch; `error` is `retry` (no definite answer yet: read again after `waitMs`, or the
 * caller's interval when it is undefined) or a definite refusal.
 */
export type ReadResult =
  | { data: { launch: CustomLaunchResourceV4 }; error?: undefined }
  | { data?: undefined; error: { kind: 'retry'; why: string; waitMs: number | undefined } | Refusal };

export interface ReadOptions extends CallOptions {
  origin: string;
  launchId: string;
}

/**
 * One read of a launch (spec/openapi/paths/v4-custom-launch.yaml, getCustomLaunchV4), pinned to API version 4 and
 * chain 4663 by its path and by the answer: a resource whose apiVersion, chainId or launchId differ is a refusal
 * error (PINNED_RESOURCE_MISMATCH). Timeouts, 429 and retryable 503 are a `retry` error; a 404 is a refusal error
 * (check launchId, chain and credential lineage; never create a replacement to poll). The launch is `data.launch`.
 */
export async function readLaunch(options: ReadOptions): Promise<ReadResult> {
  checkLaunchId(options.launchId);
  const reply = await exchange({
    origin: options.origin,
    method: 'GET',
    path: `/v4/chains/4663/custom-launches/${options.launchId}`,
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  if (reply.kind === 'no_answer') return { error: { kind: 'retry', why: reply.reason, waitMs: undefined } };
  if (reply.kind === 'redirect') {
    return { error: redirectRefusal(reply) };
  }
  const error = apiErrorOf(reply);
  if (reply.status === 200) {
    const launch = reply.json as CustomLaunchResourceV4;
    if (launch?.apiVersion !== 4 || launch.chainId !== '4663' || launch.launchId !== options.launchId) {
      return {
        error: {
          kind: 'refused',
          status: 200,
          code: 'PINNED_RESOURCE_MISMATCH',
          message: 'the answer is not the V4 launch on chain 4663 that was asked for',
          requestId: reply.headers.get('x-request-id'),
          at: utcNow(),
        },
      };
    }
    return { data: { launch } };
  }
  if (reply.status === 429 || (reply.status === 503 && error?.retryable === true)) {
    return {
      error: {
        kind: 'retry',
        why: `${reply.status} ${error?.code ?? ''}`.trim(),
        waitMs: retryAfterMs(reply.headers.get('retry-after'), (options.now ?? Date.now)()),
      },
    };
  }
  return { error: refusalOf(reply) };
}

const sourceFilesPending = 'SOURCE_FILES_PENDING';

/**
 * The progress note of a launch whose permit waits for its source files (LifecycleQueue.lastErrorCode
 * SOURCE_FILES_PENDING in spec/schemas/custom-launch-resource.v4.schema.json): they are delivered with
 * putCustomLaunchSourceFileV4.
 */
export const sourcesPendingNote =
  'SOURCE_FILES_PENDING: the permit waits for the source files; deliver every sourceBundleManifest file';

/**
 * How a wait ended: `data` holds the launch once it reached the goal; `error` is `stuck` (action_required or failed,
 * with the launch), a definite refusal, or `timeout` (the max wait passed; the last launch read, if any).
 */
export type WaitResult =
  | { data: { launch: CustomLaunchResourceV4 }; error?: undefined }
  | {
      data?: undefined;
      error:
        | { kind: 'stuck'; launch: CustomLaunchResourceV4 }
        | Refusal
        | { kind: 'timeout'; launch: CustomLaunchResourceV4 | undefined };
    };

export interface WaitOptions extends ReadOptions {
  until: 'authorized' | 'finalized';
  intervalMs: number;
  maxWaitMs: number;
  sleep?: (ms: number) => Promise<void>;
  /** Called after every read with the current status (undefined before the first answer) and the elapsed time. */
  onProgress?: (status: LaunchStatusV4 | undefined, elapsedMs: number, note?: string) => void;
}

/**
 * Polls a launch by its launchId with readLaunch until it reaches `until` or a later state (`data`), cannot get there
 * (a `stuck` error: action_required, failed), is refused (the refusal error), or `maxWaitMs` passes (a `timeout`
 * error). Progress is read only by polling.
 */
export async function waitForLaunch(options: WaitOptions): Promise<WaitResult> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const started = now();
  let last: CustomLaunchResourceV4 | undefined;
  for (;;) {
    const result = await readLaunch(options);
    let waitMs = options.intervalMs;
    if (result.error?.kind === 'refused') return { error: result.error };
    if (result.data) {
      last = result.data.launch;
      // The permit waits for the sources (lifecycleQueue.lastErrorCode SOURCE_FILES_PENDING): say so, since only
      // the controller's delivery moves the launch on.
      options.onProgress?.(
        last.status,
        now() - started,
        last.lifecycleQueue?.lastErrorCode === sourceFilesPending ? sourcesPendingNote : undefined,
      );
      if (reached[options.until].has(last.status)) return { data: { launch: last } };
      if (stuck.has(last.status)) return { error: { kind: 'stuck', launch: last } };
    } else {
      waitMs = result.error.waitMs ?? options.intervalMs;
      options.onProgress?.(last?.status, now() - started, `${result.error.why}; retrying`);
    }
    if (now() - started + waitMs > options.maxWaitMs) return { error: { kind: 'timeout', launch: last } };
    await sleep(waitMs);
  }
}
