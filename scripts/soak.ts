/*
 * `make soak`: SOAK_SECONDS (default 600) of mixed traffic at SOAK_CONNECTIONS (default 32) against the `make start`
 * stack (both devnets and the server, on the soak's own ports and a fresh SQLite file under build/soak/), while a
 * driver moves launches through the lifecycle on the devnet. Every SOAK_REPORT_SECONDS (default 60) it prints the
 * requests by status class, the launches by status and the server's RSS. At the end it checks: no 5xx and no request
 * left unanswered (each printed with its requestId and body), no launch stuck (each launch is final, or waits for a
 * reason printed here), and the server's RSS at the end at most 1.3 x its RSS after the warm-up (the first
 * SOAK_WARMUP_SECONDS, default 60; each the median of 30 s of samples). Figures are printed and written to build/soak.json; any breach exits 1.
 * docs/soak.md describes the traffic and the settings.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { chainDriver, terminalStatuses } from './soak/driver.ts';
import { type AnswerBody, Recorder } from './soak/recorder.ts';
import { hookSaltSupply, packTemplate } from './soak/requests.ts';
import { projectRoot, rssBytes, type SoakStack, startSoakStack } from './soak/stack.ts';
import { ownerKey, soakTraffic, type TrafficState } from './soak/traffic.ts';

function setting(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  return value;
}

const seconds = setting('SOAK_SECONDS', 600);
const settings = {
  seconds,
  connections: setting('SOAK_CONNECTIONS', 32),
  warmupSeconds: setting('SOAK_WARMUP_SECONDS', Math.min(60, Math.floor(seconds / 2))),
  reportSeconds: setting('SOAK_REPORT_SECONDS', 60),
  createsPerSecond: setting('SOAK_CREATES_PER_SECOND', 1, 0),
  subkeyWritesPerSecond: setting('SOAK_SUBKEY_WRITES_PER_SECOND', 1, 0),
  chainInFlight: setting('SOAK_CHAIN_IN_FLIGHT', 4),
  settleSeconds: setting('SOAK_SETTLE_SECONDS', 300, 0),
  rssRatioBound: 1.3,
};
const ports = {
  server: setting('SOAK_PORT', 28787),
  developers: setting('SOAK_DEVELOPERS_PORT', 28788),
  devnet: setting('SOAK_DEVNET_PORT', 28545),
  baseDevnet: setting('SOAK_BASE_DEVNET_PORT', 28546),
};
const outDir = join(projectRoot, 'build');
const mb = (bytes: number | null) => (bytes === null ? null : Math.round((bytes / 1048576) * 10) / 10);

/** Why a launch that is not final is waiting, when that wait is expected of this soak; null: it is stuck. */
function documentedWait(launch: AnswerBody, onChain: boolean, backlogDraining: boolean): string | null {
  const queue = launch.lifecycleQueue;
  if (!onChain && launch.status === 'validating' && queue?.lastErrorCode === 'SOURCE_FILES_PENDING') {
    return 'validating, SOURCE_FILES_PENDING: the permit waits for the source files, and the soak delivers them only for the launches its driver takes on chain';
  }
  const queued =
    ['received', 'validating'].includes(launch.status ?? '') && ['scheduled', 'running'].includes(queue?.state ?? '');
  if (backlogDraining && queued) {
    return "queued: the lifecycle worker's backlog was still draining when the settle time ended (see workerBacklog)";
  }
  return null;
}

