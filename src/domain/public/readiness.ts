import type { ReadinessV1 } from '../../../generated/types/service.ts';
import type { Db } from '../../store/db.ts';
import type { FindingCode } from '../launches/finding-codes.ts';
import { type EvidenceStateKind, evidenceCheck } from './deployment-evidence-check.ts';

/** The readiness document, generated from spec/schemas/readiness.v1.schema.json. */

const databaseUnavailable: FindingCode = 'DATABASE_UNAVAILABLE';

/**
 * getReadiness: ready when the database answers and has every migration and, on a server bound to a chain
 * deployment, its evidence is verified (a tampered document is named). Spec: spec/openapi/paths/readyz.yaml.
 */
export function readiness(
  db: Db,
  expectedMigration: number,
  nowMs: number,
  evidence?: EvidenceStateKind | null,
): ReadinessV1 {
  let ok = false;
  try {
    const row = db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null };
    ok = row.v === expectedMigration;
  } catch {
    ok = false;
  }
  return {
    schemaVersion: 'platform.readiness.v1',
    status: ok && (!evidence || evidenceCheck(evidence).ok) ? 'ready' : 'not_ready',
    checkedAt: new Date(nowMs).toISOString(),
    checks: [
      { name: 'database', ok, reason: ok ? null : databaseUnavailable },
      // Only a server bound to a chain deployment has evidence to verify.
      ...(evidence ? [{ name: 'deployment_evidence', ...evidenceCheck(evidence) }] : []),
    ],
  };
}
