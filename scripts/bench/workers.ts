/*
 * Section `workers`: the validated GET of one launch (getCustomLaunchV4, spec/openapi/paths/v4-custom-launches.yaml)
 * at 32 connections against the app as `npm start` runs it (bin/server.mjs) with WORKERS=1, then with WORKERS=2
 * (the same SQLite file, launch and key), BENCH_SECONDS each after a warm-up. Each figure carries the workers' CPU ms per request and the
 * cluster primary's (the route budgets' counting over IPC, src/cluster/route-windows.ts), read from /proc. Runnable
 * alone: `npx tsx scripts/bench/workers.ts` prints the section as JSON.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { autocannon, connections, seconds } from './harness.ts';
import { type BenchFigure, type BenchSection, ratioOf } from './report.ts';
import { cpuMsOf, ownCpuMsOf, type ServerProcess } from './server-process.ts';
import { type AppServer, inBenchFolder, seedLaunch, startAppServer } from './servers.ts';

const exampleBody = readFileSync(
  new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url),
  'utf8',
);

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
  server: ServerProcess,
  workers: number,
  load: Omit<Parameters<typeof autocannon>[0], 'duration'>,
  duration: number,
  tally: Tally,
): Promise<void> {
  // With WORKERS=1 the process serves; in a cluster its workers (its children) serve and the primary counts budgets.
  const primary = () => (workers > 1 ? ownCpuMsOf(server.pid) : 0);
  const served = () => cpuMsOf(server.pid) - primary();
  const before = { servers: served(), primary: primary() };
  process.stderr.write(`  GET with WORKERS=${workers}: ${duration} s\n`);
  const r = await autocannon({ ...load, duration });
  tally.requests += r.requests.total;
  tally.seconds += duration;
  tally.p99 = Math.max(tally.p99, r.latency.p99);
  tally.non2xx += r.non2xx;
  tally.errors += r.errors + r.timeouts;
  tally.serverCpuMs += served() - before.servers;
  tally.primaryCpuMs += primary() - before.primary;
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
async function alternate(
  servers: Array<[number, ServerProcess]>,
  path: string,
  apiKey: string,
): Promise<BenchFigure[]> {
  const load = (server: ServerProcess) => ({
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

/** Runs the section: a WORKERS=1 process and a WORKERS=2 cluster over one file, measured in alternating slices. */
export async function run(): Promise<BenchSection> {
  return inBenchFolder('workers', async (dir, keep) => {
    const one: AppServer = keep(await startAppServer(dir, { WORKERS: '1', VALIDATE_RESPONSES: 'false' }));
    const { launchId } = await seedLaunch(one, exampleBody);
    const apiKey = one.walletKey;
    const path = `/v4/chains/4663/custom-launches/${launchId}`;
    const two = keep(await startAppServer(dir, { WORKERS: '2', VALIDATE_RESPONSES: 'false' }));
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
        'the app as npm start runs it (bin/server.mjs) with WORKERS=1 and one with WORKERS=2 over the same SQLite file, launch and key',
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
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await run(), null, 2));
}
