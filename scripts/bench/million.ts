/*
 * The `million` bench section: the V4 launch list and the V4 finalized feed stay O(page) as the store grows. Two
 * SQLite files hold copies of one real launch (created through the app, then its row copied with new ids and seq):
 * 1,000 launches in one and 1,000,000 in the other, each with its lifecycle job and its finalized-feed row, seeded in
 * one transaction per file. A server process (`node bin/server.mjs`, as `npm start` runs it) serves each file; the
 * bench reads the first page and a page halfway down the cursor walk of the list and of the feed from both, in
 * alternating rounds over one connection each, and reports p50 and p99 beside the 1k figure. `npx tsx scripts/bench/million.ts` runs
 * this section alone and prints it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { loadConfig } from '../../src/config.ts';
import { encodeCursor } from '../../src/domain/cursor.ts';
import { createApp } from '../../src/http/app.ts';
import { schemaProblems } from '../../src/spec/schema-registry.ts';
import { openDatabase } from '../../src/store/db.ts';
import { exampleWallet, freshV4Bytes } from '../../test/support/server.ts';
import { type BenchFigure, type BenchSection, ratioOf } from './report.ts';
import { spawnServer } from './server-process.ts';
import { appServerOptions, inBenchFolder } from './servers.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? '10');
const small = 1_000;
/** The large file's launches (BENCH_MILLION_ROWS lowers it for a quick trial of the section). */
const large = Number(process.env.BENCH_MILLION_ROWS ?? '1000000');
const pageLimit = 25;
/** The stored request bytes of each seeded launch (the 27 KB create would make the 1M file about 30 GB). */
const requestBytesPerRow = 1024;
const chain = '4663';

/** One launch as the app stored it: its launch, lifecycle job and api key rows, and the key's secret. */
interface Template {
  apiKey: string;
  keyRow: Record<string, unknown>;
  launch: Record<string, unknown>;
  job: Record<string, unknown>;
  feedItem: Record<string, unknown>;
}

/** Creates one V4 launch through the app (in this process, over HTTP) on `path` and reads back its stored rows. */
async function createTemplate(path: string): Promise<Template> {
  const config = { ...loadConfig({}), databasePath: path, validateResponses: true };
  const db = openDatabase(path);
  const { apiKey, principal } = mintWalletKey(db, {
    wallet: exampleWallet,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    chains: [chain],
  });
  const server = createApp({ db, config }).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const body = freshV4Bytes();
  const r = await fetch(
    `http://127.0.0.1:${(server.address() as AddressInfo).port}/v4/chains/${chain}/custom-launches`,
    {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${apiKey}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': randomUUID(),
      },
      body,
    },
  );
  const created = (await r.json()) as { launchId: string };
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (r.status !== 202) throw new Error(`million: the template create answered ${r.status}`);
  const launch = db.prepare('SELECT * FROM launches WHERE launch_id = ?').get(created.launchId) as Record<
    string,
    unknown
  >;
  const job = db.prepare('SELECT * FROM lifecycle_jobs WHERE launch_id = ?').get(created.launchId) as Record<
    string,
    unknown
  >;
  const keyRow = db.prepare('SELECT * FROM api_keys WHERE key_id = ?').get(principal.keyId) as Record<string, unknown>;
  db.close();
  const request = JSON.parse(body) as CustomLaunchCreateRequestV4;
  return { apiKey, keyRow, launch, job, feedItem: finalizedItem(request) };
}

/** A finalized-feed item of the template's shape (the tracker's item: every source component queued). */
function finalizedItem(request: CustomLaunchCreateRequestV4): Record<string, unknown> {
  const at = '2026-11-25T00:00:00.000Z';
  const item = {
    launchId: randomUUID(),
    chainId: chain,
    caip2: `eip155:${chain}`,
    profile: request.profile,
    finalizedAt: at,
    transactionHash: `0x${'ab'.repeat(32)}`,
    blockNumber: '123456',
    blockHash: `0x${'cd'.repeat(32)}`,
    router: `0x${'12'.repeat(20)}`,
    finalityPolicy: {
      schemaVersion: 'platform.custom-launch-finality-policy-ref.v1',
      policyId: 'l2-block-finalized',
      policyRevision: 1,
      policyDigest: `sha256:${'ef'.repeat(32)}`,
    },
    sourceVerification: {
      status: 'queued',
      updatedAt: at,
      components: request.graphBundle.targets
        .map((t) => t.targetId)
        .sort()
        .map((targetId) => ({ targetId, status: 'queued', updatedAt: at, nextAttemptAt: at })),
    },
  };
  const problems = schemaProblems('custom-launch-finalized-list.v4.schema.json#/$defs/FinalizedLaunch', item);
  if (problems.length > 0) throw new Error(`million: the feed item is not valid: ${problems.join('; ')}`);
  return item;
}

