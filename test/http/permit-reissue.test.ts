import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLaunchClient } from '../../src/client/launches/client.ts';
import { permitReissueDecisionBytes, permitReissueDecisionKey } from '../../src/client/launches/permit-reissue.ts';
import { failUndecidedPermitReissues } from '../../src/domain/launches/permit-reissue.ts';
import { auth, call, type Reply } from '../support/http.ts';
import { expirePermit, handOffBySql, handoffTransaction, reissueDecisionBody } from '../support/permit-reissue.ts';
import { freshV4Bytes, issueSubkey, startServer, type TestServer } from '../support/server.ts';

// decidePermitReissueV4 (spec/openapi/paths/v4-permit-reissue-disposition.yaml) and the permitReissue states of
// spec/schemas/custom-launch-resource.v4.schema.json over real HTTP and SQLite, on the server's own clock. A launch
// reaches the wallet handoff by SQL (the chain gates need a chain: the devnet test test/chain/permit-reissue.test.ts
// drives the whole path), and its permit expires through awaitPermitReissue, the function the tracker calls when the
// chain's head passed the permit with no exact transaction mined.

let s: TestServer;
let key: string;
let clock = Date.parse('2026-11-25T08:00:00.000Z');
const otherWallet = '0x70997970C51812dc3A010C7d5Cb7E68B4f9A4B48';
let seq = 0;
const idem = () => `reissue-test-${String(++seq).padStart(6, '0')}`;
const base = () => `${s.url}/v4/chains/4663/custom-launches`;

function expectApiError(r: Reply, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.json.error.code).toBe(code);
  expect(r.json.error.requestId).toBe(r.headers.get('x-request-id'));
}

beforeAll(async () => {
  s = await startServer({}, () => clock);
  key = s.key();
});
afterAll(() => s.close());

/** A launch created with `k`, moved to the wallet handoff with an exact wallet transaction (as the worker does). */
async function handedOff(k = key): Promise<{ launchId: string; requestDigest: string }> {
  const r = await call(base(), {
    method: 'POST',
    headers: auth(k, { 'Idempotency-Key': idem() }),
    body: freshV4Bytes(),
  });
  expect(r.status, r.text).toBe(202);
  handOffBySql(s, r.json.launchId, clock);
  return { launchId: r.json.launchId, requestDigest: r.json.requestDigest };
}

/** The tracker's expiry path for the launch, now, on the configured decision window. */
const expire = (launchId: string, from = 'awaiting_wallet_signature') => expirePermit(s, launchId, clock, from);

async function awaiting(k = key) {
  const launch = await handedOff(k);
  expect(expire(launch.launchId)).toBe(true);
  return launch;
}

const body = reissueDecisionBody;

const decide = (launchId: string, bytes: string, k = key, idempotencyKey = idem()) =>
  call(`${base()}/${launchId}/permit-reissue-disposition`, {
    method: 'POST',
    headers: auth(k, { 'Idempotency-Key': idempotencyKey }),
    body: bytes,
  });

const read = async (launchId: string, k = key) => {
  const r = await call(`${base()}/${launchId}`, { headers: auth(k) });
  expect(r.status, r.text).toBe(200);
  return r.json;
};

const transitions = (launchId: string) =>
  s.db
    .prepare('SELECT from_status, to_status, worker FROM launch_transitions WHERE launch_id = ? ORDER BY seq')
    .all(launchId) as Array<{ from_status: string; to_status: string; worker: string }>;

/** A subkey with both launch scopes, issued by a fresh partner root. */
const subkeyOf = (rootKey: string): Promise<string> => issueSubkey(s, rootKey);

