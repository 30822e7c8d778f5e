import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth } from '../support/http.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';
import { freshV4Bytes, unboundReference } from '../support/server.ts';
import { keysInFile, pollUntil } from '../support/store-faults.ts';
import { childPids, get, keptOpen, servingPids } from './sockets.ts';

const dir = mkdtempSync(join(tmpdir(), 'custom-launch-cluster-'));
const path = join(dir, 'cluster.sqlite');
const leaseMs = 2000;
const routeBudgetPerMinute = 100;
let walletKey = '';
let reader: Database.Database;
let server: ServerProcess;
let primary = 0;

const portOf = (url: string) => Number(new URL(url).port);
const holderPid = () => {
  const row = reader.prepare("SELECT owner FROM process_leases WHERE name = 'background'").get() as
    | { owner: string }
    | undefined;
  return row ? Number(row.owner.split(':')[1]) : undefined;
};

/** The worker pids that served `connections` fresh connections carrying one GET of `path` each. */
async function servedBy(path: string, connections: number): Promise<Set<number | undefined>> {
  const agent = keptOpen(connections);
  try {
    const answers = await Promise.all(Array.from({ length: connections }, () => get(agent, `${server.url}${path}`)));
    return new Set(
      servingPids(
        portOf(server.url),
        answers.map((a) => a.clientPort),
        childPids(primary),
      ),
    );
  } finally {
    agent.destroy();
  }
}

