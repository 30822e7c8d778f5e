import type Database from 'better-sqlite3';
import type { Db } from './db.ts';

const caches = new WeakMap<Db, Map<string, Database.Statement>>();

/**
 * The prepared statement for `sql` on `db`, prepared once per handle and reused: preparing is the costly part of a
 * small query, and hot paths (the key lookup, launch reads) run on every request.
 */
export function statement(db: Db, sql: string): Database.Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}
