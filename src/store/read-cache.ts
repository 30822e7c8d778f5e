import type { Db } from './db.ts';
import { statement } from './statements.ts';

/**
 * Reads kept until the next commit to the file: `data_version` changes when any other connection (another process,
 * the developer API's handle) commits, and `total_changes()` when this connection writes anything, committed or not.
 * While neither moved, a read answers exactly what it answered before, so its result is served again.
 */
const generationSql = 'SELECT total_changes() AS changes, data_version AS version FROM pragma_data_version';

// A bound on the memory a burst of distinct reads can hold between two commits.
const maxEntries = 10_000;

/**
 * Memoizes reads of one database handle until anything is written to the file (the key lookup of every request and
 * the launch detail, spec/openapi/paths/v4-custom-launch.yaml getCustomLaunchV4): one small statement replaces the
 * read while nothing changed; any write, by any connection, empties the cache.
 */
export class CommitScopedCache {
  private generation = '';
  private readonly entries = new Map<string, unknown>();

  constructor(private readonly db: Db) {}

  /** The value `read` returns now: the kept one when nothing was written since it was read. */
  get<V>(key: string, read: () => V): V {
    const row = statement(this.db, generationSql).get() as { changes: number; version: number };
    const generation = `${row.version}:${row.changes}`;
    if (generation !== this.generation) {
      this.entries.clear();
      this.generation = generation;
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
