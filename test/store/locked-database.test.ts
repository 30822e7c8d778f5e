import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, call } from '../support/http.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';
import { freshV4Bytes } from '../support/server.ts';
import { keysInFile, pollUntil, storedCounts } from '../support/store-faults.ts';

const dir = mkdtempSync(join(tmpdir(), 'custom-launch-locked-'));
const path = join(dir, 'locked.sqlite');
const busyTimeoutMs = 1000;
const stepDelayMs = 300;
let server: ServerProcess;
let apiKey = '';
let partnerKey = '';
// Another process's connection: it takes the write lock with BEGIN IMMEDIATE and holds it.
let other: Database.Database;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stored = () => storedCounts(other);
const url = () => `${server.url}/v4/chains/4663/custom-launches`;
const create = (body: string, key: string) =>
  call(url(), { method: 'POST', headers: auth(apiKey, { 'Idempotency-Key': key }), body });
const job = (launchId: string) =>
  other.prepare('SELECT state, last_error_code, lease_owner FROM lifecycle_jobs WHERE launch_id = ?').get(launchId) as {
    state: string;
    last_error_code: string | null;
    lease_owner: string | null;
  };

beforeAll(async () => {
  ({ walletKey: apiKey, partnerKey } = keysInFile(path, 'Locked database'));
  server = await startServerProcess({
    DATABASE_PATH: path,
    SQLITE_BUSY_TIMEOUT_MS: String(busyTimeoutMs),
    LIFECYCLE_POLL_MS: '20',
    LIFECYCLE_STEP_DELAY_MS: String(stepDelayMs),
  });
  other = new Database(path);
});

afterAll(async () => {
  if (other?.inTransaction) other.exec('ROLLBACK');
  other?.close();
  await server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('a database locked by another process', () => {
  it('answers a create 503 UNAVAILABLE with Retry-After after the busy timeout, stores nothing, and takes the same bytes after the release', async () => {
    const before = await create(freshV4Bytes(), 'locked-database-first');
    expect(before.status, before.text).toBe(202);
    const counts = stored();
    const body = freshV4Bytes();
    other.exec('BEGIN IMMEDIATE');
    let refused: Awaited<ReturnType<typeof create>>;
    const started = Date.now();
    try {
      refused = await create(body, 'locked-database-refused');
      // Readers are never blocked by a writer (WAL).
      const read = await call(`${url()}/${before.json.launchId}`, { headers: auth(apiKey) });
      expect(read.status, read.text).toBe(200);
      // A partner's read spends a budget counted in the file: it waits for the lock like a write.
      const partnerRead = await call(url(), { headers: auth(partnerKey) });
      expect(partnerRead.status, partnerRead.text).toBe(503);
      expect(partnerRead.json.error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
      expect(Number(partnerRead.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(stored()).toEqual(counts);
    } finally {
      other.exec('ROLLBACK');
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(busyTimeoutMs);
    expect(refused.status, refused.text).toBe(503);
    expect(refused.json.error).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const retried = await create(body, 'locked-database-refused');
    expect(retried.status, retried.text).toBe(202);
    expect((await call(url(), { headers: auth(partnerKey) })).status).toBe(200);
    expect(stored()).toEqual({
      launches: counts.launches + 1,
      idempotency: counts.idempotency + 1,
      admissions: counts.admissions + 1,
    });
  });

  it('commits a lifecycle step that ends while the lock is held, once the lock is released within the busy timeout', async () => {
    const created = await create(freshV4Bytes(), 'locked-database-step');
    expect(created.status, created.text).toBe(202);
    const launchId = created.json.launchId as string;
    const running = await pollUntil(
      () => job(launchId),
      (j) => j.state === 'running',
      5_000,
    );
    expect(running.state).toBe('running');
    // Held from before the step ends until well after it ended, and released within the busy timeout.
    other.exec('BEGIN IMMEDIATE');
    await sleep(stepDelayMs + busyTimeoutMs / 2);
    other.exec('ROLLBACK');
    // A chainless server parks the launch in validating with CHAIN_NOT_CONFIGURED; the step's commit was waiting.
    const parked = await pollUntil(
      () => job(launchId),
      (j) => j.state === 'idle',
      2_000,
    );
    expect(parked).toEqual({ state: 'idle', last_error_code: 'CHAIN_NOT_CONFIGURED', lease_owner: null });
    const transitions = other
      .prepare('SELECT from_status, to_status FROM launch_transitions WHERE launch_id = ? ORDER BY seq')
      .all(launchId);
    expect(transitions).toEqual([{ from_status: 'received', to_status: 'validating' }]);
  });
});
