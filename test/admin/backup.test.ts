import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupDatabase, type CopyProgress } from '../../src/admin/backup.ts';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { openDatabase } from '../../src/store/db.ts';
import { migrations } from '../../src/store/migrations.ts';
import { runAdmin } from '../support/admin.ts';
import { auth, call } from '../support/http.ts';
import { databaseBefore } from '../support/migrations.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';
import { exampleWallet, freshV4Bytes } from '../support/server.ts';

// The operator's backup and restore as processes over real SQLite files, beside real server processes that keep
// writing (src/admin/backup.ts, src/admin/restore.ts, docs/operator.md).
const dir = mkdtempSync(join(tmpdir(), 'custom-launch-backup-'));
const first = join(dir, 'first.sqlite');
const second = join(dir, 'restored', 'second.sqlite');
const backupFile = join(dir, 'backups', 'mid-burst.sqlite');
const limits = { ADMISSION_PER_HOUR: '1000000', ADMISSION_PER_DAY: '1000000', ROUTE_BUDGET_PER_MINUTE: '1000000' };
const servers: ServerProcess[] = [];
let apiKey = '';
let firstServer: ServerProcess;

/** Every create's launch id with the moment its 202 arrived (performance.now()). */
const acks: Array<{ launchId: string; at: number }> = [];
let backupStartedAt = Number.POSITIVE_INFINITY;
let backupEndedAt = Number.POSITIVE_INFINITY;
let backupSummary: { tables: Record<string, number>; migrationVersion: number; integrityCheck: string };

const launches = (s: ServerProcess) => `${s.url}/v4/chains/4663/custom-launches`;
const mode = (path: string) => statSync(path).mode & 0o777;
/** The hidden temporary files backup and restore grow a copy in, left in a folder. */
const leftovers = (folder: string) => readdirSync(folder).filter((name) => /\.(backup|restore)-\d+-/.test(name));

/** The launch ids of a SQLite file, and the launch ids its lifecycle jobs and stored 202 answers name. */
function launchIdsIn(path: string): { launches: string[]; jobs: string[]; answered: string[] } {
  const db = new Database(path, { fileMustExist: true });
  try {
    const column = (sql: string) => (db.prepare(sql).pluck().all() as string[]).sort();
    return {
      launches: column('SELECT launch_id FROM launches'),
      jobs: column('SELECT launch_id FROM lifecycle_jobs'),
      answered: (
        db
          .prepare("SELECT response_body FROM idempotency_records WHERE operation = 'createCustomLaunchV4'")
          .pluck()
          .all() as string[]
      )
        .map((body) => (JSON.parse(body) as { launchId: string }).launchId)
        .sort(),
    };
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  const minted = await runAdmin(
    [
      'keys',
      'create',
      '--wallet',
      exampleWallet,
      '--scopes',
      'custom-launch:create,custom-launch:read',
      '--chains',
      '4663',
    ],
    { DATABASE_PATH: first },
  );
  expect(minted.code, minted.stderr).toBe(0);
  apiKey = (JSON.parse(minted.stdout) as { apiKey: string }).apiKey;
  mkdirSync(join(dir, 'backups'));
  firstServer = await startServerProcess({ DATABASE_PATH: first, ...limits });
  servers.push(firstServer);
});