/** Waits until fresh connections are handed to `pid` (any worker when undefined) and to `count` workers in all. */
async function untilServing(count: number, pid?: number): Promise<void> {
  for (let tries = 0; ; tries++) {
    const served = await servedBy('/readyz', 4);
    if (served.size >= count && (pid === undefined || served.has(pid))) return;
    if (tries > 40) throw new Error(`worker ${pid ?? ''} did not start serving`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

beforeAll(async () => {
  ({ walletKey } = keysInFile(path, 'Cluster'));
  reader = new Database(path, { readonly: true });
  server = await startServerProcess({
    DATABASE_PATH: path,
    WORKERS: '2',
    DEVELOPERS_PORT: 'off',
    ROUTE_BUDGET_PER_MINUTE: String(routeBudgetPerMinute),
    ADMISSION_PER_HOUR: '1000',
    ADMISSION_PER_DAY: '1000',
    LIFECYCLE_LEASE_MS: String(leaseMs),
    LIFECYCLE_POLL_MS: '50',
  });
  primary = server.child.pid as number;
  await pollUntil(
    () => childPids(primary).length,
    (n) => n === 2,
  );
  await untilServing(2);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  reader?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('WORKERS=2: one port, one SQLite file, two server processes', () => {
  it('answers on one port from both workers, and a route budget of N per minute admits exactly N across them', async () => {
    const agent = keptOpen(16);
    try {
      const answers = await Promise.all(
        Array.from({ length: 2 * routeBudgetPerMinute + 2 }, () =>
          get(agent, `${server.url}/v4/chains/4663/capabilities`),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(routeBudgetPerMinute);
      expect(statuses.filter((s) => s === 429)).toHaveLength(routeBudgetPerMinute + 2);
      for (const a of answers.filter((x) => x.status === 429)) {
        expect(JSON.parse(a.body).error.code).toBe('RATE_LIMITED');
        expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(Number(a.retryAfter)).toBeLessThanOrEqual(60);
      }
      const workers = childPids(primary);
      const serving = servingPids(
        portOf(server.url),
        answers.map((a) => a.clientPort),
        workers,
      );
      expect(new Set(serving)).toEqual(new Set(workers));
      expect(workers).not.toContain(primary);
    } finally {
      agent.destroy();
    }
  });

  it('holds the background lease in one worker, and it moves to another within one lease when its holder is killed with SIGKILL', async () => {
    const workers = childPids(primary);
    const holder = await pollUntil(holderPid, (pid) => pid !== undefined);
    expect(workers).toContain(holder);
    process.kill(holder as number, 'SIGKILL');
    const killedAt = Date.now();
    const next = await pollUntil(holderPid, (pid) => pid !== undefined && pid !== holder, 2 * leaseMs);
    expect(Date.now() - killedAt).toBeLessThan(leaseMs);
    const replacement = (
      await pollUntil(
        () => childPids(primary),
        (pids) => pids.length === 2 && !pids.includes(holder as number),
      )
    ).find((pid) => !workers.includes(pid));
    expect(childPids(primary)).toContain(next);
    await untilServing(2, replacement);
  });

  it('keeps every acknowledged create exactly once when a worker is killed with SIGKILL mid-burst, and its replacement serves', async () => {
    const before = childPids(primary);
    const bodies = Array.from({ length: 40 }, (_, i) => ({
      key: `cluster-burst-${String(i).padStart(3, '0')}`,
      body: freshV4Bytes(undefined, (r) => {
        r.externalContracts = [structuredClone(unboundReference)];
      }),
    }));
    const launchIds = new Map<string, string[]>();
    let sent = 0;
    let killed: number | undefined;
    // A client's create: a request that fails at the socket, or meets 503, is sent again with the same key and bytes.
    const create = async ({ key, body }: { key: string; body: string }) => {
      let last = '';
      for (let attempt = 0; attempt < 100; attempt++) {
        if (++sent === 12) {
          killed = before[0];
          process.kill(killed as number, 'SIGKILL');
        }
        try {
          const res = await fetch(`${server.url}/v4/chains/4663/custom-launches`, {
            method: 'POST',
            headers: auth(walletKey, { 'Idempotency-Key': key }),
            body,
            // A connection handed to the worker as it died is never answered: the client gives up on it.
            signal: AbortSignal.timeout(3000),
          });
          const text = await res.text();
          if (res.status === 202 || res.status === 200) {
            launchIds.set(key, [...(launchIds.get(key) ?? []), JSON.parse(text).launchId]);
            return res.status;
          }
          last = `${res.status} ${text}`;
          expect(res.status, text).toBe(503);
        } catch (err) {
          if (err instanceof Error && err.name === 'AssertionError') throw err;
          last = `${String(err)} ${String((err as { cause?: unknown }).cause)} children ${childPids(primary)}`;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`${key} was never acknowledged: ${last}`);
    };
    const queue = [...bodies];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await create(next);
      }),
    );
    expect(killed).toBeDefined();
    expect(launchIds.size).toBe(bodies.length);
    for (const ids of launchIds.values()) expect(new Set(ids).size).toBe(1);
    const stored = reader
      .prepare('SELECT launch_id, launch_intent_hash FROM launches ORDER BY launch_id')
      .all() as Array<{ launch_id: string; launch_intent_hash: string }>;
    expect(stored.map((r) => r.launch_id)).toEqual([...launchIds.values()].map((ids) => ids[0]).sort());
    expect(new Set(stored.map((r) => r.launch_intent_hash)).size).toBe(bodies.length);
    const intents = bodies.map(({ body }) => (JSON.parse(body) as { launchIntentHash: string }).launchIntentHash);
    expect(stored.map((r) => r.launch_intent_hash).sort()).toEqual(intents.sort());

    const replacement = (
      await pollUntil(
        () => childPids(primary),
        (pids) => pids.length === 2 && !pids.includes(killed as number),
      )
    ).find((pid) => !before.includes(pid));
    expect(replacement).toBeDefined();
    await untilServing(2, replacement);
    // The background work went on: every launch stepped once to action_required.
    await pollUntil(
      () =>
        reader.prepare("SELECT count(*) AS n FROM launches WHERE status <> 'action_required'").get() as { n: number },
      (r) => r.n === 0,
    );
    expect(
      reader
        .prepare(
          `SELECT launch_id, from_status, to_status, count(*) AS n FROM launch_transitions
             GROUP BY launch_id, from_status, to_status HAVING n > 1`,
        )
        .all(),
    ).toEqual([]);
  }, 60_000);
});