/** Reads every launch the soak created with the key that may read it; classifies final, documented waits, stuck. */
async function census(stack: SoakStack, state: TrafficState, backlogDraining: boolean) {
  const recorder = new Recorder();
  const byStatus: Record<string, number> = {};
  const waits: Record<string, number> = {};
  const stuck: Array<{ launchId: string; status: string; lifecycleQueue: unknown }> = [];
  for (const [launchId, { owner, onChain }] of state.launches) {
    const r = await recorder.send('census', `${stack.url}/v4/chains/4663/custom-launches/${launchId}`, {
      headers: { Authorization: `Bearer ${ownerKey(stack, owner)}` },
    });
    const status = r?.status === 200 ? (r.json.status as string) : `unreadable (${r?.status ?? 'no answer'})`;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    if (terminalStatuses.includes(status)) continue;
    const why = r?.status === 200 ? documentedWait(r.json, onChain, backlogDraining) : null;
    if (why) waits[why] = (waits[why] ?? 0) + 1;
    else stuck.push({ launchId, status, lifecycleQueue: r?.json?.lifecycleQueue ?? null });
  }
  return { byStatus, waits, stuck, readErrors: recorder.breaches };
}

/** Launches by status as the server's file holds them (read-only), and how many jobs are still due. */
function launchesInFile(db: Database.Database) {
  const rows = db.prepare('SELECT status, count(*) AS n FROM launches GROUP BY status ORDER BY status').all() as Array<{
    status: string;
    n: number;
  }>;
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Launches before the wallet step whose job is due, running or waiting to retry: the worker's backlog. */
function workerBacklog(db: Database.Database): number {
  return (
    db
      .prepare(
        `SELECT count(*) AS n FROM launches l JOIN lifecycle_jobs j ON j.launch_id = l.launch_id
         WHERE l.status IN ('received', 'validating') AND j.state <> 'idle'`,
      )
      .get() as { n: number }
  ).n;
}

/**
 * Waits until the worker's backlog is empty (or `deadline`). Answers the backlog when traffic ended, what is left,
 * the seconds it took to drain (null when it did not), and whether it was still shrinking over its last 30 s.
 */
async function untilWorkerIdle(db: Database.Database, deadline: number, atTrafficEnd: number, trafficEnd: number) {
  const samples: number[] = [atTrafficEnd];
  while (Date.now() < deadline && (samples.at(-1) as number) > 0) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    samples.push(workerBacklog(db));
  }
  const left = samples.at(-1) as number;
  const thirtySecondsAgo = samples[Math.max(0, samples.length - 31)] as number;
  return {
    atTrafficEnd,
    left,
    drainSeconds: left === 0 ? Math.round((Date.now() - trafficEnd) / 1000) : null,
    drainedPerSecond: Math.round(((atTrafficEnd - left) / Math.max(1, samples.length - 1)) * 100) / 100,
    stillDraining: left > 0 && left < thirtySecondsAgo,
  };
}

/** Seconds of RSS samples (one every 5 s) whose median stands for a moment: one sample can catch a compile's peak. */
const rssWindowSeconds = 30;

function median(values: number[]): number | null {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  return sorted.length === 0 ? null : (sorted[Math.floor(sorted.length / 2)] as number);
}

/**
 * The RSS after the warm-up (the median of the samples in the window that starts there) and at the end (the median
 * of the last window of the traffic), in bytes. The server compiles each on-chain launch's sources in a worker
 * thread, so a single sample may catch solc's transient memory.
 */
function rssWindows(samples: Array<{ atSeconds: number; rssMb: number | null }>) {
  const inWindow = (from: number) =>
    samples
      .filter((s) => s.rssMb !== null && s.atSeconds >= from && s.atSeconds <= from + rssWindowSeconds)
      .map((s) => (s.rssMb as number) * 1048576);
  return {
    warmupRss: median(inWindow(settings.warmupSeconds)),
    endRss: median(inWindow(Math.max(settings.warmupSeconds, settings.seconds - rssWindowSeconds))),
  };
}

async function main(): Promise<number> {
  console.log(`soak: ${JSON.stringify({ settings, ports })}`);
  const stack = await startSoakStack(join(outDir, 'soak'), ports);
  const db = new Database(stack.databasePath, { readonly: true, fileMustExist: true });
  try {
    return await soak(stack, db);
  } finally {
    db.close();
    await stack.stop();
  }
}