/**
 * Fills `path` (a new file, migrated by openDatabase) with `count` launches copied from the template, each with its
 * lifecycle job (idle, so the server's lifecycle worker leaves it) and its finalized-feed row, in one transaction.
 * Resolves the seconds it took, by the wall clock and in this process's CPU time (the machine may be shared).
 */
function seed(path: string, template: Template, count: number): { wallS: number; cpuS: number } {
  openDatabase(path).close();
  const db = new Database(path);
  // Setup only: the seeded file is thrown away, so its bulk load skips the disk syncs and the WAL's second write.
  db.pragma('journal_mode = DELETE');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -1000000');
  const insert = (table: string, row: Record<string, unknown>) => {
    const columns = Object.keys(row);
    const stmt = db.prepare(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    );
    return { columns, run: (values: unknown[]) => stmt.run(values) };
  };
  insert('api_keys', template.keyRow).run(Object.values(template.keyRow));
  const { seq: _seq, ...launchRow } = template.launch;
  const launch = insert('launches', launchRow);
  const job = insert('lifecycle_jobs', { ...template.job, state: 'idle', next_attempt_ms: null });
  const feed = db.prepare(
    'INSERT INTO finalized_feed (chain_id, launch_id, item_json, finalized_at) VALUES (?, ?, ?, ?)',
  );
  const [itemHead, itemTail] = JSON.stringify({ ...template.feedItem, launchId: '\u0000' }).split('\\u0000');
  const requestBytes = Buffer.from(`{"seeded":true,"padding":"${'x'.repeat(requestBytesPerRow - 32)}"}`, 'utf8');
  const launchValues = launch.columns.map((c) => (c === 'request_bytes' ? requestBytes : launchRow[c]));
  const jobValues = job.columns.map((c) => (c === 'state' ? 'idle' : c === 'next_attempt_ms' ? null : template.job[c]));
  const at = (column: string, columns: string[]) => columns.indexOf(column);
  const slot = {
    launchId: at('launch_id', launch.columns),
    intent: at('launch_intent_hash', launch.columns),
    claim: at('intent_claim', launch.columns),
    nonce: at('wallet_nonce', launch.columns),
    created: at('created_at', launch.columns),
    updated: at('updated_at', launch.columns),
    jobLaunchId: at('launch_id', job.columns),
    jobUpdated: at('updated_at', job.columns),
  };
  const wallet = String(launchRow.launch_wallet).toLowerCase();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  db.transaction(() => {
    // The secondary indexes are built once after the load (a sort) rather than row by row, from their own SQL.
    const indexes = db
      .prepare(
        `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
           AND tbl_name IN ('launches', 'lifecycle_jobs', 'finalized_feed')`,
      )
      .all() as Array<{ name: string; sql: string }>;
    for (const { name } of indexes) db.exec(`DROP INDEX ${name}`);
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    for (let i = 0; i < count; i++) {
      const launchId = randomUUID();
      const time = new Date(base + i * 1000).toISOString();
      const intent = `0x${randomBytes(32).toString('hex')}`;
      launchValues[slot.launchId] = launchId;
      launchValues[slot.intent] = intent;
      launchValues[slot.claim] = intent;
      launchValues[slot.nonce] = `${wallet}:${i}`;
      launchValues[slot.created] = time;
      launchValues[slot.updated] = time;
      launch.run(launchValues);
      jobValues[slot.jobLaunchId] = launchId;
      jobValues[slot.jobUpdated] = time;
      job.run(jobValues);
      feed.run(chain, launchId, `${itemHead}${launchId}${itemTail}`, time);
    }
    for (const { sql } of indexes) db.exec(sql);
  })();
  const cpu = process.cpuUsage(cpuBefore);
  const wallS = (performance.now() - started) / 1000;
  db.close();
  return { wallS, cpuS: (cpu.user + cpu.system) / 1e6 };
}

/** The two pages read of one list: its first page, and the page after the launch halfway down its walk. */
async function pagesOf(url: string, path: string, apiKey: string, rows: number): Promise<string[]> {
  const first = `${path}?limit=${pageLimit}`;
  const r = await fetch(`${url}${first}`, { headers: { Authorization: `Bearer ${apiKey}` } });
  const page = (await r.json()) as { nextCursor: string | null };
  if (r.status !== 200 || page.nextCursor === null) throw new Error(`million: ${path} answered ${r.status}`);
  const list = (JSON.parse(Buffer.from(page.nextCursor, 'base64url').toString('utf8')) as { l: string }).l;
  return [first, `${first}&cursor=${encodeCursor(list, Math.floor(rows / 2))}`];
}

