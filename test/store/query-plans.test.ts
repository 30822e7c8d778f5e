import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintPartnerRoot, mintWalletKey } from '../../src/auth/keys.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { baseJobTables, workerStatuses } from '../../src/domain/base-layer/lifecycle-jobs.ts';
import { BaseLayerTracker } from '../../src/domain/base-layer/tracker.ts';
import type { BaseTrackerContext } from '../../src/domain/base-layer/tracker-commit.ts';
import { claimLaneJobs } from '../../src/domain/lanes/lifecycle-jobs.ts';
import { claimBatchSize } from '../../src/domain/lifecycle/job-claims.ts';
import { LaunchTracker } from '../../src/domain/lifecycle/tracker.ts';
import { LifecycleWorker } from '../../src/domain/lifecycle/worker.ts';
import { multiRoleJobTables, multiRoleWorkerStatuses } from '../../src/domain/multi-role/lifecycle-jobs.ts';
import { MultiRoleTracker, type MultiRoleTrackerContext } from '../../src/domain/multi-role/tracker.ts';
import { createApp } from '../../src/http/app.ts';
import { createDeveloperApp, developerCorsHeaders } from '../../src/http/developer-app.ts';
import { buildServices } from '../../src/services.ts';
import { type Db, openDatabase, openReadOnlyDatabase } from '../../src/store/db.ts';
import { auth, call } from '../support/http.ts';
import { multiRoleRequest, multiRoleRequestBytes } from '../support/multi-role-request.ts';
import { exampleWallet, freshV4Bytes, listenOnLoopback } from '../support/server.ts';

/*
 * Every statement the hot paths run, driven over real HTTP on a real SQLite file (the V4, base-layer V3 and shared
 * MultiRole V2 lanes' lists and reads, the finalized feeds, the developer API's reads, the key lookup, idempotent
 * writes, and one selection of each tracker), runs on an index: EXPLAIN QUERY PLAN shows no full SCAN of a table that
 * grows with use (the tables of src/store/migrations.ts) and no temporary B-tree ordering a page query. The list
 * and the finalized feeds page by keyset (seq) so that each page reads O(page) rows.
 */

/** Tables that stay configuration-sized whatever the traffic: a full scan of one of them is fine. */
const smallTables: Array<[table: string, reason: string]> = [
  ['schema_migrations', 'one row per migration of this build'],
  ['v3_rule_sets', "one row per revision of the operator's admission rule set"],
];

/**
 * Statements that walk a growing table whole, in index order, by design, each with why that stays cheap. No page query
 * is among them.
 */
const wholeWalks: Array<[statement: RegExp, reason: string]> = [
  [
    /FROM public_launches WHERE token_decimals IS NOT NULL AND seq <= \? ORDER BY finalized_at, seq/,
    'the developer token list is one document of at most maxListedTokens tokens: walked over ' +
      'public_launches_listable once per connection (or again after a row added before its position), then ' +
      'extended by the added rows only; the walk stops at the bound',
  ],
];

/** The SQL of every statement run, in order, on either connection (the app's and the developer API's). */
const executed: string[] = [];

/**
 * Records the SQL of every statement `db` prepares from now on (statement() and every direct db.prepare) each time it
 * runs: statement() prepares once per connection, so a step's statements are known by their runs, not preparation.
 */
function recordStatements(db: Db): Db {
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const stmt = prepare(sql);
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const original = stmt[method] as (...args: unknown[]) => unknown;
      Object.defineProperty(stmt, method, {
        value: (...args: unknown[]) => {
          executed.push(sql);
          return original.apply(stmt, args);
        },
      });
    }
    return stmt;
  }) as Db['prepare'];
  return db;
}

/** A chain the trackers are built with: reached only when a launch is tracked, and none is in this test. */
const unreachable = new Proxy(
  {},
  {
    get: (_target, name) => {
      throw new Error(`the chain was reached (${String(name)}) with no tracked launch`);
    },
  },
);

