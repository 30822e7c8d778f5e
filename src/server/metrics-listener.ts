/*
 * The Prometheus scrape listener (METRICS_PORT on METRICS_HOST, docs/configuration.md Metrics): a bare node:http
 * server apart from the API's origin, answering `GET /metrics` in the Prometheus text format and 404 to anything
 * else. With METRICS_TOKEN set, a scrape must send `Authorization: Bearer <token>` (compared in constant time), else
 * 401. A single process serves its own registry; a cluster primary serves its workers' registries aggregated.
 */
import cluster from 'node:cluster';
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.ts';
import { logger } from '../observability/logger.ts';
import {
  answerPrimaryScrapes,
  clusterMetricsText,
  collectProcessMetrics,
  countStoreWith,
  metricsContentType,
  processMetricsText,
} from '../observability/metrics.ts';
import type { Db } from '../store/db.ts';
import { storeCountsReader } from '../store/metric-counts.ts';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Whether the request carries the token: both sides hashed first, so the comparison's time says nothing of either. */
function authorized(req: IncomingMessage, token: string | null): boolean {
  if (token === null) return true;
  return timingSafeEqual(digest(req.headers.authorization ?? ''), digest(`Bearer ${token}`));
}

function answer(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
  res.end(body);
}

/**
 * Starts the listener on config.metrics (null when METRICS_PORT is off), reading each scrape's exposition from
 * `exposition`; logs `metrics listening` with its URL once it listens, and exits the process with 1 when it cannot
 * bind (a port that is taken, say), as the API's listeners do.
 */
export function startMetricsListener(
  metrics: Config['metrics'],
  exposition: () => Promise<string>,
): { server: Server; close: () => Promise<void> } | null {
  if (metrics.port === null) return null;
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      answer(res, 404, 'Not found: the metrics are at GET /metrics.\n');
      return;
    }
    if (!authorized(req, metrics.token)) {
      answer(res, 401, 'Unauthorized: send Authorization: Bearer <METRICS_TOKEN>.\n', { 'WWW-Authenticate': 'Bearer' });
      return;
    }
    exposition().then(
      (text) => answer(res, 200, req.method === 'HEAD' ? '' : text, { 'Content-Type': metricsContentType }),
      (err: unknown) => {
        logger.warn({ detail: String(err).slice(0, 500) }, 'metrics scrape failed');
        answer(res, 503, 'The metrics could not be collected; retry.\n');
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  server.once('listening', () => {
    const { port } = server.address() as AddressInfo;
    const host = metrics.host.includes(':') ? `[${metrics.host}]` : metrics.host;
    logger.info({ url: `http://${host}:${port}` }, 'metrics listening');
  });
  server.on('error', (err: NodeJS.ErrnoException) => {
    const hint = err.code === 'EADDRINUSE' ? ' (the port is taken: stop the other process or set METRICS_PORT)' : '';
    logger.error({ code: err.code }, `cannot listen on ${metrics.host}:${metrics.port}${hint}`);
    process.exit(1);
  });
  server.listen(metrics.port, metrics.host);
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  return { server, close };
}

/**
 * The metrics of one server process (src/server/serve.ts) when METRICS_PORT is set, else null: node's process metrics
 * and the store's gauges read from `db`; the listener itself in a process of its own, while a cluster worker answers
 * its primary instead (its `close` then has nothing to close).
 */
export function serveMetrics(config: Config, db: Db): { close: () => Promise<void> } | null {
  if (config.metrics.port === null) return null;
  collectProcessMetrics();
  countStoreWith(storeCountsReader(db));
  if (cluster.isWorker) {
    answerPrimaryScrapes();
    return { close: async () => {} };
  }
  return startMetricsListener(config.metrics, processMetricsText);
}

/**
 * The listener of a cluster primary (src/server/cluster.ts) when METRICS_PORT is set, else null: every scrape asks
 * each worker for its registry over the cluster's IPC channel and answers their aggregate (counters and histograms
 * summed, the store's gauges and the tracker lag by their maximum, so N workers reading one file count it once).
 */
export function serveClusterMetrics(config: Config): { close: () => Promise<void> } | null {
  return startMetricsListener(config.metrics, clusterMetricsText);
}