describe('a permit that expired before its transaction was mined', () => {
  it('leaves the launch wallet_action_required awaiting the decision: no wallet transaction, the decision deadline', async () => {
    const launch = await awaiting();
    const r = await read(launch.launchId);
    const deadline = new Date(clock + s.config.lifecycle.permitReissueDecisionWindowMs).toISOString();
    expect(r).toMatchObject({
      status: 'wallet_action_required',
      walletTransaction: null,
      boundMetadata: null,
      failure: null,
      permitReissue: {
        status: 'awaiting_decision',
        expiredPermitExpiresAt: new Date(clock - 1000).toISOString(),
        decisionDeadlineAt: deadline,
        decidedAt: null,
        reissueCount: 0,
      },
      lifecycleQueue: { state: 'idle', deadlineAt: deadline, nextAttemptAt: null, lastErrorCode: null },
    });
    expect(transitions(launch.launchId).at(-1)).toEqual({
      from_status: 'awaiting_wallet_signature',
      to_status: 'wallet_action_required',
      worker: 'test-tracker',
    });
  });

  it('shows permitReissue null while the permit never expired', async () => {
    const launch = await handedOff();
    expect((await read(launch.launchId)).permitReissue).toBeNull();
  });

  it('moves nothing when the launch no longer has the status the tracker read', async () => {
    const launch = await handedOff();
    expect(expire(launch.launchId, 'authorized')).toBe(false);
    expect((await read(launch.launchId)).status).toBe('awaiting_wallet_signature');
  });
});

describe('decidePermitReissueV4 refusals', () => {
  it('403 WALLET_KEY_REQUIRED for a partner root, even with the scope, and nothing changes', async () => {
    const root = s.partnerRoot().apiKey;
    const launch = await awaiting(root);
    expectApiError(await decide(launch.launchId, body(launch), root), 403, 'WALLET_KEY_REQUIRED');
    expect((await read(launch.launchId, root)).permitReissue.status).toBe('awaiting_decision');
  });

  it('403 WALLET_KEY_REQUIRED for a partner subkey with custom-launch:create', async () => {
    const sub = await subkeyOf(s.partnerRoot().apiKey);
    const launch = await awaiting(sub);
    expectApiError(await decide(launch.launchId, body(launch), sub), 403, 'WALLET_KEY_REQUIRED');
    expect((await read(launch.launchId, sub)).permitReissue.status).toBe('awaiting_decision');
  });

  it("404 NOT_FOUND for another wallet's key (it cannot read the launch); 403 WALLET_MISMATCH naming this wallet", async () => {
    const launch = await awaiting();
    const other = s.key({ wallet: otherWallet });
    expectApiError(await decide(launch.launchId, body(launch, { launchWallet: otherWallet }), other), 404, 'NOT_FOUND');
    expectApiError(await decide(launch.launchId, body(launch), other), 403, 'WALLET_MISMATCH');
    expect((await read(launch.launchId)).permitReissue.status).toBe('awaiting_decision');
  });

  it('403 INSUFFICIENT_SCOPE for the wallet key without custom-launch:create', async () => {
    const launch = await awaiting();
    const readOnly = s.key({ scopes: ['custom-launch:read'] });
    expectApiError(await decide(launch.launchId, body(launch), readOnly), 403, 'INSUFFICIENT_SCOPE');
  });

  it.each([
    ['a launchId other than the path', () => ({ launchId: crypto.randomUUID() }), 400, 'INVALID_REQUEST'],
    [
      'a requestDigest other than the launch',
      () => ({ requestDigest: `sha256:${'0'.repeat(64)}` }),
      400,
      'INVALID_REQUEST',
    ],
    ['a chainId other than the path', () => ({ chainId: '1' }), 409, 'CHAIN_MISMATCH'],
    ['an unknown decision', () => ({ decision: 'postpone' }), 400, 'INVALID_REQUEST'],
  ] as const)('body with %s: %i %s, nothing changes', async (_name, over, status, code) => {
    const launch = await awaiting();
    expectApiError(await decide(launch.launchId, body(launch, over())), status, code);
    expect((await read(launch.launchId)).permitReissue.status).toBe('awaiting_decision');
  });

  it('404 NOT_FOUND for an unknown launch', async () => {
    const launch = { launchId: crypto.randomUUID(), requestDigest: `sha256:${'1'.repeat(64)}` };
    expectApiError(await decide(launch.launchId, body(launch)), 404, 'NOT_FOUND');
  });

  it('409 PERMIT_REISSUE_NOT_AWAITED while the permit has not expired, or before the handoff', async () => {
    const launch = await handedOff();
    expectApiError(await decide(launch.launchId, body(launch)), 409, 'PERMIT_REISSUE_NOT_AWAITED');
    const created = await call(base(), {
      method: 'POST',
      headers: auth(key, { 'Idempotency-Key': idem() }),
      body: freshV4Bytes(),
    });
    const fresh = { launchId: created.json.launchId, requestDigest: created.json.requestDigest };
    expectApiError(await decide(fresh.launchId, body(fresh)), 409, 'PERMIT_REISSUE_NOT_AWAITED');
    expect((await read(launch.launchId)).status).toBe('awaiting_wallet_signature');
  });

  it('409 PERMIT_REISSUE_NOT_AWAITED for a second decision under another key, whatever its answer', async () => {
    const launch = await awaiting();
    expect((await decide(launch.launchId, body(launch, { decision: 'decline' }))).status).toBe(200);
    expectApiError(await decide(launch.launchId, body(launch)), 409, 'PERMIT_REISSUE_NOT_AWAITED');
    expectApiError(
      await decide(launch.launchId, body(launch, { decision: 'decline' })),
      409,
      'PERMIT_REISSUE_NOT_AWAITED',
    );
    expect((await read(launch.launchId)).permitReissue.status).toBe('declined');
  });

  it('replays the same key and bytes as 200 with the same body; other bytes under the key are 409 IDEMPOTENCY_CONFLICT', async () => {
    const launch = await awaiting();
    const k = idem();
    const first = await decide(launch.launchId, body(launch), key, k);
    expect(first.status, first.text).toBe(200);
    clock += 1000;
    const replay = await decide(launch.launchId, body(launch), key, k);
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
    expectApiError(
      await decide(launch.launchId, body(launch, { decision: 'decline' }), key, k),
      409,
      'IDEMPOTENCY_CONFLICT',
    );
    expect((await read(launch.launchId)).permitReissue).toMatchObject({ status: 'reissued', reissueCount: 1 });
    expect(transitions(launch.launchId).filter((t) => t.worker === 'api')).toHaveLength(1);
  });
});

