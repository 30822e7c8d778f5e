import {
  type MetricLane,
  queuedJobStates,
  queuedReviewStates,
  type StoreCounts,
  type WorkerLane,
} from '../observability/metrics.ts';
import type { Db } from './db.ts';
import { statement } from './statements.ts';

/**
 * Index entries one count reads at most before the event loop gets a turn: counting a million launches in one
 * statement held the event loop for about 90 ms (measured); a chunk of this size holds it for about 4 ms, for about
 * 150 ms of CPU per scrape at a million launches.
 */
const chunkRows = 20_000;

/** History rows are read from the table itself (no status index), so a chunk is smaller; each row is read once. */
const historyChunkRows = 5_000;

/** Each lane's launch table (src/store/migrations.ts); each has an index on (status, seq). */
const launchTables: ReadonlyArray<{ lane: MetricLane; table: string }> = [
  { lane: 'v4', table: 'launches' },
  { lane: 'v3', table: 'v3_launches' },
  { lane: 'multi-role', table: 'multi_role_launches' },
];

/** Each lane's lifecycle jobs table; each has an index on (state, next_attempt_ms). */
const jobTables: ReadonlyArray<{ lane: WorkerLane; table: string }> = [
  { lane: 'v4', table: 'lifecycle_jobs' },
  { lane: 'v3', table: 'v3_lifecycle_jobs' },
  { lane: 'multi-role', table: 'multi_role_lifecycle_jobs' },
];

// The states spelled as module_reviews_state's partial index names them, so the count reads that index.
const reviewQueueSql = `SELECT state, count(*) AS n FROM module_reviews
  WHERE state IN (${queuedReviewStates.map((s) => `'${s}'`).join(', ')}) GROUP BY state`;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The rows of a launch table per status, through its (status, seq) index: each status found by one seek past the
 * previous one, its rows counted at most chunkRows index entries per statement, with a turn of the event loop between
 * two statements. Under concurrent writes a launch that changes status between two chunks may be counted in both
 * statuses or neither: a gauge's approximation, never a stored value.
 */
async function countByStatus(db: Db, table: string): Promise<Array<{ status: string; count: number }>> {
  const nextStatus = statement(db, `SELECT status FROM ${table} WHERE status > ? ORDER BY status LIMIT 1`);
  const chunk = statement(
    db,
    `SELECT count(*) AS n, max(seq) AS last FROM
       (SELECT seq FROM ${table} WHERE status = ? AND seq > ? ORDER BY seq LIMIT ${chunkRows})`,
  );
  const counts: Array<{ status: string; count: number }> = [];
  let row = nextStatus.get('') as { status: string } | undefined;
  while (row) {
    let count = 0;
    let after = 0;
    for (;;) {
      const { n, last } = chunk.get(row.status, after) as { n: number; last: number | null };
      count += n;
      if (n < chunkRows || last === null) break;
      after = last;
      await turn();
    }
    counts.push({ status: row.status, count });
    row = nextStatus.get(row.status) as { status: string } | undefined;
  }
  return counts;
}

/**
 * The imported V2 and V1 history by lane and status. Its rows are never changed after the import
 * (src/domain/history/import.ts), so each is read once: a later read counts only the rows added since. A file whose
 * rows went back (another file put in its place) is counted again from the start.
 */
class HistoryCounts {
  private last = 0;
  private counts = new Map<string, { lane: MetricLane; status: string; count: number }>();

  async read(db: Db): Promise<Array<{ lane: MetricLane; status: string; count: number }>> {
    const top = (statement(db, 'SELECT max(seq) AS top FROM history_launches').get() as { top: number | null }).top;
    if ((top ?? 0) < this.last) {
      this.last = 0;
      this.counts = new Map();
    }
    const chunk = statement(
      db,
      `SELECT lane, status, count(*) AS n, max(seq) AS last FROM
         (SELECT lane, status, seq FROM history_launches WHERE seq > ? ORDER BY seq LIMIT ${historyChunkRows})
         GROUP BY lane, status`,
    );
    for (;;) {
      const rows = chunk.all(this.last) as Array<{ lane: MetricLane; status: string; n: number; last: number }>;
      let read = 0;
      for (const { lane, status, n, last } of rows) {
        const key = `${lane} ${status}`;
        const entry = this.counts.get(key) ?? { lane, status, count: 0 };
        entry.count += n;
        this.counts.set(key, entry);
        read += n;
        this.last = Math.max(this.last, last);
      }
      if (read < historyChunkRows) break;
      await turn();
    }
    return [...this.counts.values()].map((entry) => ({ ...entry }));
  }
}

/**
 * The reader of the SQLite-derived gauges (src/observability/metrics.ts countStoreWith) over `db`: launches by lane and
 * status (the three lanes' tables and the imported history), the lifecycle queue of each lane (scheduled, running,
 * retry_wait) and the module review queue (awaiting_plan, queued, running). Reads only; the queue counts are index
 * seeks over the few jobs and reviews in those states.
 */
export function storeCountsReader(db: Db): () => Promise<StoreCounts> {
  const history = new HistoryCounts();
  return async () => {
    const launches: Array<StoreCounts['launches'][number]> = [];
    for (const { lane, table } of launchTables) {
      for (const { status, count } of await countByStatus(db, table)) launches.push({ lane, status, count });
    }
    launches.push(...(await history.read(db)));
    const lifecycleJobs = jobTables.flatMap(({ lane, table }) =>
      queuedJobStates.map((state) => ({
        lane,
        state,
        count: (statement(db, `SELECT count(*) AS n FROM ${table} WHERE state = ?`).get(state) as { n: number }).n,
      })),
    );
    const reviews = new Map(
      (statement(db, reviewQueueSql).all() as Array<{ state: string; n: number }>).map((r) => [r.state, r.n]),
    );
    const moduleReviews = queuedReviewStates.map((state) => ({ state, count: reviews.get(state) ?? 0 }));
    return { launches, lifecycleJobs, moduleReviews };
  };
}
