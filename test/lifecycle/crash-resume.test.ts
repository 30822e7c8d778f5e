import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { auth, call } from '../support/http.ts';
import { startServerProcess } from '../support/process.ts';
import { exampleWithUnboundReference, walletKeyInFile } from '../support/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'custom-launch-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Polls the database file from outside the server until `predicate` holds. */
async function until<T>(
  path: string,
  query: () => T,
  predicate: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = query();
    if (predicate(value)) return value;
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out waiting on ${path}: last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a server process killed mid-validation (durable lifecycle)', () => {
  it('resumes on restart with nothing lost and nothing done twice', async () => {
    const path = join(dir, 'crash.sqlite');
    const apiKey = walletKeyInFile(path);
    const reader = new Database(path, { readonly: true });
    const statusOf = (launchId: string) =>
      (reader.prepare('SELECT status FROM launches WHERE launch_id = ?').get(launchId) as { status: string }).status;
    const lease = { LIFECYCLE_LEASE_MS: '1500', LIFECYCLE_POLL_MS: '50' };

    // The first process claims the job, then sits in a long step: it is killed there.
    const first = await startServerProcess({ DATABASE_PATH: path, LIFECYCLE_STEP_DELAY_MS: '60000', ...lease });
    let launchId = '';
    try {
      const created = await call(`${first.url}/v4/chains/4663/custom-launches`, {
        method: 'POST',
        headers: auth(apiKey, { 'Idempotency-Key': 'crash-resume-test-0001' }),
        body: exampleWithUnboundReference(),
      });
      expect(created.status, created.text).toBe(202);
      launchId = created.json.launchId;
      await until(
        path,
        () => statusOf(launchId),
        (s) => s === 'validating',
      );
    } finally {
      await first.kill();
    }
    const job = () =>
      reader.prepare('SELECT state, attempt FROM lifecycle_jobs WHERE launch_id = ?').get(launchId) as {
        state: string;
        attempt: number;
      };
    expect(job()).toEqual({ state: 'running', attempt: 1 });

    // The second process takes the job over once the dead worker's lease expires, and finishes it once.
    const second = await startServerProcess({ DATABASE_PATH: path, LIFECYCLE_STEP_DELAY_MS: '0', ...lease });
    try {
      await until(
        path,
        () => statusOf(launchId),
        (s) => s === 'action_required',
      );
      const transitions = reader
        .prepare('SELECT from_status, to_status FROM launch_transitions WHERE launch_id = ? ORDER BY seq')
        .all(launchId);
      expect(transitions).toEqual([
        { from_status: 'received', to_status: 'validating' },
        { from_status: 'validating', to_status: 'action_required' },
      ]);
      expect(job()).toEqual({ state: 'idle', attempt: 2 });
      expect(reader.prepare('SELECT count(*) AS n FROM launches').get()).toEqual({ n: 1 });
    } finally {
      await second.stop();
      reader.close();
    }
  });
});
