import type { Principal } from '../auth/keys.ts';
import { primaryWindows } from '../cluster/route-windows.ts';
import { ApiError } from '../errors/api-error.ts';
import { type Db, unsyncedImmediate } from '../store/db.ts';
import { statement } from '../store/statements.ts';

/** The whole seconds left (at least 1) in a window that started at `startMs`: the Retry-After header's value. */
function secondsLeft(startMs: number, lengthMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((startMs + lengthMs - nowMs) / 1000));
}

/** 429 RATE_LIMITED for a window that started at `startMs`, with the seconds left in it (the Retry-After header). */
function overBudget(startMs: number, lengthMs: number, nowMs: number, message?: string): ApiError {
  return new ApiError('RATE_LIMITED', {
    retryAfterSeconds: secondsLeft(startMs, lengthMs, nowMs),
    ...(message ? { message } : {}),
  });
}

/**
 * Fixed-window request counters, one per key, each with its own window length, in this process's memory (a plain
 * server process's route budgets, and a cluster primary's for all its workers); a restart opening fresh windows costs
 * at most one window's budget.
 */
export class FixedWindows {
  private windows = new Map<string, { start: number; length: number; count: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Counts one request against `limit` per `windowMs`; over it, throws 429 RATE_LIMITED with the seconds left in the
   * window (the Retry-After header) and `message`.
   */
  take(key: string, limit: number, windowMs: number, message?: string): void {
    const retryAfterSeconds = this.count(key, limit, windowMs);
    if (retryAfterSeconds > 0)
      throw new ApiError('RATE_LIMITED', { retryAfterSeconds, ...(message ? { message } : {}) });
  }

  /** Counts one request against `limit` per `windowMs`: 0 when counted, else the seconds left in the full window. */
  count(key: string, limit: number, windowMs: number): number {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= w.length) {
      if (this.windows.size > 100_000) this.sweep(now);
      w = { start: now, length: windowMs, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count >= limit) return secondsLeft(w.start, w.length, now);
    w.count++;
    return 0;
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (now - w.start >= w.length) this.windows.delete(k);
  }
}

const sweepEveryMs = 3_600_000;

/**
 * Fixed-window request counters in the SQLite file (partner_budget_windows), so every server process on the file
 * counts against the same window. One UPSERT per request, in its own immediate transaction (not synced to disk: a
 * power loss may forget a few counts, never a launch), opens a window, counts into it, or leaves a full window
 * unchanged (no row returned: over budget). A database locked past the busy timeout
 * surfaces as the store's retryable 503 (storageRefusal). A full disk cannot take the count: the request goes through
 * uncounted, so reads keep answering while writes are refused, still bounded by the per-process route budget.
 */
class StoredWindows {
  private sweptAt = 0;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request against `limit` per `windowMs`; over it, throws 429 RATE_LIMITED as FixedWindows does. */
  take(key: string, limit: number, windowMs: number, message?: string): void {
    const now = this.now();
    let counted: boolean;
    try {
      counted = unsyncedImmediate(this.db, () => this.count(key, limit, windowMs, now));
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code === 'SQLITE_FULL') return;
      throw err;
    }
    if (counted) return;
    const w = statement(this.db, 'SELECT start_ms, length_ms FROM partner_budget_windows WHERE budget_key = ?').get(
      key,
    ) as { start_ms: number; length_ms: number } | undefined;
    throw overBudget(w?.start_ms ?? now, w?.length_ms ?? windowMs, now, message);
  }

  private count(key: string, limit: number, windowMs: number, now: number): boolean {
    if (now - this.sweptAt >= sweepEveryMs) {
      statement(this.db, 'DELETE FROM partner_budget_windows WHERE start_ms + length_ms <= ?').run(now);
      this.sweptAt = now;
    }
    if (limit < 1) return false;
    const row = statement(
      this.db,
      `INSERT INTO partner_budget_windows (budget_key, start_ms, length_ms, count) VALUES (?, ?, ?, 1)
         ON CONFLICT (budget_key) DO UPDATE SET
           count = CASE WHEN excluded.start_ms - start_ms >= length_ms THEN 1 ELSE count + 1 END,
           start_ms = CASE WHEN excluded.start_ms - start_ms >= length_ms THEN excluded.start_ms ELSE start_ms END,
           length_ms = excluded.length_ms
         WHERE excluded.start_ms - start_ms >= length_ms OR count < ?
         RETURNING count`,
    ).get(key, now, windowMs, limit);
    return row !== undefined;
  }
}

