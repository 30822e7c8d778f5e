import type Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAdmissionQuota, recordAdmission } from '../../src/domain/launches/admission-quota.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { migrate, openDatabase } from '../../src/store/db.ts';
import { databaseBefore } from '../support/migrations.ts';

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

/** The quota's answer as the rule states it, counting every recorded admission of each window. */
function reference(db: Database.Database, nowMs: number, limits: { perHour: number; perDay: number }) {
  for (const [span, limit] of [
    [hourMs, limits.perHour],
    [dayMs, limits.perDay],
  ] as const) {
    const times = (
      db.prepare('SELECT admitted_ms FROM admissions ORDER BY admitted_ms').pluck().all() as number[]
    ).filter((t) => t > nowMs - span);
    if (times.length < limit) continue;
    const oldest = times[times.length - limit] as number;
    return { refused: true, retryAfterSeconds: Math.max(1, Math.ceil((oldest + span - nowMs) / 1000)) };
  }
  return { refused: false };
}

function answer(db: Database.Database, nowMs: number, limits: { perHour: number; perDay: number }) {
  try {
    checkAdmissionQuota(db, nowMs, limits);
    return { refused: false };
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'ADMISSION_QUOTA_EXHAUSTED') throw err;
    return { refused: true, retryAfterSeconds: err.retryAfterSeconds };
  }
}

// src/domain/launches/admission-quota.ts counts a window by seq instead of by its rows: the same answer, and the same
// Retry-After, as counting every admission of the window, for any admissions (a clock set back included).
describe('the admission quota counted by seq', () => {
  it('answers as counting every admission of both windows does, on both sides of each limit', () => {
    const start = Date.parse('2026-11-01T00:00:00.000Z');
    const db = openDatabase(':memory:');
    fc.assert(
      fc.property(
        // Gaps between admissions, in ms: negative ones are a clock set back.
        fc.array(fc.integer({ min: -600_000, max: 4 * hourMs }), { maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 2 * dayMs }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 60 }),
        (gaps, probes, perHour, perDay) => {
          // Each run on the same file, rolled back after it: a fresh, empty admissions table every run.
          db.exec('BEGIN');
          try {
            let clock = start;
            gaps.forEach((gap, i) => {
              clock += gap;
              recordAdmission(db, clock, `launch-${i}`);
            });
            for (const after of probes) {
              const nowMs = clock + after;
              expect(answer(db, nowMs, { perHour, perDay })).toEqual(reference(db, nowMs, { perHour, perDay }));
            }
          } finally {
            db.exec('ROLLBACK');
          }
        },
      ),
      { numRuns: 300 },
    );
    db.close();
  });

  it('records an admission no earlier than the one before it', () => {
    const db = openDatabase(':memory:');
    recordAdmission(db, 5_000, 'a');
    recordAdmission(db, 4_000, 'b');
    recordAdmission(db, 6_000, 'c');
    expect(db.prepare('SELECT admitted_ms FROM admissions ORDER BY seq').pluck().all()).toEqual([5_000, 5_000, 6_000]);
    db.close();
  });

  it('gives an older file admissions whose times never decrease along seq', () => {
    const db = databaseBefore('admission times that never decrease');
    const insert = db.prepare('INSERT INTO admissions (admitted_ms, launch_id) VALUES (?, ?)');
    for (const [i, t] of [1_000, 3_000, 2_000, 2_500, 4_000].entries()) insert.run(t, `launch-${i}`);
    migrate(db);
    expect(db.prepare('SELECT admitted_ms FROM admissions ORDER BY seq').pluck().all()).toEqual([
      1_000, 3_000, 3_000, 3_000, 4_000,
    ]);
    db.close();
  });
});