/** Milliseconds of each GET of `paths`, in turn, `rounds` times, over one keep-alive connection. */
async function timeReads(url: string, paths: string[], apiKey: string, rounds: number): Promise<number[][]> {
  const samples = paths.map(() => [] as number[]);
  for (let i = 0; i < rounds; i++) {
    for (const [n, path] of paths.entries()) {
      const started = performance.now();
      const r = await fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${apiKey}` } });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`million: ${path} answered ${r.status}`);
      samples[n]?.push(performance.now() - started);
    }
  }
  return samples;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, at)] ?? Number.NaN) * 100) / 100;
}

/**
 * Reads the pages of one list from both servers in alternating rounds for about `seconds`, so that the machine's load
 * weighs on both alike. Returns the figures of the 1k and the 1M server.
 */
async function measureList(
  what: 'list' | 'feed',
  servers: Array<{ size: string; url: string; pages: string[] }>,
  apiKey: string,
): Promise<BenchFigure[]> {
  const samples = servers.map(() => [[], []] as number[][]);
  for (const s of servers) await timeReads(s.url, s.pages, apiKey, 50);
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    for (const [n, s] of servers.entries()) {
      const round = await timeReads(s.url, s.pages, apiKey, 20);
      for (const [page, times] of round.entries()) samples[n]?.[page]?.push(...times);
    }
  }
  return servers.map((s, n) => {
    const [first = [], deep = []] = samples[n] ?? [];
    const all = [...first, ...deep];
    return {
      id: `million.${what}.${s.size.toLowerCase()}`,
      label: `V4 ${what === 'list' ? 'launch list' : 'finalized feed'} page at ${s.size} stored (p99)`,
      value: percentile(all, 99),
      unit: 'ms',
      detail: {
        p50: percentile(all, 50),
        p99: percentile(all, 99),
        firstPageP99: percentile(first, 99),
        deepPageP99: percentile(deep, 99),
        requests: all.length,
      },
    };
  });
}

/** The `million` section: see the file's opening comment. */
export async function run(): Promise<BenchSection> {
  return inBenchFolder('million', async (dir, keep) => {
    const paths = { '1k': join(dir, '1k.sqlite'), '1M': join(dir, '1M.sqlite') };
    process.stderr.write('million: creating the template launch ...\n');
    const template = await createTemplate(join(dir, 'template.sqlite'));
    process.stderr.write(`million: seeding ${small} launches ...\n`);
    seed(paths['1k'], template, small);
    process.stderr.write(`million: seeding ${large} launches in one transaction ...\n`);
    const seeding = seed(paths['1M'], template, large);
    const fileMb = Math.round(statSync(paths['1M']).size / 1e6);
    const servers = [];
    for (const [size, path] of Object.entries(paths)) {
      const served = keep(await spawnServer(appServerOptions(path)));
      servers.push({ size, url: served.url, rows: size === '1k' ? small : large });
    }
    const figures: BenchFigure[] = [
      {
        id: 'million.seed',
        label: `seeding ${large} launches with their jobs and feed rows, one transaction (launches/s)`,
        value: Math.round(large / seeding.wallS),
        unit: 'rows/s',
        detail: {
          seconds: Math.round(seeding.wallS * 10) / 10,
          cpuSeconds: Math.round(seeding.cpuS * 10) / 10,
          launchesPerCpuSecond: Math.round(large / seeding.cpuS),
          fileMb,
        },
      },
    ];
    for (const what of ['list', 'feed'] as const) {
      const path =
        what === 'list' ? `/v4/chains/${chain}/custom-launches` : `/v4/chains/${chain}/finalized-custom-launches`;
      const withPages = [];
      for (const s of servers) withPages.push({ ...s, pages: await pagesOf(s.url, path, template.apiKey, s.rows) });
      process.stderr.write(`million: reading ${what} pages for ${seconds} s ...\n`);
      figures.push(...(await measureList(what, withPages, template.apiKey)));
    }
    const section = { figures };
    return {
      name: 'million',
      figures,
      ratios: [
        ratioOf(
          section,
          'million.list',
          'launch list page p99, 1M over 1k stored',
          'million.list.1m',
          'million.list.1k',
          { target: '<= 2' },
        ),
        ratioOf(
          section,
          'million.feed',
          'finalized feed page p99, 1M over 1k stored',
          'million.feed.1m',
          'million.feed.1k',
          { target: '<= 2' },
        ),
      ],
      notes: [
        `${large} and ${small} V4 launches (copies of one real create, request bytes ${requestBytesPerRow} B each), ` +
          `each with its lifecycle job and finalized-feed row; the ${large} file ${fileMb} MB`,
        `pages of ${pageLimit}: the first and the one after the launch halfway down the walk, one connection per ` +
          `server, alternating 1k/1M rounds for ${seconds} s per list`,
        `load average at the end ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      ],
    };
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await run(), null, 2));
}
