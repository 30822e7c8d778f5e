/*
 * A named process lease in the SQLite file (process_leases, migration 17): the one process on the file that holds it
 * runs the background work (docs/configuration.md WORKERS). It is taken or renewed every third of a lease in an
 * immediate transaction; a holder that cannot renew stops its work before the lease can lapse; another process takes
 * it once it has expired, or at once when its owner was a process of this host that no longer exists (a kill -9).
 */
import { hostname } from 'node:os';
import { type Db, immediateIfFree } from '../store/db.ts';
import { statement } from '../store/statements.ts';

/** Whether `owner` (`host:pid:…`, the server's worker id) names a process of this host that no longer exists. */
function ownerIsGone(owner: string): boolean {
  const [host, pidText] = owner.split(':');
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // EPERM: a process of another user has that pid, so it is not known to be gone.
    return (err as { code?: unknown }).code === 'ESRCH';
  }
}

/** The lease's current row, or undefined when nobody holds it. */
export function leaseRow(db: Db, name: string): { owner: string; expires_ms: number } | undefined {
  return statement(db, 'SELECT owner, expires_ms FROM process_leases WHERE name = ?').get(name) as
    | { owner: string; expires_ms: number }
    | undefined;
}

/**
 * Takes or renews the lease `name` for `owner` until `nowMs + leaseMs` when it is free, expired, already `owner`'s,
 * or held by a process of this host that is gone. Answers the expiry it wrote, or, when another live owner holds it,
 * that owner's expiry as a negative number; undefined when the write lock was busy (try again soon).
 */
export function takeLease(db: Db, name: string, owner: string, leaseMs: number, nowMs: number): number | undefined {
  return immediateIfFree(db, () => {
    const row = leaseRow(db, name);
    if (row && row.owner !== owner && row.expires_ms > nowMs && !ownerIsGone(row.owner)) return -row.expires_ms;
    statement(
      db,
      `INSERT INTO process_leases (name, owner, expires_ms) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_ms = excluded.expires_ms`,
    ).run(name, owner, nowMs + leaseMs);
    return nowMs + leaseMs;
  });
}

/** Gives the lease up when `owner` holds it, so another process takes it at its next try instead of after expiry. */
export function releaseLease(db: Db, name: string, owner: string): void {
  statement(db, 'DELETE FROM process_leases WHERE name = ? AND owner = ?').run(name, owner);
}

/** Whether some process holds the lease `name` now (the review capabilities' workerRunning reads it). */
export function leaseHeld(db: Db, name: string, nowMs: number): boolean {
  const row = leaseRow(db, name);
  return row !== undefined && row.expires_ms > nowMs;
}

export interface LeaseHolder {
  /** Whether this process holds the lease and runs the work. */
  holding(): boolean;
  /** Stops trying, stops the work (resolves once it has stopped) and releases the lease. */
  stop(): Promise<void>;
}

/**
 * Keeps trying to hold the lease `name` for `owner`: runs `start` when it is taken and the stop `start` returned when
 * it is lost or the holder stops. A failed renewal keeps the work only while the lease still has more than one renew
 * interval left; a process that is not the holder tries again every third of a lease, and at the holder's expiry.
 */
export function holdLease(options: {
  db: Db;
  name: string;
  owner: string;
  leaseMs: number;
  start: () => () => Promise<void>;
  now?: () => number;
  onChange?: (holding: boolean) => void;
}): LeaseHolder {
  const { db, name, owner, leaseMs, start } = options;
  const now = options.now ?? Date.now;
  const every = Math.max(1, Math.floor(leaseMs / 3));
  let expiresMs = 0;
  let stopWork: (() => Promise<void>) | undefined;
  let stopping: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const lose = () => {
    const stop = stopWork;
    stopWork = undefined;
    if (!stop) return;
    options.onChange?.(false);
    stopping = stopping.then(stop);
  };
  const tick = () => {
    if (stopped) return;
    const t = now();
    let taken: number | undefined;
    try {
      taken = takeLease(db, name, owner, leaseMs, t);
    } catch {
      taken = undefined;
    }
    let wait = every;
    if (taken !== undefined && taken > 0) {
      expiresMs = taken;
      if (!stopWork) {
        // A previous run's stop finishes first: the work never runs twice in this process.
        void stopping.then(() => {
          if (stopped || stopWork || expiresMs <= now()) return;
          stopWork = start();
          options.onChange?.(true);
        });
      }
    } else if (taken !== undefined) {
      lose();
      wait = Math.min(every, Math.max(1, -taken - t + 1));
    } else if (t + every >= expiresMs) {
      lose();
    }
    timer = setTimeout(tick, wait);
    timer.unref();
  };
  tick();
  return {
    holding: () => stopWork !== undefined,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      lose();
      await stopping;
      try {
        releaseLease(db, name, owner);
      } catch {
        // A database that refuses the release leaves the lease to expire.
      }
    },
  };
}
