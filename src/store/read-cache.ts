import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';

// Reads are kept until the next commit to the file: `data_version` changes when any other connection (another
// process, the developer API's handle) commits, and `total_changes()` when this connection writes anything, committed
// or not. While neither moved, a read answers exactly what it answered before. Two plain statements: cheaper together
// than one query of the pragma's table-valued function.
const versionSql = 'PRAGMA data_version';
const changesSql = 'SELECT total_changes()';

// A bound on the memory a burst of distinct reads can hold between two commits.
const maxEntries = 10_000;

/**
 * Memoizes reads of one database handle until anything is written to the file (the key lookup of every request and
 * the launch detail, spec/openapi/paths/v4-custom-launch.yaml getCustomLaunchV4): one small statement replaces the
 * read while nothing changed; any write, by any connection, empties the cache.
 */
export class CommitScopedCache {
  private version = -1;
  private changes = -1;
  private readonly entries = new Map<string, unknown>();
  private readonly versionOf: Statement;
  private readonly changesOf: Statement;

  constructor(db: Db) {
    this.versionOf = db.prepare(versionSql).pluck();
    this.changesOf = db.prepare(changesSql).pluck();
  }

  /** The value `read` returns now: the kept one when nothing was written since it was read. */
  get<V>(key: string, read: () => V): V {
    const version = this.versionOf.get() as number;
    const changes = this.changesOf.get() as number;
    if (version !== this.version || changes !== this.changes) {
      this.entries.clear();
      this.version = version;
      this.changes = changes;
    }
    if (this.entries.has(key)) return this.entries.get(key) as V;
    const value = read();
    if (this.entries.size >= maxEntries) this.entries.clear();
    this.entries.set(key, value);
    return value;
  }
}

const caches = new WeakMap<Db, CommitScopedCache>();

/** The one commit-scoped read cache of a database handle. */
export function readCacheOf(db: Db): CommitScopedCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new CommitScopedCache(db);
    caches.set(db, cache);
  }
  return cache;
}