async function soak(stack: SoakStack, db: Database.Database): Promise<number> {
  console.log(
    `soak: stack ready at ${stack.url} (server pid ${stack.pid}, log ${stack.logPath}); packing the template`,
  );
  const template = packTemplate(stack.chainDeployment);
  const salts = hookSaltSupply(template);
  const recorder = new Recorder();
  const driver = chainDriver({ stack, recorder, maxInFlight: settings.chainInFlight, hookSalt: salts.take });
  const traffic = soakTraffic({ stack, recorder, template, chain: driver.slot, ...settings });
  const started = Date.now();
  const endAt = started + settings.seconds * 1000;
  const rss: Array<{ atSeconds: number; rssMb: number | null }> = [];
  const sampler = setInterval(() => {
    rss.push({ atSeconds: Math.round((Date.now() - started) / 1000), rssMb: mb(rssBytes(stack.pid)) });
  }, 5000);
  const reporter = setInterval(() => {
    const { since, total } = recorder.interval();
    const elapsed = Math.round((Date.now() - started) / 1000);
    console.log(
      `soak t=${elapsed}s requests since last: ${JSON.stringify(since)} total: ${JSON.stringify(total)} ` +
        `launches: ${JSON.stringify(launchesInFile(db))} worker backlog: ${workerBacklog(db)} ` +
        `rss: ${mb(rssBytes(stack.pid))} MB`,
    );
  }, settings.reportSeconds * 1000);
  const over = () => Date.now() >= endAt;
  const driving = driver.run(over, () => Date.now() >= endAt + settings.settleSeconds * 1000);
  await traffic.run(settings.connections, over);
  const backlogAtEnd = workerBacklog(db);
  const trafficEnd = Date.now();
  clearInterval(sampler);
  clearInterval(reporter);
  await salts.stop();
  console.log(`soak: traffic over; settling (up to ${settings.settleSeconds} s) for the driver and the worker`);
  const [, backlog] = await Promise.all([
    driving,
    untilWorkerIdle(db, endAt + settings.settleSeconds * 1000, backlogAtEnd, trafficEnd),
  ]);
  const launches = await census(stack, traffic.state, backlog.stillDraining);
  const { warmupRss, endRss } = rssWindows(rss);
  return report({ stack, recorder, driver, launches, backlog, rss, warmupRss, endRss, db, state: traffic.state });
}

type ReportInput = {
  stack: SoakStack;
  recorder: Recorder;
  driver: ReturnType<typeof chainDriver>;
  launches: Awaited<ReturnType<typeof census>>;
  backlog: Awaited<ReturnType<typeof untilWorkerIdle>>;
  rss: Array<{ atSeconds: number; rssMb: number | null }>;
  warmupRss: number | null;
  endRss: number | null;
  db: Database.Database;
  state: TrafficState;
};

