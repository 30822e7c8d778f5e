/*
 * The process's Prometheus metrics (prom-client), served on their own listener (src/server/metrics-listener.ts,
 * METRICS_PORT), never on the API's origin. docs/configuration.md (Metrics) lists every metric with its labels. Label
 * values come from closed sets only (operationIds, HTTP statuses, lanes, states, provider positions): never a launch
 * id, a key id or a provider URL. The SQLite-derived gauges are read at scrape time through `countStoreWith`, which the
 * server hands a reader of the store; their cluster aggregator is `max`, so N workers reading one file report it once.
 */
import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  Registry,
  type RegistryContentType,
} from 'prom-client';
import { logger } from './logger.ts';

/** The lanes as the metrics label them: the public registry's lane names (public_launches.lane). */
export type MetricLane = 'v4' | 'v3' | 'multi-role' | 'v2' | 'v1';

/** The lanes with a lifecycle queue and a tracker. */
export type WorkerLane = 'v4' | 'v3' | 'multi-role';

/** The lifecycle job states counted as the queue: waiting for a worker, held by one, waiting out a retry delay. */
export const queuedJobStates = ['scheduled', 'running', 'retry_wait'] as const;

/** The module review states counted as the review queue (module_reviews_state's partial index). */
export const queuedReviewStates = ['awaiting_plan', 'queued', 'running'] as const;

/** What the SQLite-derived gauges show, read from the file at scrape time (src/store/metric-counts.ts). */
export interface StoreCounts {
  launches: ReadonlyArray<{ lane: MetricLane; status: string; count: number }>;
  lifecycleJobs: ReadonlyArray<{ lane: WorkerLane; state: (typeof queuedJobStates)[number]; count: number }>;
  moduleReviews: ReadonlyArray<{ state: (typeof queuedReviewStates)[number]; count: number }>;
}

/** Where a SQLITE_BUSY refusal happened: a request's write, a group commit's batch, a background claim. */
export type BusySite = 'request' | 'group_commit' | 'claim';

/** How a chain JSON-RPC request failed: no answer in time, an HTTP failure, a JSON-RPC error (a revert among them). */
export type RpcErrorKind = 'timeout' | 'http' | 'rpc';

/** The one registry of this process (its workers' registries, in a cluster, are aggregated by the primary). */
export const registry = new Registry();

const requests = new Counter({
  name: 'custom_launch_http_requests_total',
  help: 'Requests answered by the service, by operationId (none: no operation matched) and HTTP status.',
  labelNames: ['operation', 'status'] as const,
  registers: [registry],
});

