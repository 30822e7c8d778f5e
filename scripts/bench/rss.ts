/*
 * Section `rss`: the resident memory of the app's server process (VmRSS of its process tree, sampled every 500 ms):
 * idle after start, then its peak and its value at the end of BENCH_RSS_SECONDS (default 60) of mixed load, four
 * loads at once: reads (getCustomLaunchV4 and listCustomLaunchesV4 in turn, 16 connections), durable creates
 * (createCustomLaunchV4, 8 connections, BENCH_RSS_CREATE_RATE a second, default 50, each a distinct intent),
 * maximal preflights (preflightCustomLaunchV4, 8 connections) and a partner root's list, which spends its per-minute
 * read budget (2 connections, 20 a second, under the budget's maximum of 10,000 a minute).
 */
import { type Autocannon, autocannon, createBodySupply, createRequest, figureOf, warmupSeconds } from './harness.ts';
import { maximalRequest } from './preflight.ts';
import { type BenchFigure, type BenchSection, ratioOf, withTarget } from './report.ts';
import { sampleRss } from './server-process.ts';
import { type AppServer, inBenchFolder, seedLaunch, startAppServer, v4 } from './servers.ts';

const rssSeconds = Number(process.env.BENCH_RSS_SECONDS ?? '60');
if (!Number.isInteger(rssSeconds) || rssSeconds < 1)
  throw new Error(`BENCH_RSS_SECONDS must be a positive integer, got "${process.env.BENCH_RSS_SECONDS}"`);
const createRate = Number(process.env.BENCH_RSS_CREATE_RATE ?? '50');
/** A slow answer under this load is a latency to report, not a timeout: autocannon waits 30 s for each. */
const timeout = 30;

/** The four loads of the mix, each an autocannon run against `app`. */
function mixedLoads(app: AppServer, launchId: string, fresh: () => string) {
  const wallet = { Authorization: `Bearer ${app.walletKey}` };
  const partner = { Authorization: `Bearer ${app.partnerRootKey}` };
  const create = createRequest(v4, app.walletKey, fresh);
  const loads: Array<{ id: string; label: string; options: Parameters<Autocannon>[0] }> = [
    {
      id: 'rss.reads',
      label: 'rss load: GET and list, 16 connections',
      options: {
        url: app.url,
        connections: 16,
        duration: rssSeconds,
        timeout,
        requests: [
          { method: 'GET', path: `${v4}/${launchId}`, headers: wallet },
          { method: 'GET', path: `${v4}?limit=20`, headers: wallet },
        ],
      },
    },
    {
      id: 'rss.creates',
      label: `rss load: create, 8 connections, ${createRate}/s`,
      options: {
        url: app.url,
        connections: 8,
        duration: rssSeconds,
        timeout,
        overallRate: createRate,
        requests: [create.request],
      },
    },
    {
      id: 'rss.preflights',
      label: 'rss load: maximal preflight, 8 connections',
      options: {
        url: `${app.url}${v4}/preflight`,
        connections: 8,
        duration: rssSeconds,
        timeout,
        method: 'POST',
        headers: { ...wallet, 'Content-Type': 'application/json' },
        body: maximalRequest(),
      },
    },
    {
      id: 'rss.budgets',
      label: 'rss load: partner list (read budget), 20/s',
      options: {
        url: `${app.url}${v4}?limit=20`,
        connections: 2,
        duration: rssSeconds,
        timeout,
        overallRate: 20,
        headers: partner,
      },
    },
  ];
  return loads;
}

/** Runs the section: idle RSS, then the mixed load with RSS sampled throughout. */
export function run(): Promise<BenchSection> {
  return inBenchFolder('rss', async (dir, keep) => {
    const app = keep(await startAppServer(dir));
    // Idle: after start, before any request, once the start-up work has settled.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idle = app.rssMb();
    const supply = createBodySupply((rssSeconds + warmupSeconds) * createRate + 100);
    const { launchId } = await seedLaunch(app, supply.fresh());
    const loads = mixedLoads(app, launchId, supply.fresh);
    process.stderr.write(`  mixed load for ${rssSeconds} s: ${loads.map((l) => l.id).join(', ')}\n`);
    const rss = sampleRss(app.pid, 500);
    const cpuBefore = app.cpuMs();
    const results = await Promise.all(loads.map((l) => autocannon(l.options)));
    const end = rss.last();
    rss.stop();
    const cpuSeconds = (app.cpuMs() - cpuBefore) / 1000;
    const figures: BenchFigure[] = [
      { id: 'rss.idle', label: 'RSS idle after start', value: idle, unit: 'MB' },
      withTarget({ id: 'rss.peak', label: 'RSS peak under mixed load', value: rss.peak(), unit: 'MB' }, '<= 250'),
      { id: 'rss.end', label: 'RSS at the end of the load', value: end, unit: 'MB' },
      ...loads.map((l, i) => figureOf(l.id, l.label, results[i] as Awaited<ReturnType<Autocannon>>, null)),
    ];
    const section: BenchSection = {
      name: 'rss',
      figures,
      ratios: [],
      notes: [
        `VmRSS of the server process tree, sampled every 500 ms; ${rssSeconds} s of the four loads at once`,
        `server CPU over the load: ${Math.round(cpuSeconds)} s of ${rssSeconds} s; ${supply.madeLate()} create bodies made while loading`,
      ],
    };
    section.ratios.push(ratioOf(section, 'rss.peak/idle', 'RSS peak / idle', 'rss.peak', 'rss.idle'));
    return section;
  });
}