/** The run's figures and breaches (written to build/soak.json). */
function figuresOf(input: ReportInput) {
  const { recorder, driver, launches, warmupRss, endRss } = input;
  const rssRatio = warmupRss && endRss ? Math.round((endRss / warmupRss) * 1000) / 1000 : null;
  const finalSeconds = [...driver.finished.values()].map((f) => f.seconds).sort((a, b) => a - b);
  const serverLog = readFileSync(input.stack.logPath, 'utf8');
  const breaches = {
    serverErrorsOrUnanswered: recorder.breaches.length + launches.readErrors.length,
    stuckLaunches: launches.stuck.length,
    rssOverBound: rssRatio === null || rssRatio > settings.rssRatioBound,
  };
  return {
    settings,
    ports,
    requests: { byClass: recorder.classes, byKind: recorder.summary(settings.seconds) },
    launches: {
      created: input.state.launches.size,
      inFile: launchesInFile(input.db),
      inFileTotal: Object.values(launchesInFile(input.db)).reduce((a, b) => a + b, 0),
      byStatus: launches.byStatus,
      documentedWaits: launches.waits,
      workerBacklog: input.backlog,
      stuck: launches.stuck,
    },
    chain: {
      ...driver.figures,
      finished: Object.fromEntries(
        terminalStatuses.map((s) => [s, [...driver.finished.values()].filter((f) => f.status === s).length]),
      ),
      stillTracked: Object.fromEntries([...driver.tracked.entries()].map(([id, t]) => [id, t.status])),
      secondsCreateToFinalP50: finalSeconds[Math.floor(finalSeconds.length / 2)] ?? null,
    },
    subkeys: { issuedOrRotated: input.state.subkeysIssued, active: input.state.subkeys.length },
    moduleSubmissions: input.state.modules.length,
    rss: {
      warmupMb: mb(warmupRss),
      endMb: mb(endRss),
      ratio: rssRatio,
      bound: settings.rssRatioBound,
      samples: input.rss,
    },
    serverLog: {
      path: input.stack.logPath,
      errorLines: serverLog.split('\n').filter((l) => l.includes('"level":"error"')).length,
    },
    breachesDetail: [...recorder.breaches, ...launches.readErrors],
    breaches,
    ok: !breaches.rssOverBound && breaches.serverErrorsOrUnanswered === 0 && breaches.stuckLaunches === 0,
  };
}

function report(input: ReportInput): number {
  const figures = figuresOf(input);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'soak.json'), `${JSON.stringify(figures, null, 2)}\n`);
  printReport(figures);
  return figures.ok ? 0 : 1;
}

function printReport(f: ReturnType<typeof figuresOf>): void {
  console.log('\n== soak figures (build/soak.json)');
  const width = Math.max(...Object.keys(f.requests.byKind).map((k) => k.length));
  for (const [kind, k] of Object.entries(f.requests.byKind)) {
    console.log(
      `${kind.padEnd(width)}  ${String(k.requests).padStart(7)} req  ${k.requestsPerSecond.toFixed(2).padStart(8)} req/s  ` +
        `p50 ${String(k.p50Ms).padStart(5)} ms  p99 ${String(k.p99Ms).padStart(5)} ms  ${JSON.stringify(k.statuses)}` +
        (Object.keys(k.codes).length ? ` ${JSON.stringify(k.codes)}` : ''),
    );
  }
  console.log(`requests by class: ${JSON.stringify(f.requests.byClass)}`);
  console.log(
    `launches created: ${f.launches.created} (in the file: ${f.launches.inFileTotal}); by status: ${JSON.stringify(f.launches.byStatus)}`,
  );
  for (const [why, n] of Object.entries(f.launches.documentedWaits)) console.log(`  ${n} x ${why}`);
  console.log(
    `worker backlog (launches before the wallet step with a job due): ${JSON.stringify(f.launches.workerBacklog)}`,
  );
  console.log(`chain driver: ${JSON.stringify({ ...f.chain, sendErrors: f.chain.sendErrors.length })}`);
  for (const e of f.chain.sendErrors) console.log(`  send error: ${e}`);
  console.log(`RSS: warm-up ${f.rss.warmupMb} MB, end ${f.rss.endMb} MB, ratio ${f.rss.ratio} (bound ${f.rss.bound})`);
  console.log(`server log: ${f.serverLog.errorLines} error lines (${f.serverLog.path})`);
  for (const b of f.breachesDetail)
    console.log(`BREACH ${b.status ?? 'no answer'} ${b.method} ${b.path} requestId=${b.requestId}: ${b.body}`);
  for (const s of f.launches.stuck)
    console.log(`BREACH stuck launch ${s.launchId}: ${s.status} ${JSON.stringify(s.lifecycleQueue)}`);
  if (f.breaches.rssOverBound) console.log(`BREACH RSS ratio ${f.rss.ratio} over ${f.rss.bound}`);
  console.log(f.ok ? 'soak: OK' : 'soak: FAILED');
}

process.exitCode = await main();
