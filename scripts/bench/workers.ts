/*
 * Section `workers`: the validated GET of one launch (getCustomLaunchV4, spec/openapi/paths/v4-custom-launches.yaml)
 * at 32 connections against a real `src/main.ts` process with WORKERS=1, then with WORKERS=2 (the same SQLite file,
 * launch and key), BENCH_SECONDS each after a warm-up. Each figure carries the workers' CPU ms per request and the
 * cluster primary's (the route budgets' counting over IPC, src/cluster/route-windows.ts), read from /proc. Runnable
 * alone: `npx tsx scripts/bench/workers.ts` prints the section as JSON.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mintWalletKey } from '../../src/auth/keys.ts';
import { openDatabase } from '../../src/store/db.ts';
import { autocannon, connections, seconds } from './harness.ts';
import { type BenchFigure, type BenchSection, ratioOf } from './report.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const v4 = '/v4/chains/4663/custom-launches';
const clockTicksPerMs = 100 / 1000;

/** CPU milliseconds (user + system) `pid` has used, from /proc/<pid>/stat; 0 once it is gone. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerMs;
  } catch {
    return 0;
  }
}

interface Server {
  url: string;
  primary: ChildProcess;
  /** The pids that serve requests: the process itself with WORKERS=1, else the cluster's workers. */
  servers: number[];
  stop(): Promise<void>;
}

