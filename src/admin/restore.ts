/*
 * `npm run admin -- restore <backupFile>`: puts a verified backup in the place of DATABASE_PATH, never under a server
 * that holds that file, and never beside a `-wal` or `-shm` of the file it replaces.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Db } from '../store/db.ts';
import { migrations } from '../store/migrations.ts';
import { BackupError, removeWithSideFiles, sideFiles, syncToDisk, temporaryBeside } from './backup.ts';
import { checkCopy, type DatabaseFacts } from './backup-check.ts';

/** What `restore` prints once the backup is in place. */
export interface RestoreSummary extends DatabaseFacts {
  restored: string;
  from: string;
  bytes: number;
  milliseconds: number;
  integrityCheck: 'ok';
  foreignKeyViolations: 0;
  buildMigrationVersion: number;
  /** Side files of the replaced file that no process held any more, removed before the backup took its name. */
  removedSideFiles: string[];
  note?: string;
}

/** A row of process_leases (src/cluster/lease.ts). */
interface LeaseRow {
  name: string;
  owner: string;
  expires_ms: number;
}

/** The lease row of a server on another host that has not expired, if any. */
function foreignLease(db: Db, nowMs: number): LeaseRow | undefined {
  const hasTable = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'process_leases'").get();
  if (!hasTable) return undefined;
  const rows = db.prepare('SELECT name, owner, expires_ms FROM process_leases WHERE expires_ms > ?').all(nowMs);
  // A server's lease owner is `host:pid:uuid` (src/server/serve.ts).
  return (rows as LeaseRow[]).find((row) => row.owner.split(':')[0] !== hostname());
}

const stopFirst = 'Stop every server on it (npm start, with all its WORKERS) and run restore again.';

/**
 * Refuses when a server may hold the SQLite file at `path`; otherwise folds its WAL into it before letting go, so the
 * file stands complete on its own until the backup replaces it.
 *
 * How "live" is told: a connection to a WAL-mode file holds a shared lock on the file from its first read until it
 * closes (that is how SQLite's last closer knows it may checkpoint and delete the `-wal`). Every server process reads
 * the file as soon as it opens it (openDatabase sets the journal mode), and its developer API keeps a read-only
 * connection too, so while any of them runs nobody gets the file's exclusive lock. The probe asks for it, without
 * waiting (locking_mode=EXCLUSIVE, busy_timeout=0): SQLITE_BUSY means live. On this host that answer is exact, with
 * none of the lease's blind spots: only one of several processes holds the background lease, a stopping server
 * deletes it, and a process killed with SIGKILL leaves it unexpired for up to LIFECYCLE_LEASE_MS. So a lease row is
 * trusted only from another host, where file locks may not reach (a network file system): an unexpired one refuses.
 * A `-wal` or `-shm` beside the file says nothing either way (a killed server leaves both, a read-only connection
 * that closed last leaves them), so their presence is never read as live; once the lock is free they are stale.
 */
function ensureNotLive(path: string, nowMs: number): void {
  let probe: Db;
  try {
    probe = new Database(path, { fileMustExist: true });
  } catch (err) {
    throw new BackupError(`cannot open ${path} to check that no server holds it (${(err as Error).message})`);
  }
  try {
    probe.pragma('busy_timeout = 0');
    probe.pragma('locking_mode = EXCLUSIVE');
    try {
      probe.exec('BEGIN EXCLUSIVE; COMMIT');
    } catch (err) {
      const code = String((err as { code?: unknown }).code ?? '');
      if (code.startsWith('SQLITE_BUSY'))
        throw new BackupError(`${path} is live: a running server holds it. ${stopFirst}`);
      throw new BackupError(
        `cannot check that no server holds ${path} (${(err as Error).message}): stop every server on it, move it ` +
          'aside together with its -wal and -shm files, and run restore again',
      );
    }
    const lease = foreignLease(probe, nowMs);
    if (lease) {
      throw new BackupError(
        `${path} may be live: ${lease.owner} (another host) holds its "${lease.name}" lease until ` +
          `${new Date(lease.expires_ms).toISOString()}. ${stopFirst}`,
      );
    }
    probe.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    // The last connection, in exclusive mode: closing deletes the (now empty) -wal; a stale -shm stays for the caller.
    probe.close();
  }
}

