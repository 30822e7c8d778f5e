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
 */
export function checkAdmissionQuota(db: Db, nowMs: number, limits: { perHour: number; perDay: number }): void {
  const windows = [
    { span: hourMs, limit: limits.perHour, name: 'hour' },
    { span: dayMs, limit: limits.perDay, name: 'day' },
  ];
  for (const w of windows) {
    const since = nowMs - w.span;
    const { n } = statement(db, 'SELECT count(*) AS n FROM admissions WHERE admitted_ms > ?').get(since) as {
      n: number;
    };
    if (n < w.limit) continue;
    const oldest = statement(
      db,
      'SELECT admitted_ms FROM admissions WHERE admitted_ms > ? ORDER BY admitted_ms LIMIT 1 OFFSET ?',
    ).get(since, n - w.limit) as { admitted_ms: number } | undefined;
    const waitMs = oldest ? oldest.admitted_ms + w.span - nowMs : w.span;
    throw new ApiError('ADMISSION_QUOTA_EXHAUSTED', {
      message: `The service admits at most ${w.limit} new launch requests per ${w.name}; retry the same bytes after Retry-After.`,
      retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
    });
  }
}

/** Counts one admission. Call in the transaction that persists the new launch. */
export function recordAdmission(db: Db, nowMs: number, launchId: string): void {
  statement(db, 'INSERT INTO admissions (admitted_ms, launch_id) VALUES (?, ?)').run(nowMs, launchId);
}