/** `src/main.ts` with `workers` processes on port 0 over `databasePath`; resolves once every worker listens. */
async function startServer(databasePath: string, workers: number): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DEVELOPERS_PORT: 'off',
      DATABASE_PATH: databasePath,
      WORKERS: String(workers),
      VALIDATE_RESPONSES: 'false',
      // Budgets far above what a run can reach: the figures measure work, while every request is still counted.
      ROUTE_BUDGET_PER_MINUTE: '1000000000',
      ADMISSION_PER_HOUR: '1000000',
      ADMISSION_PER_DAY: '1000000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const listening = /"msg":"custom-launch-api listening","url":"([^"]+)".*?"pid":(\d+)/g;
  const { url, pids } = await new Promise<{ url: string; pids: number[] }>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const lines = [...out.matchAll(listening)];
      if (lines.length >= workers) resolve({ url: lines[0]?.[1] as string, pids: lines.map((m) => Number(m[2])) });
    });
    child.once('exit', (code) => reject(new Error(`the server exited early with ${code}: ${out}`)));
    setTimeout(() => reject(new Error(`the server did not start within 60 s: ${out}`)), 60_000).unref();
  });
  return {
    url,
    primary: child,
    servers: pids,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The sums of a server's measured slices: answers, seconds, the worst p99, and CPU ms of its processes. */
interface Tally {
  requests: number;
  seconds: number;
  p99: number;
  non2xx: number;
  errors: number;
  serverCpuMs: number;
  primaryCpuMs: number;
}

/** One measured slice of GET load against `server`, added to `tally`. */
async function measureSlice(
  server: Server,
  workers: number,
  load: Omit<Parameters<typeof autocannon>[0], 'duration'>,
  duration: number,
  tally: Tally,
): Promise<void> {
  const primaryPid = server.primary.pid as number;
  const served = () => server.servers.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const before = { servers: served(), primary: workers > 1 ? cpuMs(primaryPid) : 0 };
  process.stderr.write(`  GET with WORKERS=${workers}: ${duration} s\n`);
  const r = await autocannon({ ...load, duration });
  tally.requests += r.requests.total;
  tally.seconds += duration;
  tally.p99 = Math.max(tally.p99, r.latency.p99);
  tally.non2xx += r.non2xx;
  tally.errors += r.errors + r.timeouts;
  tally.serverCpuMs += served() - before.servers;
  if (workers > 1) tally.primaryCpuMs += cpuMs(primaryPid) - before.primary;
}

/** A server's figure from its tally, with the serving processes' and the primary's CPU ms per request. */
function figureOf(workers: number, t: Tally): BenchFigure {
  const perRequest = (ms: number) => (t.requests === 0 ? Number.NaN : Math.round((ms / t.requests) * 1000) / 1000);
  return {
    id: `workers.get.${workers}`,
    label: `GET: app getCustomLaunchV4, WORKERS=${workers}`,
    value: Math.round(t.requests / t.seconds),
    unit: 'req/s',
    detail: {
      p99: t.p99,
      requests: t.requests,
      non2xx: t.non2xx,
      errors: t.errors,
      serverCpuMsPerRequest: perRequest(t.serverCpuMs),
      primaryCpuMsPerRequest: perRequest(t.primaryCpuMs),
    },
  };
}

/**
 * The GET of `path` against each server, measured in alternating slices (WORKERS=1, WORKERS=2, and again) after a
 * warm-up of each, so a change in the shared machine's load falls on both alike.
 */
async function alternate(servers: Array<[number, Server]>, path: string, apiKey: string): Promise<BenchFigure[]> {
  const load = (server: Server) => ({
    url: `${server.url}${path}`,
    connections,
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  const tallies = servers.map(() => ({
    requests: 0,
    seconds: 0,
    p99: 0,
    non2xx: 0,
    errors: 0,
    serverCpuMs: 0,
    primaryCpuMs: 0,
  }));
  for (const [, server] of servers) await autocannon({ ...load(server), duration: 1 });
  const slices = seconds >= 2 ? 2 : 1;
  for (let slice = 0; slice < slices; slice++) {
    for (const [i, [workers, server]] of servers.entries()) {
      await measureSlice(server, workers, load(server), Math.ceil(seconds / slices), tallies[i] as Tally);
    }
  }
  return servers.map(([workers], i) => figureOf(workers, tallies[i] as Tally));
}

/** Mints the bench's wallet key into the file and stores one launch through `server`: the key and the GET's path. */
async function seed(databasePath: string, server: Server): Promise<{ apiKey: string; path: string }> {
  const db = openDatabase(databasePath);
  const { apiKey } = mintWalletKey(db, {
    wallet,
    scopes: ['custom-launch:create', 'custom-launch:read'],
    chains: ['4663'],
  });
  db.close();
  const created = await fetch(`${server.url}${v4}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${apiKey}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': `bench-${randomUUID()}`,
    },
    body: readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url), 'utf8'),
  });
  if (created.status !== 202) throw new Error(`the seed create answered ${created.status}: ${await created.text()}`);
  const { launchId } = (await created.json()) as { launchId: string };
  return { apiKey, path: `${v4}/${launchId}` };
}

/** Runs the section: a WORKERS=1 process and a WORKERS=2 cluster over one file, measured in alternating slices. */
export async function run(): Promise<BenchSection> {
  const dir = mkdtempSync(join(tmpdir(), 'custom-launch-bench-workers-'));
  const databasePath = join(dir, 'bench.sqlite');
  const running: Server[] = [];
  try {
    const one = await startServer(databasePath, 1);
    running.push(one);
    const { apiKey, path } = await seed(databasePath, one);
    const two = await startServer(databasePath, 2);
    running.push(two);
    const section: BenchSection = {
      name: 'workers',
      figures: await alternate(
        [
          [1, one],
          [2, two],
        ],
        path,
        apiKey,
      ),
      ratios: [],
      notes: [
        `${connections} connections, ${seconds} s each in two alternating slices after a 1 s warm-up each`,
        'a real src/main.ts (tsx) with WORKERS=1 and one with WORKERS=2 over the same SQLite file, launch and key',
        'validateResponses=false; route budgets counted (the cluster counts in its primary over IPC)',
        'serverCpuMsPerRequest: the serving processes; primaryCpuMsPerRequest: the cluster primary (budget IPC)',
      ],
    };
    section.ratios.push(
      ratioOf(section, 'workers.get', 'GET WORKERS=2 / WORKERS=1 (req/s)', 'workers.get.2', 'workers.get.1', {
        target: '>= 1.6',
      }),
    );
    return section;
  } finally {
    for (const server of running.reverse()) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await run(), null, 2));
}