/**
 * Puts the checked copy `temp` in the place of `target`: the live check once more, then every side file of the old
 * file removed (SQLite applies a `-wal` to whatever file has its name), then one rename. A crash at any point leaves
 * the old file whole (its WAL folded in) or the restored one.
 */
function replaceTarget(temp: string, target: string): string[] {
  if (existsSync(target)) ensureNotLive(target, Date.now());
  const removed = sideFiles(target).filter((f) => existsSync(f));
  for (const file of removed) rmSync(file, { force: true });
  renameSync(temp, target);
  syncToDisk(dirname(target));
  return removed;
}

/** The checks a backup must pass before it replaces anything: the copy's own, and a migration this build knows. */
function restoreProblems(check: ReturnType<typeof checkCopy>, buildVersion: number): string[] {
  if (check.problems.length > 0) return check.problems;
  if (check.migrationVersion === 0) return ['no schema_migrations: not a custom-launch-api database'];
  if (check.migrationVersion > buildVersion) {
    return [
      `the backup is at migration ${check.migrationVersion}, newer than this build's ${buildVersion}: restore it with ` +
        'the release that made it, or a newer one',
    ];
  }
  return [];
}

/**
 * Restores the backup at `backupArg` into `targetPath` (DATABASE_PATH): copies it into a temporary file beside the
 * target (mode 0600), checks that copy (integrity_check ok, no foreign_key_check row, a migration version no newer
 * than this build's), refuses a target a server holds, and renames the copy into place. Throws BackupError.
 */
export function restoreDatabase(backupArg: string, targetPath: string): RestoreSummary {
  const started = performance.now();
  if (targetPath === ':memory:') throw new BackupError('DATABASE_PATH is :memory:: there is no file to restore into');
  const backup = resolve(backupArg);
  const target = resolve(targetPath);
  if (!existsSync(backup)) throw new BackupError(`no backup at ${backup}`);
  if (backup === target) throw new BackupError(`${backup} is DATABASE_PATH itself`);
  if (existsSync(`${backup}-wal`) && statSync(`${backup}-wal`).size > 0) {
    throw new BackupError(`${backup}-wal is not empty: something wrote to the backup, which the file alone lacks`);
  }
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  // Before a long copy, so a live target is refused at once; replaceTarget checks again right before the rename.
  if (existsSync(target)) ensureNotLive(target, Date.now());
  const buildVersion = migrations.at(-1)?.version ?? 0;
  const temp = temporaryBeside(target, 'restore');
  try {
    copyFileSync(backup, temp);
    chmodSync(temp, 0o600);
    const check = checkCopy(temp);
    const problems = restoreProblems(check, buildVersion);
    if (problems.length > 0) {
      throw new BackupError(`${backup} failed its checks, nothing restored:\n  ${problems.join('\n  ')}`);
    }
    syncToDisk(temp);
    const removedSideFiles = replaceTarget(temp, target);
    return {
      restored: target,
      from: backup,
      bytes: statSync(target).size,
      milliseconds: Math.round(performance.now() - started),
      integrityCheck: 'ok',
      foreignKeyViolations: 0,
      migrationVersion: check.migrationVersion,
      tables: check.tables,
      buildMigrationVersion: buildVersion,
      removedSideFiles,
      ...(check.migrationVersion < buildVersion
        ? {
            note: `the backup is at migration ${check.migrationVersion}, this build at ${buildVersion}: the server applies the newer migrations when it starts`,
          }
        : {}),
    };
  } finally {
    removeWithSideFiles(temp);
  }
}
