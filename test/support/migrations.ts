import Database from 'better-sqlite3';
import { migrations } from '../../src/store/migrations.ts';

/**
 * A database (in memory, or the file `path`) on the schema of every migration before the one whose name starts with
 * `name` (found by name, so a renumbering at merge time keeps a test true), recorded as applied: a file as an older
 * server left it.
 */
export function databaseBefore(name: string, path = ':memory:'): Database.Database {
  const ours = migrations.findIndex((m) => m.name.startsWith(name));
  if (ours < 1) throw new Error(`no migration after the first is named "${name}…"`);
  const db = new Database(path);
  db.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT',
  );
  for (const m of migrations.slice(0, ours)) {
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, '2026-11-01T00:00:00.000Z');
  }
  return db;
}