afterAll(async () => {
  for (const s of servers) await s.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run admin -- backup, in the middle of a burst of creates', () => {
  it('copies one snapshot and verifies it while the server keeps acknowledging creates', async () => {
    let sent = 0;
    let backup: ReturnType<typeof runAdmin> | undefined;
    const after = (t: number) => acks.filter((a) => a.at > t).length;
    // Eight clients create without pause until at least 40 launches are in, the backup has finished, and a few more
    // were acknowledged after it: the copy ran while the server was committing.
    const client = async () => {
      while (acks.length < 40 || after(backupEndedAt) < 4) {
        const n = ++sent;
        if (n > 5000) throw new Error('5000 creates and the backup has not finished');
        const reply = await call(launches(firstServer), {
          method: 'POST',
          headers: auth(apiKey, { 'Idempotency-Key': `backup-burst-${String(n).padStart(8, '0')}` }),
          body: freshV4Bytes(),
        });
        expect(reply.status, reply.text).toBe(202);
        acks.push({ launchId: reply.json.launchId as string, at: performance.now() });
        if (acks.length === 10 && !backup) {
          backupStartedAt = performance.now();
          backup = runAdmin(['backup', backupFile], { DATABASE_PATH: first }).finally(() => {
            backupEndedAt = performance.now();
          });
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, client));
    const run = await (backup as ReturnType<typeof runAdmin>);
    expect(run.code, run.stderr).toBe(0);
    backupSummary = JSON.parse(run.stdout);
    expect(backupSummary.integrityCheck).toBe('ok');
    expect(backupSummary.migrationVersion).toBe(migrations.at(-1)?.version);
    expect(acks.filter((a) => a.at > backupStartedAt && a.at < backupEndedAt).length).toBeGreaterThan(0);
    const before = acks.filter((a) => a.at < backupStartedAt).length;
    expect(backupSummary.tables.launches).toBeGreaterThanOrEqual(before);
    expect(backupSummary.tables.launches).toBeLessThan(acks.length);
    expect(mode(backupFile)).toBe(0o600);
    expect(leftovers(join(dir, 'backups'))).toEqual([]);

    // SQLite's own check on the file as it lies on disk; the check's connection leaves no side file behind it.
    const copy = new Database(backupFile, { fileMustExist: true });
    expect(copy.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    expect(copy.pragma('foreign_key_check')).toEqual([]);
    copy.close();
    expect(readdirSync(join(dir, 'backups'))).toEqual(['mid-burst.sqlite']);
  }, 90_000);

  it('restores into a new file that a second server serves: every launch acknowledged before the backup, nothing invented', async () => {
    const restore = await runAdmin(['restore', backupFile], { DATABASE_PATH: second });
    expect(restore.code, restore.stderr).toBe(0);
    const summary = JSON.parse(restore.stdout) as { tables: Record<string, number>; note?: string };
    expect(summary.tables).toEqual(backupSummary.tables);
    expect(summary.note).toBeUndefined();
    expect(mode(second)).toBe(0o600);

    // One snapshot across tables: each launch has its job and its stored 202, and no launch comes without them.
    const restored = launchIdsIn(second);
    expect(restored.launches).toHaveLength(backupSummary.tables.launches as number);
    expect(restored.jobs).toEqual(restored.launches);
    expect(restored.answered).toEqual(restored.launches);
    const acknowledged = new Set(acks.map((a) => a.launchId));
    expect(restored.launches.filter((id) => !acknowledged.has(id))).toEqual([]);
    const beforeBackup = acks.filter((a) => a.at < backupStartedAt).map((a) => a.launchId);
    expect(beforeBackup.filter((id) => !restored.launches.includes(id))).toEqual([]);

    const secondServer = await startServerProcess({ DATABASE_PATH: second, ...limits });
    servers.push(secondServer);
    for (const launchId of beforeBackup) {
      const got = await call(`${launches(secondServer)}/${launchId}`, { headers: auth(apiKey) });
      expect(got.status, got.text).toBe(200);
      expect(got.json.launchId).toBe(launchId);
    }
    const afterBackup = acks.filter((a) => a.at > backupEndedAt).map((a) => a.launchId);
    expect(afterBackup.length).toBeGreaterThan(0);
    for (const launchId of afterBackup) {
      expect((await call(`${launches(secondServer)}/${launchId}`, { headers: auth(apiKey) })).status).toBe(404);
    }
    await secondServer.stop();
  }, 60_000);
});

describe('npm run admin -- backup refuses', () => {
  it('a target that exists, and leaves it untouched', async () => {
    const existing = join(dir, 'backups', 'existing.sqlite');
    writeFileSync(existing, 'an operator file\n');
    chmodSync(existing, 0o640);
    const run = await runAdmin(['backup', existing], { DATABASE_PATH: first });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: ${existing} already exists: backup never overwrites a file`);
    expect(run.stdout).toBe('');
    expect(readFileSync(existing, 'utf8')).toBe('an operator file\n');
    expect(mode(existing)).toBe(0o640);
    expect(leftovers(join(dir, 'backups'))).toEqual([]);
  });

  it('a DATABASE_PATH with no file, and creates none', async () => {
    const missing = join(dir, 'missing.sqlite');
    const run = await runAdmin(['backup', join(dir, 'backups', 'of-nothing.sqlite')], { DATABASE_PATH: missing });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: no database at ${missing} (DATABASE_PATH)`);
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(join(dir, 'backups', 'of-nothing.sqlite'))).toBe(false);
  });
});

