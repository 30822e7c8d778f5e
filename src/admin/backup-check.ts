/*
 * What `backup` and `restore` check on a copy of the SQLite file before it takes anyone's place: SQLite's own
 * integrity check, the foreign keys, the migration version and the row count of every table.
 */
import { existsSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Db } from '../store/db.ts';

/** A database's migration version and the row count of each table, read in one snapshot by the caller. */
export interface DatabaseFacts {
  migrationVersion: number;
  tables: Record<string, number>;
}

/** What the checks of a copy found: the facts, and a sentence per problem (none: the copy passed). */
export interface CopyCheck extends DatabaseFacts {
  problems: string[];
}

/** The highest applied migration (schema_migrations, src/store/migrations.ts), 0 for a file with none. */
function migrationVersionOf(db: Db): number {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!hasTable) return 0;
  return (db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
}

/**
 * The migration version and every table's row count (SQLite's own sqlite_sequence included), in name order. Run it
 * inside one read transaction to have them all from one snapshot.
 */
export function databaseFacts(db: Db): DatabaseFacts {
  const names = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
    .pluck()
    .all() as string[];
  const tables: Record<string, number> = {};
  for (const name of names) {
    tables[name] = db
      .prepare(`SELECT count(*) FROM "${name.replaceAll('"', '""')}"`)
      .pluck()
      .get() as number;
  }
  return { migrationVersion: migrationVersionOf(db), tables };
}

/**
 * Runs `PRAGMA integrity_check` and `PRAGMA foreign_key_check` over the SQLite file at `path` and reads its facts.
 * A file SQLite cannot read at all (not a database, a damaged header) is one problem, not an exception. The
 * connection writes nothing; it is the file's only one, so closing it removes the `-wal` and `-shm` it made.
 */
export function checkCopy(path: string): CopyCheck {
  let db: Db | undefined;
  try {
    db = new Database(path, { fileMustExist: true });
    const integrity = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    const problems: string[] = [];
    if (integrity.length !== 1 || integrity[0]?.integrity_check !== 'ok') {
      const lines = integrity.map((row) => row.integrity_check);
      problems.push(`integrity_check: ${lines.slice(0, 5).join('; ')}${lines.length > 5 ? ' …' : ''}`);
    }
    const orphans = db.pragma('foreign_key_check') as Array<{ table: string; rowid: number; parent: string }>;
    if (orphans.length > 0) {
      const first = orphans[0] as { table: string; rowid: number; parent: string };
      problems.push(
        `foreign_key_check: ${orphans.length} row(s) without their parent (first: ${first.table} rowid ${first.rowid}, parent ${first.parent})`,
      );
    }
    db.exec('BEGIN');
    const facts = databaseFacts(db);
    db.exec('COMMIT');
    return { ...facts, problems };
  } catch (err) {
    return { migrationVersion: 0, tables: {}, problems: [`SQLite cannot read it: ${(err as Error).message}`] };
  } finally {
    db?.close();
    // A copy nobody else has opened: whatever side file the check's connection left holds nothing of it.
    for (const side of [`${path}-wal`, `${path}-shm`]) if (existsSync(side)) rmSync(side, { force: true });
  }
}

/** The differences between the tables and counts a copy has and those it must have (none: they agree). */
export function countDifferences(want: Record<string, number>, got: Record<string, number>): string[] {
  const names = [...new Set([...Object.keys(want), ...Object.keys(got)])].sort();
  return names
    .filter((name) => want[name] !== got[name])
    .map((name) => `${name}: ${want[name] ?? 'no table'} in the source, ${got[name] ?? 'no table'} in the copy`);
}