const requestSeconds = new Histogram({
  name: 'custom_launch_http_request_duration_seconds',
  help: 'Time from a request arriving to its answer being complete, by operationId.',
  labelNames: ['operation'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

const lifecycleRetries = new Counter({
  name: 'custom_launch_lifecycle_retries_total',
  help: 'Lifecycle steps that failed transiently and were scheduled again, by lane and lastErrorCode.',
  labelNames: ['lane', 'code'] as const,
  registers: [registry],
});

const trackerLag = new Gauge({
  name: 'custom_launch_tracker_lag_blocks',
  help: "Blocks between the providers' agreed head and the last block the lane's tracker searched at its last poll.",
  labelNames: ['lane', 'chain'] as const,
  aggregator: 'max',
  registers: [registry],
});

const rpcRequests = new Counter({
  name: 'custom_launch_chain_rpc_requests_total',
  help: 'JSON-RPC requests sent to a chain provider (a request viem retried counts once), by chain and position.',
  labelNames: ['chain', 'provider'] as const,
  registers: [registry],
});

const rpcErrors = new Counter({
  name: 'custom_launch_chain_rpc_errors_total',
  help: 'JSON-RPC requests to a chain provider that failed, by chain, position and kind (timeout, http, rpc).',
  labelNames: ['chain', 'provider', 'kind'] as const,
  registers: [registry],
});

const sqliteBusy = new Counter({
  name: 'custom_launch_sqlite_busy_total',
  help: 'SQLITE_BUSY refusals: a request answered 503 UNAVAILABLE, a group commit batch, a background claim skipped.',
  labelNames: ['site'] as const,
  registers: [registry],
});
for (const site of ['request', 'group_commit', 'claim'] satisfies BusySite[]) sqliteBusy.inc({ site }, 0);

const commitSeconds = new Histogram({
  name: 'custom_launch_sqlite_commit_duration_seconds',
  help: "The COMMIT of a group commit's transaction (synchronous=FULL: the disk sync), in seconds.",
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [registry],
});

let readStore: (() => Promise<StoreCounts>) | null = null;
let pendingRead: Promise<StoreCounts | null> | null = null;

/**
 * The store counts of one scrape: every SQLite-derived gauge of a scrape shares one read, and a failed read leaves
 * them without samples (logged) rather than failing the scrape.
 */
function storeCounts(): Promise<StoreCounts | null> {
  const read = readStore;
  if (!read) return Promise.resolve(null);
  pendingRead ??= read()
    .catch((err: unknown) => {
      logger.warn({ detail: String(err).slice(0, 500) }, 'metrics: the store counts could not be read');
      return null;
    })
    .finally(() => {
      pendingRead = null;
    });
  return pendingRead;
}

new Gauge({
  name: 'custom_launch_launches',
  help: 'Stored launches by lane (v4, v3, multi-role, imported v2 and v1 history) and status.',
  labelNames: ['lane', 'status'] as const,
  aggregator: 'max',
  registers: [registry],
  async collect() {
    const counts = await storeCounts();
    this.reset();
    for (const { lane, status, count } of counts?.launches ?? []) this.set({ lane, status }, count);
  },
});

new Gauge({
  name: 'custom_launch_lifecycle_jobs',
  help: 'Lifecycle jobs by lane and state: scheduled (waiting for a worker), running, retry_wait (in retry).',
  labelNames: ['lane', 'state'] as const,
  aggregator: 'max',
  registers: [registry],
  async collect() {
    const counts = await storeCounts();
    this.reset();
    for (const { lane, state, count } of counts?.lifecycleJobs ?? []) this.set({ lane, state }, count);
  },
});

new Gauge({
  name: 'custom_launch_module_reviews',
  help: 'Module reviews waiting for a plan (awaiting_plan), for a build (queued) or being built (running).',
  labelNames: ['state'] as const,
  aggregator: 'max',
  registers: [registry],
  async collect() {
    const counts = await storeCounts();
    this.reset();
    for (const { state, count } of counts?.moduleReviews ?? []) this.set({ state }, count);
  },
});

/**
 * Counts one answered request (src/http/request-observer.ts): a counter and a histogram observation, nothing else on
 * the request path. A request whose client went away before its answer was complete has the status `aborted`.
 */
export function recordRequest(observation: {
  operationId?: string;
  status: number;
  durationMs: number;
  aborted?: boolean;
}): void {
  const operation = observation.operationId ?? 'none';
  requests.inc({ operation, status: observation.aborted ? 'aborted' : observation.status });
  requestSeconds.observe({ operation }, observation.durationMs / 1000);
}

/** Counts a lifecycle step scheduled again after a transient failure (`code`: the job's lastErrorCode). */
export function countLifecycleRetry(lane: WorkerLane, code: string): void {
  lifecycleRetries.inc({ lane, code });
}

/** Sets a tracker's lag after a poll; null removes it (the tracker stopped, so it reports nothing). */
export function setTrackerLag(lane: WorkerLane, chain: string, blocks: bigint | null): void {
  if (blocks === null) trackerLag.remove({ lane, chain });
  else trackerLag.set({ lane, chain }, Number(blocks < 0n ? 0n : blocks));
}

/** Counts one JSON-RPC request to a provider (`labels` built once per provider: chain id and position). */
export function countRpcRequest(labels: { chain: string; provider: string }): void {
  rpcRequests.inc(labels);
}

/** Counts one failed JSON-RPC request to a provider. */
export function countRpcError(labels: { chain: string; provider: string }, kind: RpcErrorKind): void {
  rpcErrors.inc({ ...labels, kind });
}

/** Counts one SQLITE_BUSY refusal. */
export function countSqliteBusy(site: BusySite): void {
  sqliteBusy.inc({ site });
}

/** Observes one group commit's COMMIT, in seconds. */
export function observeCommitSeconds(seconds: number): void {
  commitSeconds.observe(seconds);
}

/** Reads the SQLite-derived gauges through `read` at every scrape (null: none, they show no samples). */
export function countStoreWith(read: (() => Promise<StoreCounts>) | null): void {
  readStore = read;
}

let processMetrics = false;

/** Adds node's default process metrics (CPU, memory, event loop lag, GC, handles) to the registry, once. */
export function collectProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry });
}

/** The content type of the exposition (the Prometheus text format, version 0.0.4). */
export const metricsContentType: RegistryContentType = registry.contentType;

/** This process's exposition. */
export function processMetricsText(): Promise<string> {
  return registry.metrics();
}

let aggregator: AggregatorRegistry<RegistryContentType> | undefined;

/**
 * In a cluster primary: the workers' registries aggregated over the cluster's IPC channel (counters and histograms
 * summed, the gauges by their aggregator). Rejects when a worker does not answer within 5 seconds.
 */
export function clusterMetricsText(): Promise<string> {
  aggregator ??= new AggregatorRegistry();
  return aggregator.clusterMetrics();
}

/** In a cluster worker: answers the primary's scrape requests with this process's registry. */
export function answerPrimaryScrapes(): void {
  if (aggregator) return;
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's listener of the primary's requests.
  aggregator = new AggregatorRegistry();
}