describe('npm run admin -- restore', () => {
  it('refuses the database a running server holds, then replaces it once the server is gone, stale -wal and -shm included', async () => {
    const launched = acks.at(-1)?.launchId as string;
    const refused = await runAdmin(['restore', backupFile], { DATABASE_PATH: first });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`error: ${first} is live: a running server holds it. Stop every server on it`);
    // Untouched: the server still serves what it acknowledged after the backup.
    expect((await call(`${launches(firstServer)}/${launched}`, { headers: auth(apiKey) })).status).toBe(200);
    expect(leftovers(dir)).toEqual([]);

    // SIGKILL leaves the -wal (with commits the backup lacks), the -shm and an unexpired lease row of a dead process.
    await firstServer.kill();
    expect(statSync(`${first}-wal`).size).toBeGreaterThan(0);
    expect(existsSync(`${first}-shm`)).toBe(true);
    const restore = await runAdmin(['restore', backupFile], { DATABASE_PATH: first });
    expect(restore.code, restore.stderr).toBe(0);
    expect((JSON.parse(restore.stdout) as { removedSideFiles: string[] }).removedSideFiles).toContain(`${first}-shm`);
    expect(existsSync(`${first}-wal`)).toBe(false);
    expect(mode(first)).toBe(0o600);
    expect(launchIdsIn(first).launches).toHaveLength(backupSummary.tables.launches as number);

    const third = await startServerProcess({ DATABASE_PATH: first, ...limits });
    servers.push(third);
    expect((await call(`${launches(third)}/${launched}`, { headers: auth(apiKey) })).status).toBe(404);
    const early = acks[0]?.launchId as string;
    expect((await call(`${launches(third)}/${early}`, { headers: auth(apiKey) })).json.launchId).toBe(early);
    await third.stop();
  }, 60_000);

  const pageSize = 4096;
  const cases: Array<[string, (path: string) => void, string]> = [
    [
      'pages overwritten',
      (path) => {
        const bytes = readFileSync(path);
        bytes.fill(0xa5, pageSize, Math.floor(bytes.length / 2));
        writeFileSync(path, bytes);
      },
      'failed its checks, nothing restored',
    ],
    [
      'cut in half',
      (path) => writeFileSync(path, readFileSync(path).subarray(0, Math.floor(statSync(path).size / 2))),
      'failed its checks, nothing restored',
    ],
    [
      'not SQLite at all',
      (path) => writeFileSync(path, 'SQLite format 3 this is not\n'.repeat(400)),
      'SQLite cannot read it',
    ],
    [
      'with one launch id changed in its index',
      (path) => {
        // One byte of one key of the launch_id index, on whichever of the index's pages holds it: the row and its
        // index entry disagree, which only the integrity check sees.
        const db = new Database(path);
        const pages = db
          .prepare("SELECT pageno FROM dbstat WHERE name = 'sqlite_autoindex_launches_1'")
          .pluck()
          .all() as number[];
        db.close();
        const bytes = readFileSync(path);
        const id = Buffer.from(acks[0]?.launchId as string);
        for (const page of pages) {
          const at = bytes.subarray((page - 1) * pageSize, page * pageSize).indexOf(id);
          if (at >= 0) bytes.fill('g', (page - 1) * pageSize + at, (page - 1) * pageSize + at + 1);
        }
        writeFileSync(path, bytes);
      },
      'integrity_check: ',
    ],
    [
      'with a row whose parent is missing',
      (path) => {
        const db = new Database(path);
        db.pragma('foreign_keys = OFF');
        db.prepare(
          "INSERT INTO launch_transitions (launch_id, from_status, to_status, worker, at) VALUES ('no-such-launch', 'received', 'validating', 'test', '2026-01-01T00:00:00.000Z')",
        ).run();
        db.close();
      },
      'foreign_key_check: 1 row(s) without their parent (first: launch_transitions',
    ],
    [
      'made by a newer build',
      (path) => {
        const db = new Database(path);
        db.prepare("INSERT INTO schema_migrations VALUES (999, 'from the future', '2030-01-01T00:00:00.000Z')").run();
        db.close();
      },
      `the backup is at migration 999, newer than this build's ${migrations.at(-1)?.version}`,
    ],
  ];
  for (const [name, damage, want] of cases) {
    it(`refuses a backup ${name}, and creates nothing`, async () => {
      const bad = join(dir, 'backups', `${name.replaceAll(' ', '-')}.sqlite`);
      copyFileSync(backupFile, bad);
      damage(bad);
      const target = join(dir, `never-${name.replaceAll(' ', '-')}.sqlite`);
      const run = await runAdmin(['restore', bad], { DATABASE_PATH: target });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(want);
      expect(existsSync(target)).toBe(false);
      expect(leftovers(dir)).toEqual([]);
    });
  }

  it('accepts a backup of an older build and says the server migrates it on start', async () => {
    const latest = migrations.at(-1) as (typeof migrations)[number];
    const older = join(dir, 'backups', 'older.sqlite');
    databaseBefore(latest.name, older).close();
    const target = join(dir, 'from-older.sqlite');
    const run = await runAdmin(['restore', older], { DATABASE_PATH: target });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).note).toBe(
      `the backup is at migration ${latest.version - 1}, this build at ${latest.version}: the server applies the newer migrations when it starts`,
    );
    const db = openDatabase(target);
    expect(db.prepare('SELECT max(version) FROM schema_migrations').pluck().get()).toBe(latest.version);
    db.close();
  });
});

