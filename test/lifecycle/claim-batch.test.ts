import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claimBatchSize } from '../../src/domain/lifecycle/job-claims.ts';
import { LifecycleWorker } from '../../src/domain/lifecycle/worker.ts';
import { type Db, openDatabase } from '../../src/store/db.ts';
import { auth, call } from '../support/http.ts';
import { testLifecycle } from '../support/lifecycle.ts';
import { exampleWithUnboundReference, startServer, type TestServer } from '../support/server.ts';

/*
 * The lifecycle worker claims due jobs in batches of at most claimBatchSize, earliest first by index, on a real SQLite
 * file: a batch's bound on both sides, a backlog drained in claim order, two connections (as two processes sharing
 * the file) claiming disjoint batches, the leases of a waiting batch renewed or lost, and a stop that releases them.
 */

let nowMs = Date.parse('2026-11-22T00:00:00.000Z');
const now = () => nowMs;
const lifecycle = testLifecycle;
let s: TestServer;
let template: { launch: Record<string, unknown>; job: Record<string, unknown> };

const worker = (id: string, db: Db = s.db, stepDelayMs = 0) =>
  new LifecycleWorker({
    db,
    lifecycle: { ...lifecycle, stepDelayMs },
    admission: { canonicalPoolManager: s.config.canonicalPoolManager },
    now,
    workerId: id,
    random: () => 0,
  });

/**
 * Stores `dueOffsets.length` received launches (copies of one real create's rows, new ids) whose jobs are due at
 * nowMs + offset (offsets <= 0), returning their ids in the order given.
 */
function seed(dueOffsets: number[]): string[] {
  const { seq: _seq, ...launch } = template.launch;
  const launchColumns = Object.keys(launch);
  const jobColumns = Object.keys(template.job);
  const insertLaunch = s.db.prepare(
    `INSERT INTO launches (${launchColumns.join(', ')}) VALUES (${launchColumns.map(() => '?').join(', ')})`,
  );
  const insertJob = s.db.prepare(
    `INSERT INTO lifecycle_jobs (${jobColumns.join(', ')}) VALUES (${jobColumns.map(() => '?').join(', ')})`,
  );
  return s.db.transaction(() =>
    dueOffsets.map((offset) => {
      const launchId = randomUUID();
      const claims = new Set(['intent_claim', 'wallet_nonce']);
      insertLaunch.run(
        launchColumns.map((c) =>
          c === 'launch_id' ? launchId : claims.has(c) ? null : c === 'status' ? 'received' : launch[c],
        ),
      );
      const job: Record<string, unknown> = {
        ...template.job,
        launch_id: launchId,
        state: 'scheduled',
        next_attempt_ms: nowMs + offset,
      };
      insertJob.run(jobColumns.map((c) => job[c]));
      return launchId;
    }),
  )();
}

const count = (sql: string, ...params: unknown[]) =>
  (s.db.prepare(`SELECT count(*) AS n FROM lifecycle_jobs WHERE ${sql}`).get(...params) as { n: number }).n;
/** The launches in the order workers claimed them (their received → validating transitions), with the claimer. */
const claimOrder = (ids: string[]) =>
  (
    s.db
      .prepare(
        `SELECT launch_id, worker FROM launch_transitions WHERE from_status = 'received' AND launch_id IN
           (SELECT value FROM json_each(?)) ORDER BY seq`,
      )
      .all(JSON.stringify(ids)) as Array<{ launch_id: string; worker: string }>
  ).map((r) => [r.launch_id, r.worker] as const);

beforeAll(async () => {
  s = await startServer({ lifecycle: { ...lifecycle } }, now);
  const created = await call(`${s.url}/v4/chains/4663/custom-launches`, {
    method: 'POST',
    headers: auth(s.key(), { 'Idempotency-Key': 'claim-batch-template-0001' }),
    body: exampleWithUnboundReference(),
  });
  expect(created.status, created.text).toBe(202);
  const launchId = created.json.launchId;
  template = {
    launch: s.db.prepare('SELECT * FROM launches WHERE launch_id = ?').get(launchId) as Record<string, unknown>,
    job: s.db.prepare('SELECT * FROM lifecycle_jobs WHERE launch_id = ?').get(launchId) as Record<string, unknown>,
  };
});
afterAll(() => s.close());
// Each test starts with nothing due: earlier tests' jobs are parked.
beforeEach(() => {
  s.db.prepare("UPDATE lifecycle_jobs SET state = 'idle', next_attempt_ms = NULL, lease_owner = NULL").run();
});

