/*
 * `npm run admin -- backup <file>`: one consistent copy of the live SQLite file, made with SQLite's online backup API
 * while servers keep writing to it, verified, then put in place under a name nobody else had.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, linkSync, openSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { type Db, openReadOnlyDatabase } from '../store/db.ts';
import { checkCopy, countDifferences, type DatabaseFacts, databaseFacts } from './backup-check.ts';

/** A refusal or failed check of `backup` or `restore`: its message says what happened and what to do. */
export class BackupError extends Error {}

/** How far a copy is: SQLite's page counts after the latest step. */
export interface CopyProgress {
  totalPages: number;
  remainingPages: number;
}

/** What `backup` prints once the copy is in place. */
export interface BackupSummary extends DatabaseFacts {
  backup: string;
  source: string;
  bytes: number;
  milliseconds: number;
  integrityCheck: 'ok';
  foreignKeyViolations: 0;
}

/** Pages copied per step (1 MiB at SQLite's default 4 KiB page): the copy yields to the event loop between steps. */
const defaultStepPages = 256;

/** A file's `-wal`, `-shm` and `-journal` companions, which SQLite finds by name beside it. */
export const sideFiles = (path: string): string[] => [`${path}-wal`, `${path}-shm`, `${path}-journal`];

/** Removes a file and the side files SQLite may have made beside it. */
export function removeWithSideFiles(path: string): void {
  for (const file of [path, ...sideFiles(path)]) rmSync(file, { force: true });
}

/** A new empty file beside `target`, readable and writable by its owner alone, for a copy to grow in. */
export function temporaryBeside(target: string, purpose: string): string {
  const temp = join(
    dirname(target),
    `.${basename(target)}.${purpose}-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  closeSync(openSync(temp, 'wx', 0o600));
  return temp;
}

/** Forces a file's (or a folder's entries') bytes to disk. */
export function syncToDisk(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Copies the source into `temp` and answers its facts at exactly the snapshot copied. The counts and every page are
 * read inside one read transaction of the source connection: in WAL mode that transaction pins one snapshot, and
 * each backup step reads through it, so a commit by another connection mid-copy neither restarts the copy (SQLite
 * restarts a backup when its source connection begins a new read and sees a change) nor reaches the copy.
 */
async function copySnapshot(
  source: Db,
  temp: string,
  stepPages: number,
  onProgress?: (progress: CopyProgress) => void,
): Promise<DatabaseFacts> {
  source.exec('BEGIN');
  try {
    const facts = databaseFacts(source);
    await source.backup(temp, {
      progress: (progress) => {
        onProgress?.(progress);
        return stepPages;
      },
    });
    return facts;
  } finally {
    source.exec('COMMIT');
  }
}

/** Refuses a target that exists, or that has SQLite side files a later open of it would replay. */
function checkBackupTarget(target: string): void {
  if (existsSync(target)) throw new BackupError(`${target} already exists: backup never overwrites a file`);
  const stale = sideFiles(target).filter((f) => existsSync(f));
  if (stale.length > 0) {
    throw new BackupError(`${stale.join(', ')} exist(s) beside ${target}: SQLite would apply them to the copy`);
  }
  if (!existsSync(dirname(target))) throw new BackupError(`the folder ${dirname(target)} does not exist`);
}

/**
 * Backs up the SQLite file at `sourcePath` (DATABASE_PATH) into `targetArg`, which must not exist: copies one
 * snapshot into a temporary file beside it (mode 0600), checks the copy (integrity_check ok, no foreign_key_check
 * row, the source's migration version, every table's row count equal to the source's at the snapshot copied), then
 * links it to the target name, which fails rather than replace a file created meanwhile. Throws BackupError.
 */
export async function backupDatabase(
  sourcePath: string,
  targetArg: string,
  options: { busyTimeoutMs?: number; stepPages?: number; onProgress?: (progress: CopyProgress) => void } = {},
): Promise<BackupSummary> {
  const started = performance.now();
  if (sourcePath === ':memory:') throw new BackupError('DATABASE_PATH is :memory:: there is no file to back up');
  if (!existsSync(sourcePath)) throw new BackupError(`no database at ${sourcePath} (DATABASE_PATH)`);
  const target = resolve(targetArg);
  checkBackupTarget(target);
  const temp = temporaryBeside(target, 'backup');
  try {
    // Read-only: the copy neither creates, migrates nor writes the live file.
    const source = openReadOnlyDatabase(sourcePath, { busyTimeoutMs: options.busyTimeoutMs ?? 5000 });
    let facts: DatabaseFacts;
    try {
      facts = await copySnapshot(source, temp, options.stepPages ?? defaultStepPages, options.onProgress);
    } finally {
      source.close();
    }
    chmodSync(temp, 0o600);
    const check = checkCopy(temp);
    const problems = [...check.problems];
    if (problems.length === 0 && check.migrationVersion !== facts.migrationVersion) {
      problems.push(`migration version ${check.migrationVersion} in the copy, ${facts.migrationVersion} in the source`);
    }
    if (problems.length === 0) problems.push(...countDifferences(facts.tables, check.tables));
    if (problems.length > 0)
      throw new BackupError(`the copy failed its checks, nothing kept:\n  ${problems.join('\n  ')}`);
    syncToDisk(temp);
    try {
      linkSync(temp, target);
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'EEXIST') throw err;
      throw new BackupError(`${target} was created while the copy ran: backup never overwrites a file`);
    }
    removeWithSideFiles(temp);
    syncToDisk(dirname(target));
    return {
      backup: target,
      source: resolve(sourcePath),
      bytes: statSync(target).size,
      milliseconds: Math.round(performance.now() - started),
      integrityCheck: 'ok',
      foreignKeyViolations: 0,
      ...facts,
    };
  } finally {
    removeWithSideFiles(temp);
  }
}
