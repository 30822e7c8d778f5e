import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { holdLease, leaseHeld, leaseRow, releaseLease, takeLease } from '../../src/cluster/lease.ts';
import { type Db, openDatabase } from '../../src/store/db.ts';
import { pollUntil } from '../support/store-faults.ts';

const dir = mkdtempSync(join(tmpdir(), 'custom-launch-lease-'));
const dbs: Db[] = [];
const open = (name: string) => {
  const db = openDatabase(join(dir, name));
  dbs.push(db);
  return db;
};
afterAll(() => {
  for (const db of dbs) db.close();
  rmSync(dir, { recursive: true, force: true });
});

const here = hostname();
const live = `${here}:${process.pid}:a`;
// A pid of this host that has exited: the pid of a finished child.
const deadPid = spawnSync(process.execPath, ['-e', '0']).pid as number;
const leaseMs = 1000;
const t0 = 1_000_000;

describe('the process lease in the SQLite file (process_leases)', () => {
  const db = open('lease.sqlite');
  it.each([
    ['nobody holds it: taken', null, t0, 'me', t0 + leaseMs],
    [
      'another live owner, 1 ms before its expiry: refused',
      [`elsewhere:${process.pid}:b`, t0 + leaseMs],
      t0 + leaseMs - 1,
      'me',
      -(t0 + leaseMs),
    ],
    [
      'another live owner, at its expiry: taken',
      [`elsewhere:${process.pid}:b`, t0 + leaseMs],
      t0 + leaseMs,
      'me',
      t0 + 2 * leaseMs,
    ],
    ['its own owner before expiry: renewed', ['me', t0 + leaseMs], t0 + 10, 'me', t0 + 10 + leaseMs],
    [
      'an owner of this host whose process is gone, long before expiry: taken',
      [`${here}:${deadPid}:c`, t0 + 50 * leaseMs],
      t0,
      'me',
      t0 + leaseMs,
    ],
    [
      'an owner of this host whose process lives, before expiry: refused',
      [live, t0 + leaseMs],
      t0,
      'me',
      -(t0 + leaseMs),
    ],
    [
      'an owner of another host with a gone pid, before expiry: refused',
      [`elsewhere:${deadPid}:c`, t0 + leaseMs],
      t0,
      'me',
      -(t0 + leaseMs),
    ],
  ] as const)('%s', (_title, held, nowMs, owner, want) => {
    db.prepare('DELETE FROM process_leases').run();
    if (held) db.prepare('INSERT INTO process_leases VALUES (?, ?, ?)').run('work', held[0], held[1]);
    expect(takeLease(db, 'work', owner, leaseMs, nowMs)).toBe(want);
    expect(leaseRow(db, 'work')?.owner).toBe(want > 0 ? owner : held?.[0]);
  });

  it('is released only by its owner, and held only until its expiry', () => {
    db.prepare('DELETE FROM process_leases').run();
    takeLease(db, 'work', 'me', leaseMs, t0);
    releaseLease(db, 'work', 'someone-else');
    expect(leaseHeld(db, 'work', t0 + leaseMs - 1)).toBe(true);
    expect(leaseHeld(db, 'work', t0 + leaseMs)).toBe(false);
    releaseLease(db, 'work', 'me');
    expect(leaseHeld(db, 'work', t0)).toBe(false);
  });
});

describe('holders of one lease on two connections', () => {
  it('run the work in exactly one of them, and hand it over when the holder stops', async () => {
    open('holders.sqlite').close();
    const a = open('holders.sqlite');
    const b = open('holders.sqlite');
    const running = new Set<string>();
    const starts: string[] = [];
    const work = (name: string) => () => {
      running.add(name);
      starts.push(name);
      return async () => {
        running.delete(name);
      };
    };
    const holderA = holdLease({ db: a, name: 'work', owner: `elsewhere:1:a`, leaseMs: 300, start: work('a') });
    await pollUntil(
      () => running.size,
      (n) => n === 1,
    );
    const holderB = holdLease({ db: b, name: 'work', owner: `elsewhere:1:b`, leaseMs: 300, start: work('b') });
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect([...running]).toEqual(['a']);
    expect(holderA.holding()).toBe(true);
    expect(holderB.holding()).toBe(false);
    const stoppedAt = Date.now();
    await holderA.stop();
    await pollUntil(
      () => [...running],
      (r) => r.length === 1 && r[0] === 'b',
      2_000,
    );
    expect(Date.now() - stoppedAt).toBeLessThan(300);
    await holderB.stop();
    expect(running.size).toBe(0);
    expect(starts).toEqual(['a', 'b']);
    expect(leaseRow(a, 'work')).toBeUndefined();
  });
});

describe('a holder that cannot keep its lease', () => {
  const running = new Set<string>();
  const work = (name: string) => () => {
    running.add(name);
    return async () => {
      running.delete(name);
    };
  };

  it('stops its work once the lease was taken from it', async () => {
    const db = open('taken.sqlite');
    const holder = holdLease({ db, name: 'work', owner: 'elsewhere:1:a', leaseMs: 300, start: work('taken') });
    await pollUntil(() => running.has('taken'), Boolean);
    db.prepare("UPDATE process_leases SET owner = 'elsewhere:1:z', expires_ms = ?").run(Date.now() + 60_000);
    await pollUntil(
      () => running.has('taken'),
      (r) => !r,
      1_000,
    );
    expect(holder.holding()).toBe(false);
    await holder.stop();
    expect(leaseRow(db, 'work')?.owner).toBe('elsewhere:1:z');
  });

  it('stops its work before its lease expires while the file stays locked, and resumes once it is free', async () => {
    open('locked.sqlite').close();
    const db = open('locked.sqlite');
    const locker = open('locked.sqlite');
    const holder = holdLease({ db, name: 'work', owner: 'elsewhere:1:a', leaseMs: 600, start: work('locked') });
    await pollUntil(() => running.has('locked'), Boolean);
    locker.exec('BEGIN IMMEDIATE');
    const expiresMs = leaseRow(locker, 'work')?.expires_ms as number;
    await pollUntil(
      () => running.has('locked'),
      (r) => !r,
      2_000,
    );
    expect(Date.now()).toBeLessThan(expiresMs);
    locker.exec('COMMIT');
    await pollUntil(() => running.has('locked'), Boolean, 2_000);
    await holder.stop();
  });
});