let dir: string;
let db: Db;
let developerDb: Db;
/** A connection of the test's own, unrecorded, that explains the plans. */
let plans: Db;
let config: Config;
const servers: Server[] = [];
let url: string;
let developerUrl: string;
let walletKey: string;
let partnerKey: string;
let subkey: string;
let v4LaunchId: string;
let sharedLaunchId: string;
let v3LaunchId: string;
const lanes = {
  v4: '/v4/chains/4663/custom-launches',
  v3: '/v3/custom-launches',
  shared: '/v4/chains/4663/multi-role-custom-launches',
};
const idem = () => `plans-${randomUUID()}`;

/** One step of a hot path: what it does, how the test drives it, the growing tables it must reach by an index. */
type Step = [purpose: string, drive: () => Promise<unknown>, want: string[]];

const asKeys = (read: (key: string) => Promise<unknown>) => async () => {
  for (const key of [walletKey, partnerKey, subkey]) await read(key);
};
const getJson = async (path: string, key?: string) => {
  const r = await call(`${url}${path}`, key === undefined ? {} : { headers: auth(key) });
  expect(r.status, r.text).toBe(200);
  return r.json;
};
/** The first page, then the page after its cursor (a cursor walk), as each credential kind reads it. */
const walk = (path: string, key?: string) => async () => {
  const first = await getJson(`${path}?limit=1`, key);
  expect(first.nextCursor, `${path} holds more than one row`).not.toBeNull();
  await getJson(`${path}?limit=1&cursor=${first.nextCursor}`, key);
};

const steps: Step[] = [
  [
    'create a V4 launch, then replay it (key lookup, idempotency lookup, intent claims, admission quota)',
    async () => {
      const key = idem();
      const body = freshV4Bytes();
      for (const want of [202, 200]) {
        const r = await call(`${url}${lanes.v4}`, {
          method: 'POST',
          headers: auth(walletKey, { 'Idempotency-Key': key }),
          body,
        });
        expect(r.status, r.text).toBe(want);
      }
    },
    ['api_keys', 'idempotency_records', 'launches'],
  ],
  [
    'create a shared-lane launch, then replay it',
    async () => {
      const key = idem();
      const body = multiRoleRequestBytes(multiRoleRequest());
      for (const want of [202, 200]) {
        const r = await call(`${url}${lanes.shared}`, {
          method: 'POST',
          headers: auth(walletKey, { 'Idempotency-Key': key }),
          body,
        });
        expect(r.status, r.text).toBe(want);
      }
    },
    ['api_keys', 'idempotency_records', 'multi_role_launches'],
  ],
  [
    'list V4 launches as a wallet key, a partner root and a subkey, with a cursor',
    asKeys((key) => walk(lanes.v4, key)()),
    ['launches'],
  ],
  [
    'read one V4 launch as each credential',
    asKeys((key) => call(`${url}${lanes.v4}/${v4LaunchId}`, { headers: auth(key) })),
    ['launches'],
  ],
  ['list base-layer V3 launches with a cursor', asKeys((key) => walk(lanes.v3, key)()), ['v3_launches']],
  [
    'read one V3 launch',
    asKeys((key) => call(`${url}${lanes.v3}/${v3LaunchId}`, { headers: auth(key) })),
    ['v3_launches'],
  ],
  ['list shared-lane launches with a cursor', asKeys((key) => walk(lanes.shared, key)()), ['multi_role_launches']],
  [
    'read one shared-lane launch',
    asKeys((key) => call(`${url}${lanes.shared}/${sharedLaunchId}`, { headers: auth(key) })),
    ['multi_role_launches'],
  ],
  ['the V4 finalized feed with a cursor', walk('/v4/chains/4663/finalized-custom-launches'), ['finalized_feed']],
  ['the base-layer finalized feed with a cursor', walk('/v3/finalized-custom-launches'), ['v3_finalized_feed']],
  ["the shared lane's finalized feed with a cursor", walk(`${lanes.shared}/finalized`), ['multi_role_finalized_feed']],
  [
    'the developer launches with a cursor, the token list, status and manifest',
    async () => {
      const first = await call(`${developerUrl}/api/v2/launches?limit=1`);
      expect(first.status, first.text).toBe(200);
      const next = await call(`${developerUrl}/api/v2/launches?limit=1&cursor=${first.json.nextCursor}`);
      expect(next.status, next.text).toBe(200);
      for (const path of ['/api/v2/token-list', '/api/v2/status', '/api/v2/manifest']) {
        expect((await call(`${developerUrl}${path}`)).status).toBe(200);
      }
    },
    ['public_launches'],
  ],
  [
    'one selection of each tracker (V4, base layer, shared lane)',
    async () => {
      const now = Date.now;
      const v4 = new LaunchTracker({
        db,
        observer: unreachable as never,
        finalityPolicy: {} as never,
        graphFactory: `0x${'00'.repeat(20)}` as Hex,
        now,
        workerId: 'plans',
        pollMs: 1000,
        permitReissueDecisionWindowMs: 60_000,
      });
      const lane = { db, chain: unreachable, now, workerId: 'plans', maxBlocksPerPoll: 10 };
      expect(await v4.tick()).toBe(0);
      expect(await new BaseLayerTracker(lane as unknown as BaseTrackerContext).tick()).toBe(0);
      expect(await new MultiRoleTracker(lane as unknown as MultiRoleTrackerContext).tick()).toBe(0);
    },
    ['launches', 'v3_launches', 'multi_role_launches'],
  ],
  [
    'one batch claim of each lifecycle worker (V4, base layer, shared lane), expired leases and due jobs',
    async () => {
      const claim = { workerId: 'plans', nowMs: Date.now(), leaseMs: 30_000, limit: claimBatchSize };
      const v4 = new LifecycleWorker({
        db,
        lifecycle: config.lifecycle,
        admission: { canonicalPoolManager: config.canonicalPoolManager },
        now: Date.now,
        workerId: 'plans',
      }) as unknown as { claimDue: (limit: number) => unknown[] };
      expect(v4.claimDue(claimBatchSize).length).toBeGreaterThan(0);
      claimLaneJobs(db, baseJobTables, workerStatuses, claim);
      expect(claimLaneJobs(db, multiRoleJobTables, multiRoleWorkerStatuses, claim).length).toBeGreaterThan(0);
    },
    ['lifecycle_jobs', 'v3_lifecycle_jobs', 'multi_role_lifecycle_jobs'],
  ],
];

