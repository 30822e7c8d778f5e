import { ApiError } from '../../errors/api-error.ts';
import type { Db } from '../../store/db.ts';
import { statement } from '../../store/statements.ts';

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

/**
 * Service-wide new-request admission: at most `perHour` in any rolling hour and `perDay` in any rolling day.
 * Exact replays never reach this. Throws 429 ADMISSION_QUOTA_EXHAUSTED with the seconds until the oldest admission
 * in the full window leaves it. Spec: createCustomLaunchV4 (spec/openapi/paths/v4-custom-launches.yaml); the quota
 * is published in spec/schemas/custom-launch-capabilities.v2.schema.json (limits.admission).
 *
 * A window is counted in a few index lookups, whatever it holds (counting its rows was one step per admission in the
 * window, each create: 16 ms at a million a day): `admissions` is append-only, its `seq` has no gaps and its times
 * never decrease along `seq` (recordAdmission), so the admissions after `since` are the `seq`s after the last one at
 * or before it.
 */
export function checkAdmissionQuota(db: Db, nowMs: number, limits: { perHour: number; perDay: number }): void {
  const windows = [
    { span: hourMs, limit: limits.perHour, name: 'hour' },
    { span: dayMs, limit: limits.perDay, name: 'day' },
  ];
  const last = statement(db, 'SELECT max(seq) FROM admissions').pluck().get() as number | null;
  if (last === null) return;
  for (const w of windows) {
    const since = nowMs - w.span;
    const first = firstSeqAfter(db, since);
    const n = first === null ? 0 : last - first + 1;
    if (n < w.limit) continue;
    // The admission whose leaving the window frees one place: the (n - limit + 1)th of the window, oldest first.
    const oldest = statement(db, 'SELECT admitted_ms FROM admissions WHERE seq = ?')
      .pluck()
      .get((first as number) + n - w.limit) as number | undefined;
    const waitMs = oldest === undefined ? w.span : oldest + w.span - nowMs;
    throw new ApiError('ADMISSION_QUOTA_EXHAUSTED', {
      message: `The service admits at most ${w.limit} new launch requests per ${w.name}; retry the same bytes after Retry-After.`,
      retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
    });
  }
}

/** The first `seq` admitted after `sinceMs`, or null when none was. */
function firstSeqAfter(db: Db, sinceMs: number): number | null {
  const before = statement(
    db,
    'SELECT seq FROM admissions WHERE admitted_ms <= ? ORDER BY admitted_ms DESC, seq DESC LIMIT 1',
  )
    .pluck()
    .get(sinceMs) as number | undefined;
  if (before !== undefined) {
    const next = statement(db, 'SELECT seq FROM admissions WHERE seq > ? ORDER BY seq LIMIT 1').pluck().get(before) as
      | number
      | undefined;
    return next ?? null;
  }
  return statement(db, 'SELECT min(seq) FROM admissions').pluck().get() as number | null;
}

/**
 * Counts one admission. Call in the transaction that persists the new launch. Its time is never before the last
 * admission's (a clock set back keeps the later time), so times never decrease along `seq`: an admission the clock
 * would date earlier stays in the window a little longer, never shorter.
 */
export function recordAdmission(db: Db, nowMs: number, launchId: string): void {
  statement(
    db,
    `INSERT INTO admissions (admitted_ms, launch_id)
       VALUES (max(?, coalesce((SELECT admitted_ms FROM admissions WHERE seq = (SELECT max(seq) FROM admissions)), 0)), ?)`,
  ).run(nowMs, launchId);
}
