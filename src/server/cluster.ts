/*
 * `npm start` with WORKERS=N > 1: a node:cluster primary that migrates the SQLite file once, forks N server processes
 * (src/server/serve.ts) sharing the API's and the developer API's ports, keeps the route budgets' windows for all of
 * them (src/cluster/route-windows.ts), forks a replacement for a worker that exits unexpectedly (after a backoff
 * that grows while workers keep dying young), forwards SIGINT/SIGTERM to the workers and exits once they have all
 * stopped. It serves no request itself.
 */
import cluster, { type Worker } from 'node:cluster';
import { answerRouteWindows } from '../cluster/route-windows.ts';
import type { Config } from '../config.ts';
import { FixedWindows } from '../http/rate-limit.ts';
import { logger } from '../observability/logger.ts';
import { openDatabase } from '../store/db.ts';
import { serveClusterMetrics } from './metrics-listener.ts';

/** A worker that lived less than this died young: the next fork waits longer. */
const youngMs = 10_000;
/** The first and the longest wait before forking a replacement. */
const backoffMs = { first: 100, max: 5_000 };

/** The wait before the next replacement after `deaths` workers in a row died young: 0 after an old one died. */
export function respawnDelayMs(deaths: number): number {
  if (deaths <= 0) return 0;
  return Math.min(backoffMs.max, backoffMs.first * 2 ** (deaths - 1));
}

/** Runs the cluster primary for `config.workers` server processes until SIGINT/SIGTERM. */
export function runPrimary(config: Config): void {
  logger.level = config.logLevel;
  // The one migration of the file, before any worker opens it.
  openDatabase(config.databasePath, { busyTimeoutMs: config.busyTimeoutMs }).close();
  const windows = new FixedWindows();
  const count = (key: string, limit: number, windowMs: number) => windows.count(key, limit, windowMs);
  // The workers' metrics, aggregated: the workers themselves do not listen (METRICS_PORT).
  const metrics = serveClusterMetrics(config);
  const bornAt = new Map<Worker, number>();
  let stopping = false;
  let listened = false;
  let youngDeaths = 0;
  let exitCode = 0;

  const fork = () => {
    const worker = cluster.fork();
    bornAt.set(worker, Date.now());
    answerRouteWindows(worker, count);
    worker.once('online', () => logger.info({ worker: worker.process.pid }, 'worker started'));
    worker.once('listening', () => {
      listened = true;
    });
  };
  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (bornAt.get(worker) ?? 0);
    bornAt.delete(worker);
    const expected = stopping;
    logger[expected ? 'info' : 'warn']({ worker: worker.process.pid, code, signal }, 'worker exited');
    if (expected) {
      if (bornAt.size === 0) process.exit(exitCode);
      return;
    }
    if (!listened) {
      // No worker ever listened (a taken port, a bad file): forking again would fail the same way.
      logger.error({ code, signal }, 'no worker started: stopping the cluster');
      stopping = true;
      exitCode = 1;
      for (const w of bornAt.keys()) w.process.kill('SIGTERM');
      if (bornAt.size === 0) process.exit(exitCode);
      return;
    }
    youngDeaths = lived < youngMs ? youngDeaths + 1 : 0;
    setTimeout(() => {
      if (!stopping) fork();
    }, respawnDelayMs(youngDeaths));
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    void metrics?.close();
    if (bornAt.size === 0) process.exit(0);
    for (const worker of bornAt.keys()) worker.process.kill(signal);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  logger.info({ workers: config.workers }, 'cluster primary');
  for (let i = 0; i < config.workers; i++) fork();
}
