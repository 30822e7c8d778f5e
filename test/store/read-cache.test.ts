import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPrincipal, revokeWalletKey } from '../../src/auth/keys.ts';
import { type Db, openDatabase } from '../../src/store/db.ts';
import { CommitScopedCache } from '../../src/store/read-cache.ts';
import { auth, call } from '../support/http.ts';
import { freshV4Bytes, startServer, type TestServer } from '../support/server.ts';

/**
 * The commit-scoped read cache (src/store/read-cache.ts) over a real SQLite file: a read is served again only while
 * nothing was written to the file, by this connection or any other; then the key lookup and the launch detail over
 * real HTTP, where a revocation committed by another connection takes effect at once.
 */

let dir: string;
let db: Db;
let other: Db;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'custom-launch-read-cache-'));
  db = openDatabase(join(dir, 'cache.sqlite'));
  db.exec('CREATE TABLE scratch (n INTEGER NOT NULL) STRICT');
  other = openDatabase(join(dir, 'cache.sqlite'));
});
afterAll(() => {
  other?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a read is served again until anything is written', () => {
  const cases: Array<[name: string, between: () => void, readsAgain: boolean]> = [
    ['nothing written', () => {}, false],
    ['a read by another connection', () => other.prepare('SELECT count(*) FROM scratch').get(), false],
    ['an insert by this connection', () => db.prepare('INSERT INTO scratch VALUES (1)').run(), true],
    [
      'a rolled-back write by this connection',
      () =>
        db.transaction(() => {
          db.prepare('INSERT INTO scratch VALUES (2)').run();
          throw new Error('rolled back');
        })(),
      true,
    ],
    ['a commit by another connection', () => other.prepare('INSERT INTO scratch VALUES (3)').run(), true],
  ];
  it.each(cases)('%s', (name, between, readsAgain) => {
    const cache = new CommitScopedCache(db);
    let reads = 0;
    const read = () => {
      reads += 1;
      return (db.prepare('SELECT count(*) AS n FROM scratch').get() as { n: number }).n;
    };
    const first = cache.get(name, read);
    try {
      between();
    } catch {
      // The rolled-back case throws after its write began.
    }
    const second = cache.get(name, read);
    expect(reads).toBe(readsAgain ? 2 : 1);
    expect(second).toBe(read());
    expect(first).toBeTypeOf('number');
  });
});

describe('the key lookup and the launch detail over HTTP', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('a revocation committed by another connection answers 401 on the next read', async () => {
    const apiKey = s.key();
    const url = `${s.url}/v4/chains/4663/custom-launches`;
    const created = await call(url, {
      method: 'POST',
      headers: auth(apiKey, { 'Idempotency-Key': 'read-cache-create-0001' }),
      body: freshV4Bytes(),
    });
    expect(created.status, created.text).toBe(202);
    const detail = `${url}/${created.json.launchId}`;
    const reads = [await call(detail, { headers: auth(apiKey) }), await call(detail, { headers: auth(apiKey) })];
    expect(reads.map((r) => r.status)).toEqual([200, 200]);
    expect(reads[1]?.text).toBe(reads[0]?.text);
    const keyId = findPrincipal(s.db, apiKey, Date.now())?.keyId as string;
    const admin = openDatabase(s.config.databasePath);
    try {
      revokeWalletKey(admin, keyId, Date.now());
    } finally {
      admin.close();
    }
    const after = await call(detail, { headers: auth(apiKey) });
    expect(after.status, after.text).toBe(401);
  });

  it('a change to the launch by this connection is read at once', async () => {
    const apiKey = s.key();
    const url = `${s.url}/v4/chains/4663/custom-launches`;
    const created = await call(url, {
      method: 'POST',
      headers: auth(apiKey, { 'Idempotency-Key': 'read-cache-create-0002' }),
      body: freshV4Bytes(),
    });
    const detail = `${url}/${created.json.launchId}`;
    expect((await call(detail, { headers: auth(apiKey) })).json.status).toBe('received');
    s.db.prepare(`UPDATE launches SET status = 'validating' WHERE launch_id = ?`).run(created.json.launchId as string);
    expect((await call(detail, { headers: auth(apiKey) })).json.status).toBe('validating');
  });
});