describe('backupDatabase', () => {
  it('keeps its counts and its copy on one snapshot while another connection commits between its steps', async () => {
    const source = join(dir, 'steps.sqlite');
    const db = openDatabase(source);
    db.transaction(() => {
      for (let i = 0; i < 1500; i++)
        mintWalletKey(db, { wallet: exampleWallet, scopes: ['custom-launch:read'], chains: ['4663'] });
    })();
    const writer = openDatabase(source);
    const steps: CopyProgress[] = [];
    let committed = 0;
    const summary = await backupDatabase(source, join(dir, 'backups', 'steps.sqlite'), {
      stepPages: 1,
      onProgress: (progress) => {
        steps.push(progress);
        // Another connection commits mid-copy, a dozen times: a backup whose source connection began a new read
        // would start again after each (SQLite restarts it on a changed source) and copy a later snapshot.
        if (steps.length % 10 === 0 && committed < 12) {
          mintWalletKey(writer, { wallet: exampleWallet, scopes: ['custom-launch:read'], chains: ['4663'] });
          committed++;
        }
      },
    });
    expect(committed).toBeGreaterThan(5);
    expect(db.prepare('SELECT count(*) FROM api_keys').pluck().get()).toBe(1500 + committed);
    expect(summary.tables.api_keys).toBe(1500);
    // Page by page to the end, never from the start again.
    expect(new Set(steps.map((s) => s.totalPages)).size).toBe(1);
    expect(steps.map((s) => s.remainingPages)).toEqual(
      steps.map((_, i) => (steps[0] as CopyProgress).remainingPages - i),
    );
    const copy = new Database(join(dir, 'backups', 'steps.sqlite'), { readonly: true });
    expect(copy.prepare('SELECT count(*) FROM api_keys').pluck().get()).toBe(1500);
    copy.close();
    writer.close();
    db.close();
  });
});