/** Table names by the alias (or name) a plan line calls them, from the FROM and JOIN clauses of `sql`. */
function aliases(sql: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of sql.matchAll(/\b(?:FROM|JOIN|UPDATE|INTO)\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?/gi)) {
    const table = m[1] as string;
    names.set(table, table);
    const alias = m[2];
    if (alias && !/^(WHERE|SET|ON|ORDER|GROUP|LIMIT|JOIN|LEFT|INNER|CROSS|VALUES|USING|AS)$/i.test(alias)) {
      names.set(alias, table);
    }
  }
  return names;
}

interface PlanLine {
  detail: string;
}

/** What is wrong with a statement's plan: full scans of growing tables, an ORDER BY sorted per page. */
function planProblems(conn: Db, sql: string, growing: Set<string>): string[] {
  const plan = conn.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...placeholders(sql)) as PlanLine[];
  const names = aliases(sql);
  const page = /\bLIMIT\b/i.test(sql) && /\bORDER BY\b/i.test(sql);
  const problems: string[] = [];
  for (const { detail } of plan) {
    const scan = /^SCAN (\w+)(?: USING (?:COVERING )?INDEX (\w+))?/.exec(detail);
    const table = scan ? (names.get(scan[1] as string) ?? scan[1]) : undefined;
    // An index walked in ORDER BY order, with nothing filtered, stops after LIMIT rows: O(page).
    const orderedWalk =
      scan?.[2] !== undefined &&
      ((page && !/\bWHERE\b/i.test(sql)) || wholeWalks.some(([pattern]) => pattern.test(sql)));
    if (table && growing.has(table) && !orderedWalk) problems.push(`${detail} (full scan of ${table})`);
    if (page && /USE TEMP B-TREE FOR (?:RIGHT PART OF )?ORDER BY/.test(detail)) problems.push(`${detail} (page sort)`);
  }
  return problems;
}

/** Null for every parameter of `sql` (EXPLAIN QUERY PLAN needs them bound; the plan does not depend on them). */
function placeholders(sql: string): null[] {
  return Array.from(sql.matchAll(/\?/g), () => null);
}

