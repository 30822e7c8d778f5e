import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindRequestHashes } from '../../src/core/request-hashes.ts';
import { LifecycleWorker } from '../../src/domain/lifecycle/worker.ts';
import { auth, call } from '../support/http.ts';
import { testLifecycle } from '../support/lifecycle.ts';
import {
  example,
  exampleWithUnboundReference,
  startServer,
  type TestServer,
  v4Example,
  v4FrozenExample,
} from '../support/server.ts';

// One controllable clock for the server and the workers: leases and backoff move only when a test moves them.
let nowMs = Date.parse('2026-11-22T00:00:00.000Z');
const now = () => nowMs;
let s: TestServer;
let key: string;
let n = 0;

const lifecycle = testLifecycle;
const worker = (id: string) =>
  new LifecycleWorker({
    db: s.db,
    lifecycle,
    admission: { canonicalPoolManager: s.config.canonicalPoolManager },
    now,
    workerId: id,
    // No jitter: the backoff's exact times are asserted.
    random: () => 0,
  });
const create = async (body = exampleWithUnboundReference()) => {
  const r = await call(`${s.url}/v4/chains/4663/custom-launches`, {
    method: 'POST',
    headers: auth(key, { 'Idempotency-Key': `lifecycle-test-${++n}`.padEnd(16, '0') }),
    body,
  });
  expect(r.status, r.text).toBe(202);
  return r.json.launchId as string;
};
const read = async (launchId: string) =>
  (await call(`${s.url}/v4/chains/4663/custom-launches/${launchId}`, { headers: auth(key) })).json;
const transitions = (launchId: string) =>
  s.db.prepare('SELECT from_status, to_status FROM launch_transitions WHERE launch_id = ? ORDER BY seq').all(launchId);
/** Runs every due job, so earlier tests' leftovers never stand in the way. */
const drain = async (w: LifecycleWorker) => {
  while (await w.tick()) {
    /* next */
  }
};

beforeAll(async () => {
  s = await startServer({ lifecycle: { ...lifecycle } }, now);
  key = s.key();
});
afterAll(() => s.close());

