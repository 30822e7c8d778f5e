import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootBudgetMaxima } from '../../src/auth/keys.ts';
import { openDatabase } from '../../src/store/db.ts';
import { type AdminRun, runAdmin } from '../support/admin.ts';
import { auth, call } from '../support/http.ts';
import { startServerProcess } from '../support/process.ts';

/**
 * `npm run admin -- partners create` as an operator runs it: a child process over a real SQLite file
 * (spec/openapi/paths/partner-subkeys.yaml: a partner root holds partner-subkeys:manage; the key is printed
 * once and only its SHA-256 is stored). The first case runs the README's command itself (npm with --silent, so that
 * stdout is exactly the command's own output); the others run the same command's bundle (runAdmin), which spares
 * each of them npm's and tsx's start.
 */
const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const rootScopes = ['partner-subkeys:manage', 'custom-launch:create', 'custom-launch:read'];
/** The documented defaults of `partners create` (its usage text). */
const defaultBudgets = { prepareRequestsPerHour: 600, readRequestsPerMinute: 600, subkeyAdminRequestsPerHour: 120 };
const day = 86_400_000;

let dir: string;
let serial = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'custom-launch-partners-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A database file of its own for one case. */
const freshDatabase = () => join(dir, `partners-${++serial}.sqlite`);

/** The operator command: its bundle, or `via: 'npm'` exactly as an operator runs it (`npm run --silent admin -- …`). */
function admin(args: string[], databasePath: string, via: 'node' | 'npm' = 'node'): Promise<AdminRun> {
  return runAdmin(args, { DATABASE_PATH: databasePath }, via);
}

const create = (
  databasePath: string,
  extra: string[] = [],
  edit: Record<string, string | null> = {},
  via: 'node' | 'npm' = 'node',
) => {
  const values: Record<string, string | null> = { name: 'Acme launches', wallet, chains: '4663', ...edit };
  const args = ['partners', 'create'];
  for (const [flag, value] of Object.entries(values)) if (value !== null) args.push(`--${flag}`, value);
  return admin([...args, ...extra], databasePath, via);
};

/** Parses the one line a successful create prints. */
function printedRoot(run: AdminRun): Record<string, any> {
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout.endsWith('\n')).toBe(true);
  const lines = run.stdout.slice(0, -1).split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] as string);
}

/** Every value of every row of every table: the key must be in none of them. */
function everyStoredValue(databasePath: string): string[] {
  const db = openDatabase(databasePath);
  try {
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>;
    return tables.flatMap(({ name }) =>
      (db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>).flatMap((row) =>
        Object.values(row).map((v) => (Buffer.isBuffer(v) ? v.toString('latin1') : String(v))),
      ),
    );
  } finally {
    db.close();
  }
}

function counts(databasePath: string): { partners: number; keys: number } {
  if (!existsSync(databasePath)) return { partners: 0, keys: 0 };
  const db = openDatabase(databasePath);
  try {
    const n = (where: string) => (db.prepare(`SELECT count(*) AS n FROM api_keys ${where}`).get() as { n: number }).n;
    // A partner is its root key: the partners are the partner-root rows.
    return { partners: n("WHERE kind = 'partner-root'"), keys: n('') };
  } finally {
    db.close();
  }
}

function keyRow(databasePath: string, keyId: string): Record<string, unknown> | undefined {
  const db = openDatabase(databasePath);
  try {
    return db.prepare('SELECT * FROM api_keys WHERE key_id = ?').get(keyId) as Record<string, unknown> | undefined;
  } finally {
    db.close();
  }
}

