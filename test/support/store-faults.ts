import type Database from 'better-sqlite3';

/** What a create stores: its launch, its idempotency record and its admission, counted through `db`. */
export function storedCounts(db: Database.Database): { launches: number; idempotency: number; admissions: number } {
  const n = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return { launches: n('launches'), idempotency: n('idempotency_records'), admissions: n('admissions') };
}

/** Reads `read` every 20 ms until `done` holds, and returns that value; throws with the last value after `timeoutMs`. */
export async function pollUntil<T>(read: () => T, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = read();
    if (done(value)) return value;
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms: last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