/**
 * Per-route request budgets: a fixed one-minute window per (operation, caller). The caller is the credential for
 * authenticated routes and the client address for public ones. The number is configuration
 * (ROUTE_BUDGET_PER_MINUTE). Exact per server: a plain process counts in its memory (FixedWindows); the workers of a
 * cluster (WORKERS > 1) count in their primary's memory over IPC (src/cluster/route-windows.ts), so the cluster
 * admits exactly the number, on the primary's clock. Separately started server processes on one file each count
 * their own (responses.yaml TooManyRequests says so).
 */
export class RouteBudgets {
  private readonly windows: FixedWindows;
  private readonly primary = primaryWindows();

  constructor(
    private readonly perMinute: number,
    now: () => number = Date.now,
  ) {
    this.windows = new FixedWindows(now);
  }

  /**
   * Counts one request; throws (or, in a cluster worker, rejects with) 429 RATE_LIMITED with the seconds left in the
   * window when over budget. Callers await it: it settles at once outside a cluster.
   */
  take(operationId: string, caller: string): undefined | Promise<void> {
    const key = `${operationId}\u0000${caller}`;
    if (!this.primary) {
      this.windows.take(key, this.perMinute, 60_000);
      return undefined;
    }
    return this.primary.take(key, this.perMinute, 60_000).then((retryAfterSeconds) => {
      if (retryAfterSeconds > 0) throw new ApiError('RATE_LIMITED', { retryAfterSeconds });
    });
  }
}

type PartnerBudget = 'prepareRequestsPerHour' | 'readRequestsPerMinute' | 'subkeyAdminRequestsPerHour';

/**
 * Which partner budget an operation spends (spec/schemas/partner-subkey.v1.schema.json budgets; the preflight and
 * create operations of spec/openapi/paths/v4-custom-launches*.yaml count against prepareRequestsPerHour). Preflight and create
 * spend the prepare budget, list and detail reads the read budget, every subkey-admin operation the root's admin
 * budget. Project design: delivering a source file spends neither (it is neither a preflight, a create nor a read).
 */
const budgetOfOperation: Record<string, PartnerBudget> = {
  preflightCustomLaunchV4: 'prepareRequestsPerHour',
  createCustomLaunchV4: 'prepareRequestsPerHour',
  preflightCustomLaunchV3: 'prepareRequestsPerHour',
  createCustomLaunchV3: 'prepareRequestsPerHour',
  submitFundingAuthorizationV3: 'prepareRequestsPerHour',
  cancelCustomLaunchV3: 'prepareRequestsPerHour',
  preflightMultiRoleCustomLaunch: 'prepareRequestsPerHour',
  createMultiRoleCustomLaunch: 'prepareRequestsPerHour',
  getCustomLaunchV4: 'readRequestsPerMinute',
  listCustomLaunchesV4: 'readRequestsPerMinute',
  getCustomLaunchV3: 'readRequestsPerMinute',
  listCustomLaunchesV3: 'readRequestsPerMinute',
  getMultiRoleCustomLaunch: 'readRequestsPerMinute',
  listMultiRoleCustomLaunches: 'readRequestsPerMinute',
  listPartnerSubkeys: 'subkeyAdminRequestsPerHour',
  issuePartnerSubkey: 'subkeyAdminRequestsPerHour',
  rotatePartnerSubkey: 'subkeyAdminRequestsPerHour',
  revokePartnerSubkey: 'subkeyAdminRequestsPerHour',
};

const windowOf: Record<PartnerBudget, number> = {
  prepareRequestsPerHour: 3_600_000,
  readRequestsPerMinute: 60_000,
  subkeyAdminRequestsPerHour: 3_600_000,
};

/**
 * The budgets of partner credentials. The prepare and read budgets are counted per lineage, so a rotation neither
 * resets nor doubles them (the replacement's own limits apply from its first request); the admin budget per root.
 * A wallet key has no partner budget. Counted in the SQLite file (StoredWindows), exact across every server process
 * on it.
 */
export class PartnerBudgets {
  private readonly windows: StoredWindows;

  constructor(db: Db, now: () => number = Date.now) {
    this.windows = new StoredWindows(db, now);
  }

  /** Counts one request of `operationId` by `principal`; 429 RATE_LIMITED with Retry-After when over budget. */
  take(operationId: string, principal: Principal): void {
    const budget = budgetOfOperation[operationId];
    const limit = budget && principal.budgets?.[budget];
    if (!budget || limit === undefined || limit === null) return;
    const owner = budget === 'subkeyAdminRequestsPerHour' ? principal.keyId : principal.lineageId;
    this.windows.take(
      `${budget}\u0000${owner}`,
      limit,
      windowOf[budget],
      `The partner credential's ${budget} budget (${limit}) is used up; retry the same bytes after Retry-After.`,
    );
  }
}