describe('durable lifecycle (statuses; lifecycleQueue)', () => {
  it('schedules a new launch in received with its job, shown as lifecycleQueue', async () => {
    const launchId = await create();
    const launch = await read(launchId);
    expect(launch.status).toBe('received');
    expect(launch.lifecycleQueue).toMatchObject({
      state: 'scheduled',
      attempt: 0,
      deadlineAt: new Date(nowMs + lifecycle.validationDeadlineMs).toISOString(),
      lastErrorCode: null,
    });
    expect(launch.lifecycleQueue.nextAttemptAt).toBe(new Date(nowMs).toISOString());
    await drain(worker('w-schedule'));
  });

  it('moves a launch with a blocking finding through validating to action_required with a remediation', async () => {
    const launchId = await create();
    await drain(worker('w-action'));
    const launch = await read(launchId);
    expect(launch.status).toBe('action_required');
    expect(launch.findings).toContainEqual(
      expect.objectContaining({ code: 'EXTERNAL_REFERENCE_UNBOUND', severity: 'blocking' }),
    );
    expect(launch.remediation).toMatchObject({
      findingCodes: ['EXTERNAL_REFERENCE_UNBOUND'],
      newRequestRequired: true,
    });
    expect(launch.walletTransaction).toBeNull();
    expect(launch.lifecycleQueue).toMatchObject({ state: 'idle', attempt: 1, nextAttemptAt: null });
    expect(transitions(launchId)).toEqual([
      { from_status: 'received', to_status: 'validating' },
      { from_status: 'validating', to_status: 'action_required' },
    ]);
  });

  it('blocks a build-only plan at the permit stage', async () => {
    const request = example(v4Example) as any;
    request.externalContracts = [];
    request.fundingPlan.mode = 'build-only';
    const launchId = await create(JSON.stringify(bindRequestHashes(request)));
    await drain(worker('w-build-only'));
    const launch = await read(launchId);
    expect(launch.status).toBe('action_required');
    expect(launch.remediation.findingCodes).toEqual(['BUILD_ONLY_PLAN']);
  });

  it('leaves a launch that passes every chain-free gate validating, waiting for the chain gates', async () => {
    const request = example(v4FrozenExample) as any;
    request.externalContracts = [];
    const launchId = await create(JSON.stringify(bindRequestHashes(request)));
    await drain(worker('w-chain'));
    const launch = await read(launchId);
    expect(launch.status).toBe('validating');
    expect(launch.walletTransaction).toBeNull();
    expect(launch.lifecycleQueue).toMatchObject({
      state: 'idle',
      lastErrorCode: 'CHAIN_NOT_CONFIGURED',
      deadlineAt: null,
    });
    expect(transitions(launchId)).toEqual([{ from_status: 'received', to_status: 'validating' }]);
  });

  it('retries a transient failure with capped doubling backoff past the old attempt bound, then fails it at the validation deadline', async () => {
    const createdMs = nowMs;
    const launchId = await create();
    // An unexplained failure (the stored request unreadable) proves nothing about the launch: it is transient.
    s.db.prepare("UPDATE launches SET request_bytes = CAST('not json' AS BLOB) WHERE launch_id = ?").run(launchId);
    const deadlineMs = createdMs + lifecycle.validationDeadlineMs;
    const w = worker('w-retry');
    const logged = console.error;
    console.error = () => undefined;
    try {
      // Each wait doubles from 1 s up to the 4 s cap; the last one is cut short at the deadline.
      const waits = [1_000, 2_000, 4_000, 4_000, 4_000, 4_000, 1_000];
      for (const [i, wait] of waits.entries()) {
        expect(await w.tick()).toBe(true);
        const launch = await read(launchId);
        expect(launch.status).toBe('validating');
        expect(launch.failure).toBeNull();
        expect(launch.lifecycleQueue).toEqual({
          state: 'retry_wait',
          attempt: i + 1,
          deadlineAt: new Date(deadlineMs).toISOString(),
          nextAttemptAt: new Date(nowMs + wait).toISOString(),
          lastErrorCode: 'LIFECYCLE_STEP_FAILED',
        });
        nowMs += wait - 1;
        expect(await w.tick()).toBe(false);
        nowMs += 1;
      }
      expect(nowMs).toBe(deadlineMs);
      // The attempt at the deadline still fails: now the launch fails, with the documented code.
      expect(await w.tick()).toBe(true);
      const launch = await read(launchId);
      expect(launch.status).toBe('failed');
      expect(launch.lifecycleQueue).toEqual({
        state: 'exhausted',
        attempt: waits.length + 1,
        deadlineAt: null,
        nextAttemptAt: null,
        lastErrorCode: 'LIFECYCLE_STEP_FAILED',
      });
      expect(launch.failure).toMatchObject({
        code: 'LIFECYCLE_VALIDATION_DEADLINE_PASSED',
        remediation: { findingCodes: ['LIFECYCLE_VALIDATION_DEADLINE_PASSED'], newRequestRequired: true },
      });
      expect(transitions(launchId)).toEqual([
        { from_status: 'received', to_status: 'validating' },
        { from_status: 'validating', to_status: 'failed' },
      ]);
    } finally {
      console.error = logged;
    }
  });

  it('moves on at the last attempt before the deadline when the step succeeds', async () => {
    const createdMs = nowMs;
    const launchId = await create();
    const stored = s.db.prepare('SELECT request_bytes FROM launches WHERE launch_id = ?').get(launchId) as {
      request_bytes: Buffer;
    };
    s.db.prepare("UPDATE launches SET request_bytes = CAST('not json' AS BLOB) WHERE launch_id = ?").run(launchId);
    const w = worker('w-recover');
    const logged = console.error;
    console.error = () => undefined;
    try {
      while ((await read(launchId)).lifecycleQueue.nextAttemptAt !== new Date(createdMs + 20_000).toISOString()) {
        expect(await w.tick()).toBe(true);
        nowMs = Date.parse((await read(launchId)).lifecycleQueue.nextAttemptAt);
      }
    } finally {
      console.error = logged;
    }
    expect(nowMs).toBe(createdMs + lifecycle.validationDeadlineMs);
    s.db.prepare('UPDATE launches SET request_bytes = ? WHERE launch_id = ?').run(stored.request_bytes, launchId);
    expect(await w.tick()).toBe(true);
    const launch = await read(launchId);
    expect(launch.status).toBe('action_required');
    expect(launch.lifecycleQueue).toMatchObject({ state: 'idle', attempt: 8, lastErrorCode: null, deadlineAt: null });
  });

  it('resumes a job whose worker died once its lease expires, applying the outcome once', async () => {
    const launchId = await create();
    // Worker A claims the job and dies before evaluating it: the claim is committed, the outcome never is.
    const a = worker('w-dead') as unknown as { claimDue: (limit: number) => unknown[] };
    expect(a.claimDue(1)).toMatchObject([{ launchId, attempt: 1 }]);
    expect((await read(launchId)).status).toBe('validating');
    const b = worker('w-heir');
    nowMs += lifecycle.leaseMs - 1;
    expect(await b.tick()).toBe(false);
    nowMs += 1;
    expect(await b.tick()).toBe(true);
    const launch = await read(launchId);
    expect(launch.status).toBe('action_required');
    expect(launch.lifecycleQueue.attempt).toBe(2);
    expect(transitions(launchId)).toEqual([
      { from_status: 'received', to_status: 'validating' },
      { from_status: 'validating', to_status: 'action_required' },
    ]);
  });
});