/** The growing tables this file's plans must reach by index: every table of the migrations but the small ones. */
function growingTables(conn: Db): Set<string> {
  const small = new Set(smallTables.map(([t]) => t));
  const rows = conn
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all() as Array<{ name: string }>;
  return new Set(rows.map((r) => r.name).filter((name) => !small.has(name)));
}

/** Inserts `count` rows of a lane table through the store, copying the shape of a real row with new ids. */
function seedLaneRows(table: 'v3_launches' | 'multi_role_launches', row: Record<string, unknown>, count: number) {
  const columns = Object.keys(row).filter((c) => c !== 'seq');
  const insert = db.prepare(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  );
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const launchId = randomUUID();
    ids.push(launchId);
    insert.run(
      ...columns.map((c) =>
        c === 'launch_id' ? launchId : c === 'intent_claim' || c === 'wallet_nonce' ? null : row[c],
      ),
    );
  }
  return ids;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'custom-launch-plans-'));
  config = {
    ...loadConfig({ CI: 'true' }),
    databasePath: join(dir, 'plans.sqlite'),
    // The feed rows here are placeholders (what is checked is the SQL each read runs, not the items it serves).
    validateResponses: false,
    multiRoleDeploymentPath: new URL('../fixtures/multi-role-deployment.json', import.meta.url).pathname,
  };
  db = recordStatements(openDatabase(config.databasePath, { busyTimeoutMs: config.busyTimeoutMs }));
  const services = buildServices({ db, config, now: Date.now });
  const app = await listenOnLoopback(createApp({ db, config, services }), { timeouts: config.http });
  servers.push(app.server);
  url = app.url;
  developerDb = recordStatements(openReadOnlyDatabase(config.databasePath, { busyTimeoutMs: config.busyTimeoutMs }));
  const developer = await listenOnLoopback(createDeveloperApp({ db: developerDb, config, services }), {
    timeouts: config.http,
    errorHeaders: developerCorsHeaders,
  });
  servers.push(developer.server);
  developerUrl = developer.url;
  plans = openReadOnlyDatabase(config.databasePath);

  walletKey = mintWalletKey(db, {
    wallet: exampleWallet,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    chains: ['4663', '1'],
  }).apiKey;
  const root = mintPartnerRoot(db, {
    name: 'Plans partner',
    wallet: exampleWallet,
    chains: ['4663', '1'],
    expiresAt: '2031-12-31T23:59:59.999Z',
    now: Date.now(),
    budgets: { prepareRequestsPerHour: 1000, readRequestsPerMinute: 1000, subkeyAdminRequestsPerHour: 1000 },
  });
  partnerKey = root.apiKey;
  const issued = await call(`${url}/v1/partner/subkeys`, {
    method: 'POST',
    headers: auth(partnerKey, { 'Idempotency-Key': idem() }),
    body: JSON.stringify({
      displayName: 'plans subkey',
      scopes: ['custom-launch:create', 'custom-launch:read'],
      prepareRequestsPerHour: 100,
      readRequestsPerMinute: 1000,
      expiresAt: '2030-12-31T23:59:59.000Z',
    }),
  });
  expect(issued.status, issued.text).toBe(201);
  subkey = issued.json.apiKey;

  // Two launches of each lane for every credential kind, so every list has a second page.
  for (const key of [walletKey, partnerKey, subkey]) {
    for (let i = 0; i < 2; i++) {
      const v4 = await call(`${url}${lanes.v4}`, {
        method: 'POST',
        headers: auth(key, { 'Idempotency-Key': idem() }),
        body: freshV4Bytes(),
      });
      expect(v4.status, v4.text).toBe(202);
      v4LaunchId = v4.json.launchId;
      const shared = await call(`${url}${lanes.shared}`, {
        method: 'POST',
        headers: auth(key, { 'Idempotency-Key': idem() }),
        body: multiRoleRequestBytes(multiRoleRequest()),
      });
      expect(shared.status, shared.text).toBe(202);
      sharedLaunchId = shared.json.launchId;
    }
  }
  seedFeedsAndV3();
}, 120_000);