describe('decisions', () => {
  it('decline: failed with PERMIT_REISSUE_DECLINED, the disposition declined', async () => {
    const launch = await awaiting();
    clock += 5000;
    const r = await decide(launch.launchId, body(launch, { decision: 'decline' }));
    expect(r.status, r.text).toBe(200);
    const at = new Date(clock).toISOString();
    expect(r.json).toEqual({
      schemaVersion: 'platform.custom-launch-permit-reissue-disposition.v1',
      chainId: '4663',
      launchId: launch.launchId,
      requestDigest: launch.requestDigest,
      decision: 'decline',
      disposition: 'declined',
      launchStatus: 'failed',
      decidedAt: at,
    });
    const resource = await read(launch.launchId);
    expect(resource).toMatchObject({
      status: 'failed',
      walletTransaction: null,
      failure: {
        code: 'PERMIT_REISSUE_DECLINED',
        failedAt: at,
        remediation: { findingCodes: ['PERMIT_REISSUE_DECLINED'], newRequestRequired: true },
      },
      permitReissue: { status: 'declined', decidedAt: at, reissueCount: 0 },
      lifecycleQueue: { state: 'idle', deadlineAt: null },
    });
    expect(transitions(launch.launchId).at(-1)).toEqual({
      from_status: 'wallet_action_required',
      to_status: 'failed',
      worker: 'api',
    });
  });

  it('reissue: validating with the job scheduled now on a fresh validation deadline, committed before the 200', async () => {
    const launch = await awaiting();
    clock += 7000;
    const r = await decide(launch.launchId, body(launch));
    expect(r.status, r.text).toBe(200);
    const at = new Date(clock).toISOString();
    expect(r.json).toMatchObject({
      decision: 'reissue',
      disposition: 'reissue_scheduled',
      launchStatus: 'validating',
      decidedAt: at,
    });
    const resource = await read(launch.launchId);
    expect(resource).toMatchObject({
      status: 'validating',
      walletTransaction: null,
      failure: null,
      permitReissue: { status: 'reissued', decidedAt: at, reissueCount: 1 },
      lifecycleQueue: {
        state: 'scheduled',
        attempt: 0,
        nextAttemptAt: at,
        deadlineAt: new Date(clock + s.config.lifecycle.validationDeadlineMs).toISOString(),
      },
    });
    expect(transitions(launch.launchId).at(-1)).toEqual({
      from_status: 'wallet_action_required',
      to_status: 'validating',
      worker: 'api',
    });
    // The exact replay of the first answer lies in the same commit.
    const stored = s.db
      .prepare(
        "SELECT response_body FROM idempotency_records WHERE operation = 'decidePermitReissueV4' AND response_body = ?",
      )
      .get(r.text);
    expect(stored).toBeDefined();
  });

  it('a reissued permit that expires again awaits a new decision and keeps the count', async () => {
    const launch = await awaiting();
    expect((await decide(launch.launchId, body(launch))).status).toBe(200);
    // The worker bound a new wallet transaction (as after the gates ran again) and handed it off.
    s.db
      .prepare(
        "UPDATE launches SET status = 'awaiting_wallet_signature', wallet_transaction_json = ? WHERE launch_id = ?",
      )
      .run(JSON.stringify(handoffTransaction(new Date(clock + 3_600_000).toISOString())), launch.launchId);
    clock += 3_600_001;
    expect(expire(launch.launchId)).toBe(true);
    expect((await read(launch.launchId)).permitReissue).toMatchObject({
      status: 'awaiting_decision',
      decidedAt: null,
      reissueCount: 1,
    });
  });
});