describe('npm run admin -- partners create', () => {
  let main = '';
  let root: Record<string, any> = {};
  let bounded: Record<string, any> = {};

  it('prints exactly one JSON line: the key once, the root scopes, chains, a one-year expiry and the default budgets', async () => {
    main = freshDatabase();
    const before = Date.now();
    root = printedRoot(await create(main, [], {}, 'npm'));
    expect(Object.keys(root).sort()).toEqual([
      'apiKey',
      'budgets',
      'chains',
      'expiresAt',
      'keyId',
      'name',
      'partnerId',
      'scopes',
      'wallet',
    ]);
    expect(root.apiKey).toMatch(/^clk_[A-Za-z0-9_-]{43}$/);
    expect(root.partnerId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(root.keyId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(root.name).toBe('Acme launches');
    expect(root.wallet).toBe(wallet.toLowerCase());
    expect(root.scopes).toEqual(rootScopes);
    expect(root.chains).toEqual(['4663']);
    expect(root.expiresAt).toMatch(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/);
    const expires = Date.parse(root.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 365 * day);
    expect(expires).toBeLessThanOrEqual(Date.now() + 365 * day);
    expect(root.budgets).toEqual(defaultBudgets);
  });

  it('stores only the SHA-256 of the key: no file byte and no row holds the key', () => {
    // The bytes on disk first, exactly as the command left them.
    const files = [main, `${main}-wal`, `${main}-shm`].filter((f) => existsSync(f));
    const raw = Buffer.concat(files.map((f) => readFileSync(f)));
    expect(raw.length).toBeGreaterThan(0);
    expect(raw.includes(root.apiKey)).toBe(false);
    const values = everyStoredValue(main);
    expect(values.length).toBeGreaterThan(0);
    expect(values.filter((v) => v.includes(root.apiKey))).toEqual([]);
    const row = keyRow(main, root.keyId);
    expect(row).toMatchObject({
      kind: 'partner-root',
      key_hash: createHash('sha256').update(root.apiKey, 'utf8').digest('hex'),
      partner_id: root.partnerId,
      scopes: JSON.stringify(rootScopes),
      expires_at: root.expiresAt,
    });
    expect(counts(main)).toEqual({ partners: 1, keys: 1 });
  });

  it('honors --expires-at and the budget flags, at their bounds', async () => {
    const later = new Date(Date.now() + 2 * 365 * day).toISOString();
    const run = await create(main, [
      '--expires-at',
      later,
      '--prepare-per-hour',
      String(rootBudgetMaxima.prepareRequestsPerHour),
      '--read-per-minute',
      '1',
      '--subkey-admin-per-hour',
      '1',
    ]);
    bounded = printedRoot(run);
    expect(bounded.expiresAt).toBe(later);
    expect(bounded.budgets).toEqual({
      prepareRequestsPerHour: rootBudgetMaxima.prepareRequestsPerHour,
      readRequestsPerMinute: 1,
      subkeyAdminRequestsPerHour: 1,
    });
    expect(keyRow(main, bounded.keyId)).toMatchObject({
      expires_at: later,
      prepare_per_hour: rootBudgetMaxima.prepareRequestsPerHour,
      read_per_minute: 1,
      subkey_admin_per_hour: 1,
    });
    const top = printedRoot(
      await create(main, [
        '--read-per-minute',
        String(rootBudgetMaxima.readRequestsPerMinute),
        '--subkey-admin-per-hour',
        String(rootBudgetMaxima.subkeyAdminRequestsPerHour),
      ]),
    );
    expect(top.budgets).toEqual({
      prepareRequestsPerHour: defaultBudgets.prepareRequestsPerHour,
      readRequestsPerMinute: rootBudgetMaxima.readRequestsPerMinute,
      subkeyAdminRequestsPerHour: rootBudgetMaxima.subkeyAdminRequestsPerHour,
    });
    expect(counts(main)).toEqual({ partners: 3, keys: 3 });
  });

  it('the printed key works against a server on that database; the budget flag bounds its subkey administration', async () => {
    const server = await startServerProcess({ DATABASE_PATH: main });
    try {
      const list = await call(`${server.url}/v1/partner/subkeys`, { headers: auth(root.apiKey) });
      expect(list.status, list.text).toBe(200);
      expect(list.json).toEqual({ items: [] });
      const issued = await call(`${server.url}/v1/partner/subkeys`, {
        method: 'POST',
        headers: auth(root.apiKey, { 'Idempotency-Key': 'partners-test-issue-0001' }),
        body: JSON.stringify({
          displayName: 'Shop',
          scopes: ['custom-launch:read'],
          prepareRequestsPerHour: 1,
          readRequestsPerMinute: 1,
          // Within the root's default one-year expiry.
          expiresAt: new Date(Date.now() + 30 * day).toISOString(),
        }),
      });
      expect(issued.status, issued.text).toBe(201);
      // The root with --subkey-admin-per-hour 1: one subkey-admin call, then 429 with Retry-After.
      const once = await call(`${server.url}/v1/partner/subkeys`, { headers: auth(bounded.apiKey) });
      expect(once.status, once.text).toBe(200);
      const twice = await call(`${server.url}/v1/partner/subkeys`, { headers: auth(bounded.apiKey) });
      expect(twice.status, twice.text).toBe(429);
      expect(twice.json.error.code).toBe('RATE_LIMITED');
      expect(Number(twice.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe('refused with exit 2, a message, and nothing stored', () => {
  const past = new Date(Date.now() - day).toISOString();
  // Each case has its own database, so they run side by side.
  it.concurrent.for([
    ['no --name', [], { name: null }, '--name, --wallet and --chains are all required'],
    ['no --wallet', [], { wallet: null }, '--name, --wallet and --chains are all required'],
    ['no --chains', [], { chains: null }, '--name, --wallet and --chains are all required'],
    ['an empty --name', [], { name: '  ' }, '--name must be 1 to 64 characters'],
    ['a bad wallet', [], { wallet: '0x1234' }, '--wallet must be a 0x address'],
    [
      'a wallet without 0x',
      [],
      { wallet: 'f39Fd6e51aad88F6F4ce6aB8827279cffFb92266' },
      '--wallet must be a 0x address',
    ],
    ['an unknown chain', [], { chains: '4663,5' }, 'unknown chain 5'],
    ['--prepare-per-hour 0', ['--prepare-per-hour', '0'], {}, 'prepareRequestsPerHour must be an integer from 1 to'],
    [
      '--prepare-per-hour above its maximum',
      ['--prepare-per-hour', String(rootBudgetMaxima.prepareRequestsPerHour + 1)],
      {},
      `prepareRequestsPerHour must be an integer from 1 to ${rootBudgetMaxima.prepareRequestsPerHour}`,
    ],
    ['--read-per-minute 0', ['--read-per-minute', '0'], {}, 'readRequestsPerMinute must be an integer from 1 to'],
    [
      '--read-per-minute above its maximum',
      ['--read-per-minute', String(rootBudgetMaxima.readRequestsPerMinute + 1)],
      {},
      `readRequestsPerMinute must be an integer from 1 to ${rootBudgetMaxima.readRequestsPerMinute}`,
    ],
    [
      '--subkey-admin-per-hour 0',
      ['--subkey-admin-per-hour', '0'],
      {},
      'subkeyAdminRequestsPerHour must be an integer from 1 to',
    ],
    [
      '--subkey-admin-per-hour above its maximum',
      ['--subkey-admin-per-hour', String(rootBudgetMaxima.subkeyAdminRequestsPerHour + 1)],
      {},
      `subkeyAdminRequestsPerHour must be an integer from 1 to ${rootBudgetMaxima.subkeyAdminRequestsPerHour}`,
    ],
    ['a budget that is no integer', ['--read-per-minute', '1.5'], {}, '--read-per-minute must be a positive integer'],
    ['an expiry in the past', ['--expires-at', past], {}, 'is not in the future'],
    ['an expiry without milliseconds', ['--expires-at', '2029-06-30T12:00:00Z'], {}, 'UTC with milliseconds'],
    ['an expiry that is no calendar time', ['--expires-at', '2029-02-30T00:00:00.000Z'], {}, 'not a calendar time'],
    ['a positional argument', ['extra'], {}, 'takes no positional argument'],
  ] as Array<[string, string[], Record<string, string | null>, string]>)(
    '%s',
    async ([, extra, edit, message], { expect }) => {
      const databasePath = freshDatabase();
      const run = await create(databasePath, extra, edit);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(message);
      expect(run.stdout).toBe('');
      expect(counts(databasePath)).toEqual({ partners: 0, keys: 0 });
    },
  );

  it.concurrent.for([
    ['partner-subkeys:manage alone', 'partner-subkeys:manage'],
    ['partner-subkeys:manage among launch scopes', 'custom-launch:create,partner-subkeys:manage'],
  ])('keys create refuses %s: only a partner root holds it', async ([, scopes], { expect }) => {
    const databasePath = freshDatabase();
    const run = await admin(
      ['keys', 'create', '--wallet', wallet, '--scopes', scopes as string, '--chains', '4663'],
      databasePath,
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('partner-subkeys:manage is held only by a partner root');
    expect(run.stdout).toBe('');
    expect(counts(databasePath)).toEqual({ partners: 0, keys: 0 });
  });
});