describe('lifecycle claims in batches', () => {
  it.each([
    ['nothing due', 0, 0],
    ['one due', 1, 1],
    ['one under the batch', claimBatchSize - 1, claimBatchSize - 1],
    ['exactly the batch', claimBatchSize, claimBatchSize],
    ['one over the batch', claimBatchSize + 1, claimBatchSize],
  ])('%s: %i due jobs, one claim leases %i', async (_name, due, want) => {
    seed(Array.from({ length: due }, (_, i) => -i));
    const w = worker(`w-bound-${due}`);
    expect(await w.tick()).toBe(want > 0);
    // The first claimed job's step ran and let go of its lease; the rest wait under this worker's lease.
    expect(count("state = 'running' AND lease_owner = ?", `w-bound-${due}`)).toBe(Math.max(want - 1, 0));
    expect(count("state = 'scheduled'")).toBe(due - want);
    while (await w.tick()) {
      /* drain */
    }
    expect(count("state IN ('scheduled', 'running')")).toBe(0);
  });

  it('drains a backlog earliest first: expired leases, then by due time, whatever the order stored', async () => {
    const offsets = Array.from({ length: 3 * claimBatchSize + 5 }, (_, i) => -((i * 37) % 101) - 1);
    const ids = seed(offsets);
    // Two jobs whose worker died mid-step: their leases expired, so they are taken over first.
    const dead = ids.slice(-2);
    s.db
      .prepare(
        `UPDATE lifecycle_jobs SET state = 'running', lease_owner = 'w-dead', lease_expires_ms = ?, next_attempt_ms = NULL
           WHERE launch_id IN (SELECT value FROM json_each(?))`,
      )
      .run(nowMs - 1, JSON.stringify(dead));
    const w = worker('w-backlog');
    while (await w.tick()) {
      /* drain */
    }
    const rest = ids
      .map((id, i) => [id, offsets[i] as number] as const)
      .filter(([id]) => !dead.includes(id))
      .sort((a, b) => a[1] - b[1])
      .map(([id]) => id);
    expect(claimOrder(ids).map(([id]) => id)).toEqual([...dead, ...rest]);
  });

  it('two connections on one file claim disjoint batches and together every job once', async () => {
    const ids = seed(Array.from({ length: 2 * claimBatchSize + 3 }, (_, i) => -i));
    const other = openDatabase(s.config.databasePath, { busyTimeoutMs: s.config.busyTimeoutMs });
    try {
      const a = worker('w-first', s.db);
      const b = worker('w-second', other);
      let worked = true;
      while (worked) worked = (await Promise.all([a.tick(), b.tick()])).some(Boolean);
    } finally {
      other.close();
    }
    const order = claimOrder(ids);
    expect(order.map(([id]) => id).sort()).toEqual([...ids].sort());
    const by = (w: string) => order.filter(([, who]) => who === w).length;
    expect(by('w-first')).toBeGreaterThan(0);
    expect(by('w-second')).toBeGreaterThan(0);
    const moves = s.db
      .prepare(
        `SELECT count(*) AS n FROM launch_transitions WHERE from_status = 'validating'
           AND launch_id IN (SELECT value FROM json_each(?))`,
      )
      .get(JSON.stringify(ids)) as { n: number };
    expect(moves.n).toBe(ids.length);
  });

  it('renews the leases of a waiting batch before half of them has run out', async () => {
    const ids = seed([-3, -2, -1]);
    const w = worker('w-renew');
    expect(await w.tick()).toBe(true);
    const leaseOf = (id: string) =>
      (s.db.prepare('SELECT lease_expires_ms AS at FROM lifecycle_jobs WHERE launch_id = ?').get(id) as { at: number })
        .at;
    expect(leaseOf(ids[2] as string)).toBe(nowMs + lifecycle.leaseMs);
    nowMs += lifecycle.leaseMs / 2 + 1;
    expect(await w.tick()).toBe(true);
    expect(leaseOf(ids[2] as string)).toBe(nowMs + lifecycle.leaseMs);
    expect(await w.tick()).toBe(true);
    expect(await w.tick()).toBe(false);
  });

  it('drops a waiting job whose lease another worker took over, so no step runs twice', async () => {
    const ids = seed([-2, -1]);
    const a = worker('w-slow');
    expect(await a.tick()).toBe(true);
    nowMs += lifecycle.leaseMs;
    const b = worker('w-heir');
    expect(await b.tick()).toBe(true);
    expect(await a.tick()).toBe(false);
    expect(claimOrder(ids)).toEqual([
      [ids[0], 'w-slow'],
      [ids[1], 'w-slow'],
    ]);
    const steps = s.db
      .prepare(`SELECT worker FROM launch_transitions WHERE launch_id = ? AND from_status = 'validating'`)
      .all(ids[1]);
    expect(steps).toEqual([{ worker: 'w-heir' }]);
  });

  it('releases the jobs it claimed and did not start when it stops', async () => {
    const ids = seed([-3, -2, -1]);
    const w = worker('w-stopping', s.db, 300);
    const stop = w.start();
    while (count("state = 'running'") === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await stop();
    const jobs = s.db
      .prepare(
        `SELECT state, attempt, lease_expires_ms <= ? AS expired FROM lifecycle_jobs
           WHERE launch_id IN (SELECT value FROM json_each(?)) ORDER BY next_attempt_ms`,
      )
      .all(nowMs, JSON.stringify(ids.slice(1)));
    expect(jobs).toEqual([
      { state: 'running', attempt: 0, expired: 1 },
      { state: 'running', attempt: 0, expired: 1 },
    ]);
    const heir = worker('w-after-stop');
    while (await heir.tick()) {
      /* drain */
    }
    expect(count("state IN ('scheduled', 'running')")).toBe(0);
  });
});
