import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { countSqliteBusy } from '../observability/metrics.ts';
import { migrations } from './migrations.ts';

/** An open SQLite database handle. */
export type Db = Database.Database;

/**
 * Opens (creating if needed) the SQLite file, sets WAL and synchronous=FULL so a committed write is on disk before
 * the call returns (a 202 is sent only after that), and applies pending migrations.
 */
export function openDatabase(path: string, options: { busyTimeoutMs?: number } = {}): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  migrate(db);
  return db;
}

/**
 * Opens an existing SQLite file read-only (the developer API's own connection, spec/openapi/developer-api.openapi.yaml):
 * it never migrates or creates the file, and any write through it fails with SQLITE_READONLY. The service's
 * read-write connection (openDatabase) owns the schema and the WAL mode.
 */
export function openReadOnlyDatabase(path: string, options: { busyTimeoutMs?: number } = {}): Db {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  return db;
}

/** Applies every migration newer than the database's recorded version, each in its own transaction. */
export function migrate(db: Db): number {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT',
  );
  const row = db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null };
  const current = row.v ?? 0;
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
    })();
  }
  return migrations.at(-1)?.version ?? 0;
}

/**
 * Runs `fn` in one immediate transaction if the write lock is free now, else answers undefined at once: a background
 * worker's claim polls again soon anyway, so it never sits in the busy timeout (better-sqlite3 waits synchronously,
 * which would stall every request of the process while another process holds the lock). Any other failure is thrown.
 */
export function immediateIfFree<T>(db: Db, fn: () => T): T | undefined {
  const waitMs = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    return db.transaction(fn).immediate();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) {
      countSqliteBusy('claim');
      return undefined;
    }
    throw err;
  } finally {
    db.pragma(`busy_timeout = ${waitMs}`);
  }
}

/**
 * Runs `fn` in one immediate transaction whose commit skips the disk sync (synchronous=NORMAL for it alone): for a
 * counter that a power loss may roll back without harm, at a small fraction of a synced commit's cost. A crash of the
 * process loses nothing (the WAL is written), and the next synced commit syncs these frames too.
 */
export function unsyncedImmediate<T>(db: Db, fn: () => T): T {
  db.pragma('synchronous = NORMAL');
  try {
    return db.transaction(fn).immediate();
  } finally {
    db.pragma('synchronous = FULL');
  }
}
