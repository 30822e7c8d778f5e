import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModuleReviewCapabilities } from '../../../generated/types/service.ts';
import type { Db } from '../../store/db.ts';
import { migrations } from '../../store/migrations.ts';
import { statement } from '../../store/statements.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The commit of the source this worker runs, read from the repository's .git (HEAD, then the ref it names, loose or
 * packed); null when the process does not run from a Git checkout.
 */
export function workerSourceCommit(dir = root): string | null {
  try {
    const git = join(dir, '.git');
    const head = readFileSync(join(git, 'HEAD'), 'utf8').trim();
    const ref = /^ref: (.+)$/.exec(head)?.[1];
    if (!ref) return /^[0-9a-f]{40}$/.test(head) ? head : null;
    const loose = join(git, ref);
    if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
    const packed = readFileSync(join(git, 'packed-refs'), 'utf8')
      .split('\n')
      .find((l) => l.endsWith(` ${ref}`));
    return packed?.split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

/** The database answers and carries every migration this code knows. */
function databaseReady(db: Db): boolean {
  try {
    const row = statement(db, 'SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null };
    return row.v === (migrations.at(-1)?.version ?? 0);
  } catch {
    return false;
  }
}

/**
 * getModuleReviewCapabilities (public, spec/openapi/paths/modules-review-capabilities.yaml): review is available only
 * when the database, the reviewer policy and the worker authority are all ready. The status read needs only the
 * database. approved and available stay false.
 */
export function reviewCapabilities(
  db: Db,
  input: { reviewerPolicyDigest: string | null; workerRunning: boolean; sourceCommit: string | null },
): ModuleReviewCapabilities {
  const database = databaseReady(db);
  const workerAuthorityReady = input.workerRunning && input.sourceCommit !== null;
  return {
    schemaVersion: 'platform.modules.review-capabilities.v1',
    reviewAvailable: database && input.reviewerPolicyDigest !== null && workerAuthorityReady,
    statusReadAvailable: database,
    reviewerPolicyDigest: input.reviewerPolicyDigest,
    workerSourceCommit: input.sourceCommit,
    workerAuthorityReady,
    databaseReady: database,
    approved: false,
    available: false,
  };
}
