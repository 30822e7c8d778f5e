import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, call, type Reply } from '../support/http.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';
import { freshV4Bytes, unboundReference, v4Example } from '../support/server.ts';
import { keysInFile, pollUntil } from '../support/store-faults.ts';

const dir = mkdtempSync(join(tmpdir(), 'custom-launch-two-processes-'));
const path = join(dir, 'shared.sqlite');
const admissionPerHour = 10;
const partnerReadsPerMinute = 6;
const routeBudgetPerMinute = 25;
const env = {
  DATABASE_PATH: path,
  ROUTE_BUDGET_PER_MINUTE: String(routeBudgetPerMinute),
  DEVELOPERS_PORT: 'off',
  ADMISSION_PER_HOUR: String(admissionPerHour),
  LIFECYCLE_POLL_MS: '50',
  LIFECYCLE_LEASE_MS: '1500',
};
let walletKey = '';
let partnerKey = '';
let reader: Database.Database;
const servers: ServerProcess[] = [];
let a: ServerProcess;
let b: ServerProcess;

const launches = (s: ServerProcess) => `${s.url}/v4/chains/4663/custom-launches`;
const create = (s: ServerProcess, body: string, key: string) =>
  call(launches(s), { method: 'POST', headers: auth(walletKey, { 'Idempotency-Key': key }), body });
const count = (sql: string, ...args: unknown[]) => (reader.prepare(sql).get(...args) as { n: number }).n;
function statusCounts(replies: Reply[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of replies) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

beforeAll(() => {
  ({ walletKey, partnerKey } = keysInFile(path, 'Two processes', partnerReadsPerMinute));
  reader = new Database(path, { readonly: true });
});

afterAll(async () => {
  for (const s of servers) await s.kill();
  reader?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('two server processes on one SQLite file', () => {
  it('takes over the job of a worker killed with SIGKILL mid-step once its lease expires, and runs no step twice', async () => {
    const doomed = await startServerProcess({ ...env, LIFECYCLE_STEP_DELAY_MS: '60000' });
    servers.push(doomed);
    const created = await create(
      doomed,
      freshV4Bytes(v4Example, (r) => {
        r.externalContracts = [structuredClone(unboundReference)];
      }),
      'two-processes-killed-worker',
    );
    expect(created.status, created.text).toBe(202);
    const launchId = created.json.launchId as string;
    const job = () =>
      reader.prepare('SELECT state, attempt, lease_owner FROM lifecycle_jobs WHERE launch_id = ?').get(launchId) as {
        state: string;
        attempt: number;
        lease_owner: string | null;
      };
    await pollUntil(job, (j) => j.state === 'running');
    expect(job().lease_owner).toContain(`:${doomed.child.pid}:`);
    await doomed.kill();
    [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    servers.push(a, b);
    await pollUntil(
      () =>
        (reader.prepare('SELECT status FROM launches WHERE launch_id = ?').get(launchId) as { status: string }).status,
      (s) => s === 'action_required',
    );
    const transitions = reader
      .prepare('SELECT from_status, to_status, worker FROM launch_transitions WHERE launch_id = ? ORDER BY seq')
      .all(launchId) as Array<{ from_status: string; to_status: string; worker: string }>;
    expect(transitions.map((t) => [t.from_status, t.to_status])).toEqual([
      ['received', 'validating'],
      ['validating', 'action_required'],
    ]);
    expect(transitions[0]?.worker).toContain(`:${doomed.child.pid}:`);
    expect([a.child.pid, b.child.pid].some((pid) => transitions[1]?.worker.includes(`:${pid}:`))).toBe(true);
    expect(job()).toEqual({ state: 'idle', attempt: 2, lease_owner: null });
  });

  it('shares idempotency: the same key and bytes sent to both at once make one launch, every other answer its replay', async () => {
    const body = freshV4Bytes(v4Example, (r) => {
      r.externalContracts = [structuredClone(unboundReference)];
    });
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) => create(i % 2 ? a : b, body, 'two-processes-same-key')),
    );
    expect(statusCounts(replies)).toEqual({ 202: 1, 200: 7 });
    const first = replies.find((r) => r.status === 202) as Reply;
    for (const r of replies) expect(r.text).toBe(first.text);
    const intent = (JSON.parse(body) as { launchIntentHash: string }).launchIntentHash;
    expect(count('SELECT count(*) AS n FROM launches WHERE launch_intent_hash = ?', intent)).toBe(1);
    expect(
      count("SELECT count(*) AS n FROM idempotency_records WHERE idempotency_key = 'two-processes-same-key'"),
    ).toBe(1);
  });

  it('shares the admission quota: a burst of distinct creates over both admits exactly what is left of the hour', async () => {
    const admitted = count('SELECT count(*) AS n FROM admissions');
    expect(admitted).toBe(2);
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        create(
          i % 2 ? a : b,
          freshV4Bytes(v4Example, (r) => {
            r.externalContracts = [structuredClone(unboundReference)];
          }),
          `two-processes-burst-${String(i).padStart(2, '0')}`,
        ),
      ),
    );
    expect(statusCounts(replies)).toEqual({
      202: admissionPerHour - admitted,
      429: 30 - (admissionPerHour - admitted),
    });
    for (const r of replies.filter((x) => x.status === 429)) {
      expect(r.json.error.code).toBe('ADMISSION_QUOTA_EXHAUSTED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(count('SELECT count(*) AS n FROM admissions')).toBe(admissionPerHour);
    expect(count('SELECT count(*) AS n FROM launches')).toBe(admissionPerHour);
  });

  it('holds the lifecycle leases: every launch steps to action_required once, with no transition recorded twice', async () => {
    await pollUntil(
      () => count("SELECT count(*) AS n FROM launches WHERE status <> 'action_required'"),
      (n) => n === 0,
    );
    const repeated = reader
      .prepare(
        `SELECT launch_id, from_status, to_status, count(*) AS n FROM launch_transitions
           GROUP BY launch_id, from_status, to_status HAVING n > 1`,
      )
      .all();
    expect(repeated).toEqual([]);
    expect(count('SELECT count(*) AS n FROM launch_transitions')).toBe(2 * admissionPerHour);
  });

  it("counts a partner's read budget once across both processes", async () => {
    const replies = await Promise.all(
      Array.from({ length: 2 * partnerReadsPerMinute }, (_, i) =>
        call(launches(i % 2 ? a : b), { headers: auth(partnerKey) }),
      ),
    );
    expect(statusCounts(replies)).toEqual({ 200: partnerReadsPerMinute, 429: partnerReadsPerMinute });
    for (const r of replies.filter((x) => x.status === 429)) {
      expect(r.json.error.code).toBe('RATE_LIMITED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('counts the per-route budget in each process on its own, as documented', async () => {
    const replies = await Promise.all(
      Array.from({ length: 2 * routeBudgetPerMinute + 2 }, (_, i) =>
        call(`${(i % 2 ? a : b).url}/v4/chains/4663/capabilities`),
      ),
    );
    expect(statusCounts(replies)).toEqual({ 200: 2 * routeBudgetPerMinute, 429: 2 });
  });
});
