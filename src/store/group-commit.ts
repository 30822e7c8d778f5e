import { countSqliteBusy, observeCommitSeconds } from '../observability/metrics.ts';
import type { Db } from './db.ts';

/** One queued write: its work, and the promise that settles after the batch's commit. */
interface QueuedWrite {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A failure inside one write that took the whole transaction with it (SQLite rolls back on SQLITE_FULL, say). */
class TransactionLost extends Error {
  constructor(
    readonly index: number,
    readonly failure: unknown,
  ) {
    super('the group transaction was rolled back by a failing write');
  }
}

// A bound on one batch, so a burst never holds the event loop for one unbounded transaction.
const maxBatch = 256;

/**
 * Group commit of durable writes (createCustomLaunchV4, spec/openapi/paths/v4-custom-launches.yaml: a 202 only after
 * its commit is on disk). The writes queued during one event-loop turn run in one immediate transaction, each in its
 * own SAVEPOINT, and the transaction commits once with synchronous=FULL: one disk sync for the whole batch instead of
 * one per request. Each write's promise settles only after that COMMIT returned, so every answer is as durable as a
 * transaction of its own.
 *
 * A write that throws (a 409 conflict, a constraint error) rolls back to its own savepoint and rejects with its error;
 * the others commit. A failure that makes SQLite roll back the whole transaction rejects that write and runs every
 * other write of the batch again in the next transaction. A failing BEGIN or COMMIT (SQLITE_BUSY past the busy
 * timeout, SQLITE_FULL, an I/O error) rejects every write of the batch with that error: nothing of the batch is stored.
 *
 * Crash consistency: the batch is one SQLite transaction, so a crash before its COMMIT returned leaves none of its
 * writes in the file and none of them was answered (a client retries with the same Idempotency-Key); a crash after the
 * COMMIT leaves all of them, answered or not (a retry replays the stored answer). No write is ever answered from
 * a transaction that has not committed.
 */
export class GroupCommit {
  private queue: QueuedWrite[] = [];
  private scheduled = false;

  constructor(readonly db: Db) {}

  /** Queues `work` (synchronous, run inside the batch transaction); settles with its result after the commit. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After the poll phase: every request whose body arrived in this turn has queued its write by then.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const batch = this.queue.slice(0, maxBatch);
    this.queue = this.queue.slice(batch.length);
    if (this.queue.length > 0) this.schedule();
    if (batch.length === 0) return;
    const outcomes: Outcome[] = [];
    // better-sqlite3 runs COMMIT once the function returns: the time from there is the commit, disk sync included.
    let worked = 0n;
    try {
      this.db
        .transaction(() => {
          for (const write of batch) outcomes.push(this.attempt(write, outcomes.length));
          worked = process.hrtime.bigint();
        })
        .immediate();
      observeCommitSeconds(Number(process.hrtime.bigint() - worked) / 1e9);
    } catch (error) {
      if (isBusy(error)) countSqliteBusy('group_commit');
      if (error instanceof TransactionLost) {
        batch[error.index]?.reject(error.failure);
        this.queue = [...batch.filter((_, i) => i !== error.index), ...this.queue];
        this.schedule();
        return;
      }
      for (const write of batch) write.reject(error);
      return;
    }
    batch.forEach((write, i) => {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    });
  }

  /** One write in its own savepoint (better-sqlite3 nests a transaction as a SAVEPOINT). */
  private attempt(write: QueuedWrite, index: number): Outcome {
    try {
      return { ok: true, value: this.db.transaction(write.work)() };
    } catch (error) {
      if (!this.db.inTransaction) throw new TransactionLost(index, error);
      return { ok: false, error };
    }
  }
}

/** SQLITE_BUSY or one of its extended codes: BEGIN IMMEDIATE or COMMIT found the file locked past the busy timeout. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

const groups = new WeakMap<Db, GroupCommit>();

/** The one group commit of a database handle, so every grouped write of the process shares its batches. */
export function groupCommitOf(db: Db): GroupCommit {
  let group = groups.get(db);
  if (!group) {
    group = new GroupCommit(db);
    groups.set(db, group);
  }
  return group;
}