/** The base-layer lane needs a chain-1 deployment to create: its rows are copies of a shared-lane row's columns. */
function seedFeedsAndV3(): void {
  const shared = db.prepare('SELECT * FROM multi_role_launches ORDER BY seq LIMIT 1').get() as Record<string, unknown>;
  const v3Columns = db.prepare('SELECT name FROM pragma_table_info(?)').all('v3_launches') as Array<{ name: string }>;
  const v3Row = Object.fromEntries(v3Columns.map(({ name }) => [name, shared[name] ?? null]));
  Object.assign(v3Row, { profile_version: '3.3.0', funding_mode: 'native', request_hash: shared.request_hash });
  for (const owner of db.prepare('SELECT DISTINCT owner_key_id, lineage_id, partner_id FROM launches').all() as Array<
    Record<string, unknown>
  >) {
    v3LaunchId = seedLaneRows('v3_launches', { ...v3Row, ...owner }, 2)[1] as string;
  }
  const feedRow = db.prepare(
    'INSERT INTO finalized_feed (chain_id, launch_id, item_json, finalized_at) VALUES (?, ?, ?, ?)',
  );
  const sharedFeed = db.prepare(
    'INSERT INTO multi_role_finalized_feed (chain_id, launch_id, item_json, finalized_at) VALUES (?, ?, ?, ?)',
  );
  const v3Feed = db.prepare('INSERT INTO v3_finalized_feed (launch_id, item_json, finalized_at) VALUES (?, ?, ?)');
  const registry = db.prepare(
    `INSERT INTO public_launches (lane, launch_id, chain_id, token_address, token_name, token_symbol, token_decimals,
       transaction_hash, block_number, finalized_at, listed_at) VALUES ('v4', ?, '4663', ?, 'Plans', 'PLN', 18, ?, '1',
       ?, ?)`,
  );
  for (let i = 0; i < 3; i++) {
    const at = new Date(Date.UTC(2026, 10, 1 + i)).toISOString();
    feedRow.run('4663', randomUUID(), '{}', at);
    sharedFeed.run('4663', randomUUID(), '{}', at);
    v3Feed.run(randomUUID(), '{}', at);
    registry.run(randomUUID(), `0x${String(i + 1).padStart(40, '1')}`, `0x${'ab'.repeat(32)}`, at, at);
  }
}

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  plans?.close();
  developerDb?.close();
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('query plans of the hot paths', () => {
  it.each(steps)('%s', async (_purpose, drive, want) => {
    executed.length = 0;
    await drive();
    const statements = [...new Set(executed)];
    expect(statements.length).toBeGreaterThan(0);
    const growing = growingTables(plans);
    const problems = statements.flatMap((sql) => planProblems(plans, sql, growing).map((p) => `${p}\n  in: ${sql}`));
    expect(problems).toEqual([]);
    const reached = new Set(
      statements.flatMap((sql) =>
        (plans.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...placeholders(sql)) as PlanLine[]).flatMap(({ detail }) => {
          const m = /^SEARCH (\w+)/.exec(detail);
          return m ? [aliases(sql).get(m[1] as string) ?? (m[1] as string)] : [];
        }),
      ),
    );
    for (const table of want) expect([...reached], `${table} is searched by an index`).toContain(table);
  });
});

describe('the plan check itself', () => {
  it.each([
    ['a filter on no indexed column', 'SELECT launch_id FROM launches WHERE profile = ?', ['SCAN launches']],
    [
      'a page sorted per request',
      'SELECT seq FROM finalized_feed ORDER BY finalized_at DESC LIMIT ?',
      ['SCAN', 'page sort'],
    ],
    [
      'a keyset page over an index',
      'SELECT seq FROM finalized_feed WHERE chain_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
      [],
    ],
    [
      'a first page walked in index order',
      'SELECT seq FROM public_launches ORDER BY finalized_at DESC, seq DESC LIMIT ?',
      [],
    ],
    ['a table that stays small', 'SELECT revision FROM v3_rule_sets WHERE reason = ?', []],
    ['an aliased full scan', 'SELECT l.seq FROM launches l WHERE l.profile = ?', ['SCAN l']],
  ])('%s', (_name, sql, want) => {
    const problems = planProblems(plans, sql, growingTables(plans));
    expect(problems.length > 0).toBe(want.length > 0);
    for (const fragment of want) expect(problems.join('\n')).toContain(fragment);
  });
});
