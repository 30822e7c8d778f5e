import type Database from 'better-sqlite3';
import { mintPartnerRoot, mintWalletKey } from '../../src/auth/keys.ts';
import { openDatabase } from '../../src/store/db.ts';
import { exampleWallet } from './server.ts';

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

/**
 * Mints, into the SQLite file at `path` before a server process opens it, a wallet key of the example wallet (both
 * launch scopes, chain 4663) and a partner root named `name` with `readRequestsPerMinute` (100 unless given).
 */
export function keysInFile(
  path: string,
  name: string,
  readRequestsPerMinute = 100,
): { walletKey: string; partnerKey: string } {
  const setup = openDatabase(path);
  try {
    const walletKey = mintWalletKey(setup, {
      wallet: exampleWallet,
      scopes: ['custom-launch:create', 'custom-launch:read'],
      chains: ['4663'],
    }).apiKey;
    const partnerKey = mintPartnerRoot(setup, {
      name,
      wallet: exampleWallet,
      chains: ['4663'],
      expiresAt: '2031-12-31T23:59:59.999Z',
      now: Date.now(),
      budgets: { prepareRequestsPerHour: 1000, readRequestsPerMinute, subkeyAdminRequestsPerHour: 10 },
    }).apiKey;
    return { walletKey, partnerKey };
  } finally {
    setup.close();
  }
}
