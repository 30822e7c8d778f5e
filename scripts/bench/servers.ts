/*
 * The servers a bench section compares, each its own process: the real app (`node bin/server.mjs`, the prebuilt
 * bundle of src/main.ts, as `npm start` runs it) on a fresh SQLite file with its keys minted before it opens the
 * file, and the baselines of scripts/bench/floor.ts (the framework floor and the bare node:http read). Every server
 * listens on 127.0.0.1, port 0, and is found by its listening line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { mintPartnerRoot, mintWalletKey, rootBudgetMaxima, walletScopes } from '../../src/auth/keys.ts';
import { openDatabase } from '../../src/store/db.ts';
import { projectRoot, type ServerProcess, type SpawnOptions, spawnServer } from './server-process.ts';

/** The devnet's first funded account: the launch wallet of the spec's V4 example request. */
export const benchWallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** Variables that would bind the server to a chain; the bench servers run without one. */
const chainVariables = [
  'CHAIN_4663_RPC_URLS',
  'CHAIN_1_RPC_URLS',
  'CHAIN_DEPLOYMENT_PATH',
  'BASE_DEPLOYMENT_PATH',
  'MULTI_ROLE_DEPLOYMENT_PATH',
  'PERMIT_ATTESTER_KEY',
  'PRICE_FEED_ADDRESS',
];

/** Response validation as the app measured runs it (VALIDATE_RESPONSES, default false: the production default). */
export const validateResponses = process.env.VALIDATE_RESPONSES === 'true' ? 'true' : 'false';

/**
 * The environment of a bench server: the caller's, without a chain, on port 0 without the developer API, with the
 * admission quota at its maximum (1,000,000 an hour and a day) and the route budget far above what a run reaches, so
 * the figures measure work rather than refusals.
 */
export function serverEnv(
  databasePath: string,
  extra: Record<string, string> = {},
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of chainVariables) delete env[name];
  return {
    ...env,
    HOST: '127.0.0.1',
    PORT: '0',
    DEVELOPERS_PORT: 'off',
    DATABASE_PATH: databasePath,
    ADMISSION_PER_HOUR: '1000000',
    ADMISSION_PER_DAY: '1000000',
    ROUTE_BUDGET_PER_MINUTE: '1000000000',
    VALIDATE_RESPONSES: validateResponses,
    ...extra,
  };
}

/**
 * BENCH_PROFILE=1: the node flags that make a server write a CPU profile as it exits, under
 * build/profiles/<section>-<server>/ (the section read from the name of its folder `dir`), for
 * scripts/bench/profile-summary.ts.
 */
function profileFlags(dir: string, server: string): string[] {
  if (process.env.BENCH_PROFILE !== '1') return [];
  const section = /^custom-launch-bench-([a-z]+)-/.exec(basename(dir))?.[1] ?? 'bench';
  return ['--cpu-prof', `--cpu-prof-dir=${join(projectRoot, 'build', 'profiles', `${section}-${server}`)}`];
}

/** What a section's body keeps to be stopped: a server it started, handed back unchanged. */
export type Keep = <S extends ServerProcess>(server: S) => S;

/**
 * Runs a section's `body` in a new temporary folder (its SQLite files, the floors' fixed bodies); every server the
 * body passes to `keep` is stopped, the last started first, and the folder removed, however the body ends.
 */
