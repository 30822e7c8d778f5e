import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../support/process.ts';
import { freshV4Bytes, walletKeyInFile } from '../support/server.ts';

/*
 * SIGTERM during a burst (src/server/shutdown.ts, docs/operator.md): a real server process on a real SQLite file, 24
 * keep-alive clients sending durable creates and reads until the process has gone. Every request the server read (its
 * request log has a line for it) got its complete answer, and every answer a client got is in that log: the two sets
 * are equal. A client meets nothing but a refused or closed connection once the server stops listening, the process
 * exits 0 within its grace, and every launch acknowledged with a 202 is there when a new server opens the file.
 */

const dir = mkdtempSync(join(tmpdir(), 'custom-launch-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Answer {
  requestId: string;
  status: number;
  launchId?: string;
  at: number;
}

/** The error codes of a connection refused or closed before any answer began (undici wraps them in `cause`). */
const connectionCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const codeOf = (err: unknown) => {
  const cause = (err as { cause?: { code?: string; cause?: { code?: string } } }).cause;
  return cause?.code ?? cause?.cause?.code ?? String(err);
};

describe('graceful shutdown under load', () => {
  it('answers every request it read, refuses the rest at the socket, loses no acknowledged launch, exits 0', async () => {
    const databasePath = join(dir, 'burst.sqlite');
    const key = walletKeyInFile(databasePath, ['custom-launch:create', 'custom-launch:read']);
    const env = {
      DATABASE_PATH: databasePath,
      ADMISSION_PER_HOUR: '1000000',
      ADMISSION_PER_DAY: '1000000',
      ROUTE_BUDGET_PER_MINUTE: '1000000',
      SHUTDOWN_GRACE_MS: '10000',
    };
    const proc = await startServerProcess(env);
    let log = '';
    proc.child.stdout?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
    });
    const exit = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
    let exited = false;
    void exit.then(() => {
      exited = true;
    });

    const answers: Answer[] = [];
    const failures: Array<{ code: string; at: number }> = [];
    let inFlight = 0;
    let sigtermAt = Number.POSITIVE_INFINITY;
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const client = async (i: number) => {
      for (let n = 0; !exited; n++) {
        const create = (i + n) % 3 !== 0;
        inFlight++;
        try {
          const res = create
            ? await fetch(`${proc.url}/v4/chains/4663/custom-launches`, {
                method: 'POST',
                headers: { ...headers, 'Idempotency-Key': `shutdown-${i}-${n}-${Date.now()}`.padEnd(16, 'x') },
                body: freshV4Bytes(),
              })
            : await fetch(`${proc.url}/v4/chains/4663/capabilities`);
          const text = await res.text();
          // A complete answer: its whole JSON body arrived.
          const body = JSON.parse(text) as { launchId?: string };
          answers.push({
            requestId: res.headers.get('x-request-id') ?? '',
            status: res.status,
            ...(res.status === 202 && body.launchId ? { launchId: body.launchId } : {}),
            at: Date.now(),
          });
        } catch (err) {
          failures.push({ code: codeOf(err), at: Date.now() });
          // Nothing listens any more: wait for the process to be gone rather than spin.
          await new Promise((resolve) => setTimeout(resolve, 20));
        } finally {
          inFlight--;
        }
      }
    };
    const clients = Array.from({ length: 24 }, (_, i) => client(i));
    // Let the burst run until creates are being acknowledged, then stop the server in its midst.
    while (answers.filter((a) => a.status === 202).length < 40) await new Promise((r) => setTimeout(r, 10));
    const inFlightAtSigterm = inFlight;
    sigtermAt = Date.now();
    proc.child.kill('SIGTERM');
    const code = await exit;
    const stoppedMs = Date.now() - sigtermAt;
    await Promise.all(clients);

    expect(code).toBe(0);
    expect(inFlightAtSigterm).toBeGreaterThan(0);
    expect(stoppedMs).toBeLessThan(10_000);
    // Before the signal nothing failed; after it only connections were refused or closed, never an answer cut short.
    expect(failures.filter((f) => f.at < sigtermAt)).toEqual([]);
    for (const f of failures) expect(connectionCodes.has(f.code), f.code).toBe(true);

    const lines = log
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; requestId?: string; status?: number; aborted?: boolean });
    const logged = lines.filter((l) => l.msg === 'request');
    expect(logged.filter((l) => l.aborted)).toEqual([]);
    const answered = new Map(answers.map((a) => [a.requestId, a.status]));
    expect(new Set(logged.map((l) => l.requestId))).toEqual(new Set(answered.keys()));
    for (const l of logged) expect(answered.get(l.requestId as string)).toBe(l.status);
    // Some answers were completed after the signal: the drain finished requests in flight rather than dropping them.
    expect(answers.some((a) => a.at > sigtermAt)).toBe(true);
    const stopped = lines.find((l) => l.msg === 'stopped') as { service?: string } | undefined;
    expect(stopped?.service).toBe('drained');

    // Every acknowledged launch is on disk: a new server on the file serves each one.
    const acknowledged = answers.flatMap((a) => (a.launchId ? [a.launchId] : []));
    expect(acknowledged.length).toBeGreaterThanOrEqual(40);
    const again = await startServerProcess({ ...env, DEVELOPERS_PORT: 'off' });
    try {
      for (const launchId of acknowledged) {
        const res = await fetch(`${again.url}/v4/chains/4663/custom-launches/${launchId}`, { headers });
        expect(res.status, launchId).toBe(200);
        expect(((await res.json()) as { launchId: string }).launchId).toBe(launchId);
      }
    } finally {
      await again.stop();
    }
  }, 120_000);
});
