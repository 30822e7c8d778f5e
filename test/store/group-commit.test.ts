import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/store/db.ts';
import { GroupCommit } from '../../src/store/group-commit.ts';
import { auth, call } from '../support/http.ts';
import { freshV4Bytes, startServer, type TestServer } from '../support/server.ts';

/**
 * Group commit (src/store/group-commit.ts) over a real SQLite file: the writes of one event-loop turn share one
 * synchronous=FULL commit, each in its own savepoint; a failing write answers its own error and the others are
 * stored and acknowledged, each only after the commit. Then createCustomLaunchV4 over real HTTP with a burst of
 * creates, one of them an intent conflict.
 */

let dir: string;
let db: Db;
let other: Database.Database;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'custom-launch-group-commit-'));
  db = openDatabase(join(dir, 'group.sqlite'));
  db.exec('CREATE TABLE scratch (batch TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (batch, n)) STRICT');
  other = new Database(join(dir, 'group.sqlite'), { readonly: true });
});
afterAll(() => {
  other?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Fault = 'none' | 'throws' | 'duplicate' | 'ends-transaction';
const committed = (batch: string) =>
  (other.prepare('SELECT n FROM scratch WHERE batch = ? ORDER BY n').all(batch) as Array<{ n: number }>).map(
    (r) => r.n,
  );

describe('one commit for the writes of one turn, each in its own savepoint', () => {
  const cases: Array<[name: string, faults: Fault[], stored: number[], rejected: number[]]> = [
    ['five clean writes', ['none', 'none', 'none', 'none', 'none'], [0, 1, 2, 3, 4], []],
    ['the third throws', ['none', 'none', 'throws', 'none', 'none'], [0, 1, 3, 4], [2]],
    ['the second breaks a constraint', ['none', 'duplicate', 'none'], [0, 2], [1]],
    ['the first alone, throwing', ['throws'], [], [0]],
    ['the third ends the whole transaction', ['none', 'none', 'ends-transaction', 'none'], [0, 1, 3], [2]],
  ];
  it.each(cases)('%s', async (batch, faults, stored, rejected) => {
    const group = new GroupCommit(db);
    const seenByOthers: number[][] = [];
    const writes = faults.map((fault, n) =>
      group.run(() => {
        // Another connection sees nothing of the batch while it runs: nothing is committed before the COMMIT.
        seenByOthers.push(committed(batch));
        if (fault === 'ends-transaction') db.exec('ROLLBACK');
        if (fault === 'throws' || fault === 'ends-transaction') throw new Error(`write ${n} refused`);
        db.prepare('INSERT INTO scratch (batch, n) VALUES (?, ?)').run(batch, fault === 'duplicate' ? 0 : n);
        // Settling happens after the COMMIT, so the other connection reads this row by then.
        return n;
      }),
    );
    const settled = await Promise.allSettled(writes);
    const ok = settled.flatMap((s, n) => (s.status === 'fulfilled' ? [n] : []));
    const refused = settled.flatMap((s, n) => (s.status === 'rejected' ? [n] : []));
    expect([ok, refused]).toEqual([stored, rejected]);
    for (const n of ok) expect((settled[n] as PromiseFulfilledResult<number>).value).toBe(n);
    expect(committed(batch)).toEqual(stored);
    expect(seenByOthers.every((rows) => rows.length === 0)).toBe(true);
    expect(db.inTransaction).toBe(false);
  });

  it('writes queued in different turns commit in different transactions', async () => {
    const group = new GroupCommit(db);
    const first = group.run(() => db.prepare("INSERT INTO scratch (batch, n) VALUES ('turns', 1)").run());
    await first;
    expect(committed('turns')).toEqual([1]);
    await group.run(() => db.prepare("INSERT INTO scratch (batch, n) VALUES ('turns', 2)").run());
    expect(committed('turns')).toEqual([1, 2]);
  });
});

describe('createCustomLaunchV4 in a burst', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('twelve creates at once, two of them a stored intent under other keys: ten 202s stored, the others 409', async () => {
    const apiKey = s.key();
    const url = `${s.url}/v4/chains/4663/custom-launches`;
    const bodies = Array.from({ length: 10 }, () => freshV4Bytes());
    const sends = [...bodies, bodies[0] as string, bodies[0] as string].map((body, i) => ({
      body,
      key: `group-commit-burst-${String(i).padStart(4, '0')}`,
    }));
    const create = (body: string, key: string) =>
      call(url, { method: 'POST', headers: auth(apiKey, { 'Idempotency-Key': key }), body });
    const replies = await Promise.all(sends.map((x) => create(x.body, x.key)));
    const firstIntent = [0, 10, 11].map((i) => replies[i]?.status).sort();
    expect(firstIntent).toEqual([202, 409, 409]);
    for (const i of [1, 2, 3, 4, 5, 6, 7, 8, 9]) expect(replies[i]?.status, replies[i]?.text).toBe(202);
    const accepted = replies.filter((r) => r.status === 202);
    expect(accepted).toHaveLength(10);
    for (const r of replies.filter((x) => x.status === 409)) expect(r.json.error.code).toBe('LAUNCH_INTENT_CONFLICT');
    const stored = s.db.prepare('SELECT count(*) AS n FROM launches').get() as { n: number };
    expect(stored.n).toBe(10);
    // Every acknowledged create is stored and replays its first answer byte for byte.
    for (const [i, r] of replies.entries()) {
      if (r.status !== 202) continue;
      const x = sends[i] as { body: string; key: string };
      const replay = await create(x.body, x.key);
      expect([replay.status, replay.text]).toEqual([200, r.text]);
    }
  });
});