export async function inBenchFolder<T>(name: string, body: (dir: string, keep: Keep) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `custom-launch-bench-${name}-`));
  const servers: ServerProcess[] = [];
  try {
    return await body(dir, (server) => {
      servers.push(server);
      return server;
    });
  } finally {
    for (const server of servers.reverse()) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The node flags of `npm start` (package.json `scripts.start`: `node <flags> bin/server.mjs`). */
export function npmStartNodeFlags(): string[] {
  const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const words = manifest.scripts.start.trim().split(/\s+/);
  if (words[0] !== 'node' || words.at(-1) !== 'bin/server.mjs') {
    throw new Error(`package.json scripts.start is not "node <flags> bin/server.mjs": ${manifest.scripts.start}`);
  }
  return words.slice(1, -1);
}

/**
 * How a bench starts the app as `npm start` runs it (its node flags, bin/server.mjs), over `databasePath` (in a
 * section's folder, which names its profile folder under BENCH_PROFILE=1) with serverEnv and `env` added.
 */
export function appServerOptions(databasePath: string, env: Record<string, string> = {}): SpawnOptions {
  return {
    command: process.execPath,
    args: [...npmStartNodeFlags(), ...profileFlags(dirname(databasePath), 'app'), 'bin/server.mjs'],
    env: serverEnv(databasePath, env),
    listening: 'custom-launch-api listening',
    // A WORKERS=N cluster is ready once each of its workers logged its own listening line.
    listeners: Number(env.WORKERS ?? '1'),
  };
}

/** A running app process with a wallet key (every wallet scope on 4663) and a partner root at the budget maxima. */
export interface AppServer extends ServerProcess {
  databasePath: string;
  walletKey: string;
  partnerRootKey: string;
}

/** Starts the app as `npm start` runs it, on `dir`/app.sqlite with its keys minted first; `env` is added. */
export async function startAppServer(dir: string, env: Record<string, string> = {}): Promise<AppServer> {
  const databasePath = join(dir, 'app.sqlite');
  const db = openDatabase(databasePath);
  let walletKey: string;
  let partnerRootKey: string;
  try {
    walletKey = mintWalletKey(db, { wallet: benchWallet, scopes: walletScopes, chains: ['4663'] }).apiKey;
    partnerRootKey = mintPartnerRoot(db, {
      name: 'Bench partner',
      wallet: benchWallet,
      chains: ['4663'],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      now: Date.now(),
      budgets: { ...rootBudgetMaxima },
    }).apiKey;
  } finally {
    db.close();
  }
  const server = await spawnServer(appServerOptions(databasePath, env));
  return { ...server, databasePath, walletKey, partnerRootKey };
}

/** What a floor answers: the bytes of one GET and of one 202, written to files the floor process reads. */
export interface FloorBodies {
  launchId: string;
  getBytes: string;
  createBytes: string;
}

/**
 * Starts a baseline of scripts/bench/floor.ts: `express` (Express 5 and express-openapi-validator over the app's
 * dereferenced spec, fixed answers), `express-memo` (the same with the validator's metadata step memoized as the app
 * memoizes it) or `bare` (node:http, one indexed read of `databasePath`, the same bytes).
 */
export async function startFloorServer(
  kind: 'express' | 'express-memo' | 'bare',
  dir: string,
  bodies: FloorBodies,
  databasePath: string,
): Promise<ServerProcess> {
  const getPath = join(dir, 'floor-get.json');
  const createPath = join(dir, 'floor-create.json');
  writeFileSync(getPath, bodies.getBytes);
  writeFileSync(createPath, bodies.createBytes);
  return spawnServer({
    command: process.execPath,
    args: [...profileFlags(dir, `floor-${kind}`), '--import', 'tsx', 'scripts/bench/floor.ts'],
    env: serverEnv(databasePath, {
      BENCH_FLOOR: kind,
      BENCH_FLOOR_LAUNCH_ID: bodies.launchId,
      BENCH_FLOOR_GET_BODY: getPath,
      BENCH_FLOOR_CREATE_BODY: createPath,
    }),
    listening: 'bench floor listening',
  });
}

/** The V4 launch collection of chain 4663 (spec/openapi/paths/v4-custom-launches.yaml). */
export const v4 = '/v4/chains/4663/custom-launches';

/**
 * Creates one launch on `app` (createCustomLaunchV4 with the body `body`) and reads it back (getCustomLaunchV4):
 * its id and the exact bytes of the 202 and of the GET, which the floors answer with.
 */
export async function seedLaunch(app: AppServer, body: string): Promise<FloorBodies> {
  const headers = { Authorization: `Bearer ${app.walletKey}`, 'Content-Type': 'application/json' };
  const created = await fetch(`${app.url}${v4}`, {
    method: 'POST',
    headers: { ...headers, 'Idempotency-Key': `bench-seed-${Date.now()}` },
    body,
  });
  const createBytes = await created.text();
  if (created.status !== 202) throw new Error(`the seed create answered ${created.status}: ${createBytes}`);
  const { launchId } = JSON.parse(createBytes) as { launchId: string };
  const read = await fetch(`${app.url}${v4}/${launchId}`, { headers });
  const getBytes = await read.text();
  if (read.status !== 200) throw new Error(`the seed read answered ${read.status}: ${getBytes}`);
  return { launchId, getBytes, createBytes };
}
