import type { components } from '../../../generated/types/service.ts';
import type { Db } from '../../store/db.ts';
import type { FindingCode } from '../launches/finding-codes.ts';

/** The readiness document, generated from spec/schemas/readiness.v1.schema.json. */
export type ReadinessV1 = components['schemas']['ReadinessV1'];

const databaseUnavailable: FindingCode = 'DATABASE_UNAVAILABLE';

/** getReadiness: ready when the database answers and has every migration. Spec: launch-transport.md (/readyz). */
export function readiness(db: Db, expectedMigration: number, nowMs: number): ReadinessV1 {
  let ok = false;
  try {
    const row = db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null };
    ok = row.v === expectedMigration;
  } catch {
    ok = false;
  }
  return {
    schemaVersion: 'platform.readiness.v1',
    status: ok ? 'ready' : 'not_ready',
    checkedAt: new Date(nowMs).toISOString(),
    checks: [{ name: 'database', ok, reason: ok ? null : databaseUnavailable }],
  };
}
