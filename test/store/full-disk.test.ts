import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, call } from '../support/http.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';
import { freshV4Bytes } from '../support/server.ts';
import { keysInFile, storedCounts } from '../support/store-faults.ts';

const dir = mkdtempSync(join(tmpdir(), 'custom-launch-full-disk-'));
const mountReason = (() => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=12m', 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (err) {
    return `mounting a tmpfs was refused (${String((err as { stderr?: Buffer }).stderr ?? err).trim()})`;
  }
})();
if (mountReason) console.warn(`full-disk test skipped: ${mountReason}`);

const path = join(dir, 'full.sqlite');
const filler = join(dir, 'filler');
let server: ServerProcess | undefined;
let apiKey = '';
let partnerKey = '';

/** Writes into `filler` until the filesystem refuses (ENOSPC): nothing is left for the database's next page. */
function fillDisk(): void {
  const fd = openSync(filler, 'w');
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 9, 1]) {
      const chunk = Buffer.alloc(size, 0x5a);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** The stored rows, read through a connection of the test's own that cannot write. */
function stored(): ReturnType<typeof storedCounts> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return storedCounts(db);
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  if (mountReason) return;
  ({ walletKey: apiKey, partnerKey } = keysInFile(path, 'Full disk'));
  server = await startServerProcess({ DATABASE_PATH: path, SQLITE_BUSY_TIMEOUT_MS: '200', LIFECYCLE_POLL_MS: '50' });
});

afterAll(async () => {
  await server?.kill();
  if (!mountReason) execFileSync('umount', [dir]);
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(mountReason !== null)('a full disk under the SQLite file', () => {
  it('refuses a create with 503 STORAGE_FULL, stores nothing, keeps serving reads, and takes the same bytes once space is back', async () => {
    const url = `${server?.url}/v4/chains/4663/custom-launches`;
    const create = (body: string, key: string) =>
      call(url, { method: 'POST', headers: auth(apiKey, { 'Idempotency-Key': key }), body });
    const before = await create(freshV4Bytes(), 'full-disk-before-00');
    expect(before.status, before.text).toBe(202);
    const counts = stored();

    fillDisk();
    // A partner's read spends a budget counted in the file, which cannot grow now: it is served uncounted.
    const partnerList = await call(url, { headers: auth(partnerKey) });
    expect(partnerList.status, partnerList.text).toBe(200);
    const body = freshV4Bytes();
    const refused = await create(body, 'full-disk-refused-01');
    expect(refused.status, refused.text).toBe(503);
    expect(refused.json.error).toMatchObject({
      code: 'STORAGE_FULL',
      retryable: true,
      requestId: refused.headers.get('x-request-id'),
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(stored()).toEqual(counts);
    const read = await call(`${url}/${before.json.launchId}`, { headers: auth(apiKey) });
    expect(read.status, read.text).toBe(200);
    const list = await call(url, { headers: auth(apiKey) });
    expect(list.status, list.text).toBe(200);
    expect(list.json.launches.map((l: { launchId: string }) => l.launchId)).toEqual([before.json.launchId]);

    rmSync(filler);
    const retried = await create(body, 'full-disk-refused-01');
    expect(retried.status, retried.text).toBe(202);
    expect(stored()).toEqual({
      launches: counts.launches + 1,
      idempotency: counts.idempotency + 1,
      admissions: counts.admissions + 1,
    });
    const after = await call(`${url}/${retried.json.launchId}`, { headers: auth(apiKey) });
    expect(after.status, after.text).toBe(200);
    expect(after.json.launchId).toBe(retried.json.launchId);
  });
});
