import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { findPrincipal, mintPartnerRoot, mintWalletKey } from '../../src/auth/keys.ts';
import { PartnerBudgets } from '../../src/http/rate-limit.ts';
import { migrate, openDatabase } from '../../src/store/db.ts';
import { migrations } from '../../src/store/migrations.ts';
import { auth, call } from '../support/http.ts';
import { startServerProcess } from '../support/process.ts';
import { exampleBytes, exampleWallet, v4Example } from '../support/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'custom-launch-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite store', () => {
  it('opens with WAL and synchronous=FULL and records every migration once', () => {
    const path = join(dir, 'pragmas.sqlite');
    const db = openDatabase(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    // 2 = FULL: a commit returns only after the WAL is synced to disk.
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all();
    expect(versions).toEqual(migrations.map((m) => ({ version: m.version })));
    expect(migrate(db)).toBe(migrations.at(-1)?.version);
    expect(db.prepare('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({ n: migrations.length });
    db.close();
    const reopened = openDatabase(path);
    expect(reopened.prepare('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({ n: migrations.length });
    reopened.close();
  });
});

describe('partner budget counts', () => {
  it('commit without a disk sync and leave the connection synced for everything else', () => {
    const db = openDatabase(join(dir, 'budgets.sqlite'));
    const { apiKey } = mintPartnerRoot(db, {
      name: 'Durability',
      wallet: exampleWallet,
      chains: ['4663'],
      expiresAt: '2031-12-31T23:59:59.999Z',
      now: Date.now(),
      budgets: { prepareRequestsPerHour: 10, readRequestsPerMinute: 2, subkeyAdminRequestsPerHour: 10 },
    });
    const principal = findPrincipal(db, apiKey, Date.now());
    if (!principal) throw new Error('the minted root does not authenticate');
    const budgets = new PartnerBudgets(db);
    budgets.take('getCustomLaunchV4', principal);
    budgets.take('getCustomLaunchV4', principal);
    expect(() => budgets.take('getCustomLaunchV4', principal)).toThrow(
      expect.objectContaining({ code: 'RATE_LIMITED' }),
    );
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.prepare('SELECT count FROM partner_budget_windows').all()).toEqual([{ count: 2 }]);
    db.close();
  });
});

describe('a 202 is sent only after the commit is on disk', () => {
  it('keeps a created launch when the server process is killed right after the 202', async () => {
    const path = join(dir, 'killed.sqlite');
    const setup = openDatabase(path);
    const { apiKey } = mintWalletKey(setup, {
      wallet: exampleWallet,
      scopes: ['custom-launch:create', 'custom-launch:read'],
      chains: ['4663'],
    });
    setup.close();
    const server = await startServerProcess({ DATABASE_PATH: path });
    try {
      const url = server.url;
      const created = await call(`${url}/v4/chains/4663/custom-launches`, {
        method: 'POST',
        headers: auth(apiKey, { 'Idempotency-Key': 'durability-kill-test' }),
        body: exampleBytes(v4Example),
      });
      expect(created.status, created.text).toBe(202);
      await server.kill();
      const db = new Database(path, { readonly: true });
      const row = db.prepare('SELECT request_bytes FROM launches WHERE launch_id = ?').get(created.json.launchId) as
        | { request_bytes: Buffer }
        | undefined;
      const replayable = db
        .prepare('SELECT response_status FROM idempotency_records WHERE idempotency_key = ?')
        .get('durability-kill-test');
      db.close();
      // The lifecycle worker may already have moved the launch on; what must survive is the launch and its bytes.
      expect(row?.request_bytes.toString('utf8')).toBe(exampleBytes(v4Example));
      expect(replayable).toEqual({ response_status: 202 });
    } finally {
      await server.kill();
    }
  });
});