describe('the decision deadline (expiry observed + PERMIT_REISSUE_DECISION_WINDOW_MS)', () => {
  it.each([
    ['1 ms before the deadline', -1, 200],
    ['at the deadline', 0, 409],
  ] as const)('a decision %s answers %i', async (_name, offset, status) => {
    const launch = await awaiting();
    const start = clock;
    clock = start + s.config.lifecycle.permitReissueDecisionWindowMs + offset;
    const r = await decide(launch.launchId, body(launch, { decision: 'decline' }));
    expect(r.status, r.text).toBe(status);
    if (status === 409) expect(r.json.error.code).toBe('PERMIT_REISSUE_NOT_AWAITED');
  });

  it.each([
    ['1 ms before the deadline', -1, 'wallet_action_required'],
    ['at the deadline', 0, 'failed'],
  ] as const)('with no decision, %s the launch is %s', async (_name, offset, want) => {
    const launch = await awaiting();
    const deadline = clock + s.config.lifecycle.permitReissueDecisionWindowMs;
    failUndecidedPermitReissues(s.db, deadline + offset, 'test-tracker');
    const resource = await read(launch.launchId);
    expect(resource.status).toBe(want);
    if (want === 'failed') {
      expect(resource.failure).toMatchObject({
        code: 'LAUNCH_PERMIT_EXPIRED',
        remediation: { findingCodes: ['LAUNCH_PERMIT_EXPIRED'], newRequestRequired: true },
      });
      expect(resource.failure.message).toContain('no permit-reissue decision was made');
      expect(resource.permitReissue).toMatchObject({ status: 'decision_deadline_passed', decidedAt: null });
      expect(resource.walletTransaction).toBeNull();
      expectApiError(await decide(launch.launchId, body(launch)), 409, 'PERMIT_REISSUE_NOT_AWAITED');
    } else {
      expect(resource.permitReissue.status).toBe('awaiting_decision');
    }
  });
});

describe('the typed client', () => {
  it('decidePermitReissue sends the decision; the bytes and key fixed by the launch replay it exactly', async () => {
    const launch = await awaiting();
    const client = createLaunchClient({ baseUrl: s.url, apiKey: key });
    const resource = (await client.get(launch.launchId)).data;
    if (!resource) throw new Error('no launch');
    const k = permitReissueDecisionKey(resource, 'decline');
    expect(k).toBe(`permit-reissue:${launch.launchId}:decline:${resource.permitReissue?.expiredPermitExpiresAt}`);
    const request = JSON.parse(permitReissueDecisionBytes(resource, 'decline').toString('utf8'));
    const first = await client.decidePermitReissue(launch.launchId, request, k);
    expect(first.data).toMatchObject({ launchId: launch.launchId, disposition: 'declined', launchStatus: 'failed' });
    const again = await client.decidePermitReissue(launch.launchId, request, k);
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(first.data);
  });

  it('permitReissueDecisionKey refuses a launch whose permit never expired, before anything is sent', async () => {
    const launch = await handedOff();
    const resource = (await createLaunchClient({ baseUrl: s.url, apiKey: key }).get(launch.launchId)).data;
    if (!resource) throw new Error('no launch');
    expect(() => permitReissueDecisionKey(resource, 'reissue')).toThrow(/no reissue to decide/);
  });
});
