import type {
  CustomLaunchResourceV4,
  PermitReissueDispositionRequestV1,
  PermitReissueDispositionV1,
} from '../../../generated/types/service.ts';
import { canonicalJson } from '../../core/canonical-json.ts';
import { pinnedMismatch } from '../core/lane-calls.ts';
import { LocalCheckError } from '../core/local-check-error.ts';
import { type ResendOptions, sendResending } from '../core/resend.ts';
import { type CallOptions, type Refusal, redirectRefusal, refusalOf } from '../core/transport.ts';
import { checkLaunchId } from './poll.ts';

/** The controller's answer to an expired permit. */
export type PermitReissueDecision = PermitReissueDispositionRequestV1['decision'];

/**
 * The exact decision request for a launch (spec/schemas/permit-reissue-disposition-request.v1.schema.json): every
 * field comes from the launch's immutable fields, in RFC 8785 canonical JSON, so the same decision is always the
 * same bytes.
 */
export function permitReissueDecisionBytes(launch: CustomLaunchResourceV4, decision: PermitReissueDecision): Buffer {
  const request: PermitReissueDispositionRequestV1 = {
    schemaVersion: 'platform.custom-launch-permit-reissue-disposition-request.v1',
    chainId: '4663',
    caip2: 'eip155:4663',
    launchId: launch.launchId,
    launchWallet: launch.launchWallet,
    requestDigest: launch.requestDigest,
    decision,
  };
  return Buffer.from(canonicalJson(request), 'utf8');
}

/**
 * The Idempotency-Key of a decision, bound to the launch, the permit that expired and the decision: a rerun after an
 * ambiguous result resends the same bytes with the same key (the service replays its first answer), and another
 * decision can never pass for it. Throws LocalCheckError when the launch shows no expired permit.
 */
export function permitReissueDecisionKey(launch: CustomLaunchResourceV4, decision: PermitReissueDecision): string {
  if (!launch.permitReissue) {
    throw new LocalCheckError(
      'PERMIT_REISSUE_NOT_AWAITED',
      `launch ${launch.launchId} is ${launch.status}: its permit has not expired, so there is no reissue to decide`,
    );
  }
  return `permit-reissue:${launch.launchId}:${decision}:${launch.permitReissue.expiredPermitExpiresAt}`;
}

/** How a decision ended: the recorded disposition, a definite refusal, or no definite answer (run it again). */
export type PermitReissueResult =
  | { data: { disposition: PermitReissueDispositionV1 }; error?: undefined }
  | { data?: undefined; error: Refusal | { kind: 'unresolved'; reason: string } };

/**
 * POST …/custom-launches/{launchId}/permit-reissue-disposition (spec/openapi/paths/v4-permit-reissue-disposition.yaml,
 * decidePermitReissueV4) to `origin` with the wallet key: the exact bytes of permitReissueDecisionBytes under
 * permitReissueDecisionKey, resent unchanged on no answer, 429 and a retryable 503 (after Retry-After). 200 with the
 * disposition of this launch is `data`; a 500, a redirect or running out of `maxWaitMs` is `unresolved`; anything
 * else is a refusal.
 */
export async function sendPermitReissueDecision(
  options: CallOptions &
    Pick<ResendOptions, 'sleep' | 'onRetry'> & {
      origin: string;
      launch: CustomLaunchResourceV4;
      decision: PermitReissueDecision;
      maxWaitMs: number;
    },
): Promise<PermitReissueResult> {
  const { launch, decision } = options;
  checkLaunchId(launch.launchId);
  const resent = await sendResending(
    {
      origin: options.origin,
      method: 'POST',
      path: `/v4/chains/4663/custom-launches/${launch.launchId}/permit-reissue-disposition`,
      apiKey: options.apiKey,
      headers: { 'Idempotency-Key': permitReissueDecisionKey(launch, decision) },
      body: permitReissueDecisionBytes(launch, decision),
      timeoutMs: options.timeoutMs,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    },
    {
      maxWaitMs: options.maxWaitMs,
      ...(options.now ? { now: options.now } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    },
  );
  if (resent.kind === 'gave_up') return { error: { kind: 'unresolved', reason: resent.why } };
  const { reply } = resent;
  if (reply.kind === 'redirect') return { error: redirectRefusal(reply) };
  if (reply.status === 500) {
    return { error: { kind: 'unresolved', reason: 'the service answered 500: the decision may be recorded' } };
  }
  if (reply.status !== 200) return { error: refusalOf(reply, options.apiKey) };
  const disposition = reply.json as PermitReissueDispositionV1;
  if (disposition?.launchId !== launch.launchId || disposition.decision !== decision) {
    return {
      error: pinnedMismatch(
        `the ${decision} disposition of launch ${launch.launchId}`,
        reply.headers.get('x-request-id'),
      ),
    };
  }
  return { data: { disposition } };
}
