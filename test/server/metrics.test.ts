import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, call, closeLoopback, listenLoopback } from '../support/http.ts';
import { type ServerProcess, startServerProcess } from '../support/process.ts';
import { type MetricFamily, parsePrometheusText, type Sample } from '../support/prometheus.ts';
import { freshV4Bytes, walletKeyInFile } from '../support/server.ts';

// The Prometheus listener (docs/configuration.md, Metrics) of a real server process: its requests, launches and
// process metrics, its token, its absence when METRICS_PORT is off, and a cluster's aggregate.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
const servers: ServerProcess[] = [];
const token = 'metrics-token-0123456789';
/** A provider's URL carries its API key in its path and query: neither may reach a label. */
const providerSecret = 'PROVIDERKEY0123456789';

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'custom-launch-metrics-'));
  dirs.push(dir);
  return join(dir, 'metrics.sqlite');
}

async function start(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess({ DEVELOPERS_PORT: 'off', ...env });
  servers.push(server);
  return server;
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Map<string, MetricFamily>> {
  const res = await fetch(`${url}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(await res.text());
}

/** The samples named `name` (a family's name, or a histogram's `_bucket`, `_sum`, `_count`). */
const samplesOf = (families: Map<string, MetricFamily>, name: string): Sample[] =>
  [...families.values()].flatMap((f) => f.samples.filter((s) => s.name === name));

/** The value of the one sample of `name` whose labels include `labels`, or undefined when there is none. */
function sampleValue(families: Map<string, MetricFamily>, name: string, labels: Record<string, string>) {
  const found = samplesOf(families, name).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  expect(found.length).toBeLessThanOrEqual(1);
  return found[0]?.value;
}

/**
 * The samples of an exposition text as prometheus_client's parser reads them (the Prometheus project's Python client,
 * installed into .venv from conformance/requirements.txt): [name, labels, value as Python's repr].
 */
function officialSamples(text: string): Array<[string, Record<string, string>, string]> {
  const script = [
    'import json, sys',
    'from prometheus_client.parser import text_string_to_metric_families',
    'out = [[s.name, s.labels, repr(s.value)] for f in text_string_to_metric_families(sys.stdin.read()) for s in f.samples]',
    'print(json.dumps(out))',
  ].join('\n');
  const run = spawnSync(join(repoRoot, '.venv/bin/python'), ['-c', script], { input: text, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Array<[string, Record<string, string>, string]>;
}

const sum = (samples: Sample[]) => samples.reduce((total, s) => total + s.value, 0);

/** A create of a fresh V4 intent with the wallet key; answers its status. */
async function create(url: string, key: string, idempotencyKey: string): Promise<number> {
  const res = await call(`${url}/v4/chains/4663/custom-launches`, {
    method: 'POST',
    headers: auth(key, { 'Idempotency-Key': idempotencyKey }),
    body: freshV4Bytes(),
  });
  return res.status;
}

/** One GET on a connection of its own (a cluster hands each new connection to its next worker). */
function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

/** Every histogram's buckets: cumulative (never decreasing with `le`), the +Inf bucket equal to its _count. */
function expectHistogramsConsistent(families: Map<string, MetricFamily>): void {
  for (const family of families.values()) {
    if (family.type !== 'histogram') continue;
    const series = new Map<string, Sample[]>();
    for (const s of family.samples) {
      const { le, ...rest } = s.labels;
      const key = JSON.stringify(Object.entries(rest).sort());
      series.set(key, [...(series.get(key) ?? []), s]);
    }
    for (const [key, samples] of series) {
      const buckets = samples
        .filter((s) => s.name === `${family.name}_bucket`)
        .map((s) => ({ le: Number(s.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : s.labels.le), value: s.value }))
        .sort((a, b) => a.le - b.le);
      expect(buckets.at(-1)?.le, `${family.name} ${key} has a +Inf bucket`).toBe(Number.POSITIVE_INFINITY);
      for (let i = 1; i < buckets.length; i++) {
        expect(buckets[i]?.value).toBeGreaterThanOrEqual(buckets[i - 1]?.value as number);
      }
      const count = samples.find((s) => s.name === `${family.name}_count`)?.value;
      expect(buckets.at(-1)?.value, `${family.name} ${key}: +Inf bucket = _count`).toBe(count);
    }
  }
}

/** Every label value of every sample. */
const labelValues = (families: Map<string, MetricFamily>) =>
  [...families.values()].flatMap((f) => f.samples.flatMap((s) => Object.values(s.labels)));

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('GET /metrics with METRICS_PORT and METRICS_TOKEN', () => {
  let server: ServerProcess;
  let metricsUrl = '';
  let walletKey = '';
  let provider: { url: string; server: Server };
  const providerPaths: string[] = [];
  const bearer = { Authorization: `Bearer ${token}` };
  let serviceMetrics: Awaited<ReturnType<typeof call>>;

  beforeAll(async () => {
    // A chain-4663 provider that is down (503 to every JSON-RPC request): the quote reads its position 0.
    provider = await listenLoopback((req, res) => {
      providerPaths.push(req.url ?? '');
      req.resume();
      req.on('end', () => res.writeHead(503).end('down'));
    });
    const path = tempFile();
    walletKey = walletKeyInFile(path, ['custom-launch:create', 'custom-launch:read']);
    server = await start({
      DATABASE_PATH: path,
      DEVELOPERS_PORT: '0',
      METRICS_PORT: '0',
      METRICS_TOKEN: token,
      CHAIN_4663_RPC_URLS: [1, 2]
        .map((n) => `${provider.url}/v${n}/${providerSecret}?apikey=${providerSecret}`)
        .join(','),
      PRICE_FEED_ADDRESS: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    });
    metricsUrl = await server.metricsUrl();
    expect(new URL(metricsUrl).hostname).toBe('127.0.0.1');
    expect(metricsUrl).not.toBe(server.url);

    for (let i = 0; i < 3; i++) expect((await call(`${server.url}/v4/chains/4663/capabilities`)).status).toBe(200);
    // The one request of no operation: /metrics on the service's own origin.
    serviceMetrics = await call(`${server.url}/metrics`, { headers: bearer });
    expect((await call(`${server.url}/v4/chains/4663/initial-buy-quote`)).status).toBe(503);
    expect(await create(server.url, walletKey, 'metrics-create-0001')).toBe(202);
    const developerUrl = await server.developerUrl();
    for (let i = 0; i < 2; i++) expect((await call(`${developerUrl}/api/v2/status`)).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await closeLoopback(provider.server);
  });

  it('answers 401 without the token or with another, 200 with it, and 404 off /metrics', async () => {
    expect((await fetch(`${metricsUrl}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${metricsUrl}/metrics`, { headers: { Authorization: `Bearer ${token}x` } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer');
    expect((await fetch(`${metricsUrl}/metrics`, { headers: { Authorization: token } })).status).toBe(401);
    expect((await fetch(`${metricsUrl}/metrics`, { headers: bearer })).status).toBe(200);
    expect((await fetch(`${metricsUrl}/`, { headers: bearer })).status).toBe(404);
    expect((await fetch(`${metricsUrl}/metricsx`, { headers: bearer })).status).toBe(404);
    expect((await fetch(`${metricsUrl}/metrics`, { method: 'POST', headers: bearer })).status).toBe(404);
  });

  it("is never served on the service's origin", () => {
    expect(serviceMetrics.status).toBe(404);
    expect(serviceMetrics.json.error.code).toBe('NOT_FOUND');
  });

  it('counts each request by operationId and status, with a consistent duration histogram', async () => {
    const families = await scrape(metricsUrl, bearer);
    const requests = 'custom_launch_http_requests_total';
    expect(families.get(requests)?.type).toBe('counter');
    expect(sampleValue(families, requests, { operation: 'getCustomLaunchCapabilitiesV4', status: '200' })).toBe(3);
    expect(sampleValue(families, requests, { operation: 'none', status: '404' })).toBe(1);
    expect(sampleValue(families, requests, { operation: 'getL2InitialBuyUsdQuoteV1', status: '503' })).toBe(1);
    expect(sampleValue(families, requests, { operation: 'createCustomLaunchV4', status: '202' })).toBe(1);
    // The developer API's reads, on its own listener, by their own operationIds.
    expect(sampleValue(families, requests, { operation: 'getDeveloperStatus', status: '200' })).toBe(2);

    const seconds = 'custom_launch_http_request_duration_seconds';
    expect(families.get(seconds)?.type).toBe('histogram');
    expectHistogramsConsistent(families);
    // Each operation's histogram count is its requests of every status.
    const operations = new Set(samplesOf(families, requests).map((s) => s.labels.operation));
    for (const operation of operations) {
      const counted = sum(samplesOf(families, requests).filter((s) => s.labels.operation === operation));
      expect(sampleValue(families, `${seconds}_count`, { operation: operation as string }), operation).toBe(counted);
    }
  });

  it('counts the stored launch by lane and status, and the lifecycle and review queues', async () => {
    const families = await scrape(metricsUrl, bearer);
    const launches = samplesOf(families, 'custom_launch_launches');
    expect(launches.every((s) => s.labels.lane === 'v4')).toBe(true);
    expect(sum(launches)).toBe(1);
    expect(['received', 'validating']).toContain(launches[0]?.labels.status);
    const jobs = samplesOf(families, 'custom_launch_lifecycle_jobs');
    expect(new Set(jobs.map((s) => `${s.labels.lane} ${s.labels.state}`)).size).toBe(9);
    expect(samplesOf(families, 'custom_launch_module_reviews').map((s) => s.labels.state)).toEqual([
      'awaiting_plan',
      'queued',
      'running',
    ]);
    expect(sum(samplesOf(families, 'custom_launch_sqlite_busy_total'))).toBe(0);
    expect(samplesOf(families, 'custom_launch_sqlite_commit_duration_seconds_count')[0]?.value).toBeGreaterThan(0);
  });

  it("counts the provider's requests and failures by its position, never by its URL", async () => {
    const families = await scrape(metricsUrl, bearer);
    expect(providerPaths.length).toBeGreaterThan(0);
    const sent = sampleValue(families, 'custom_launch_chain_rpc_requests_total', { chain: '4663', provider: '0' });
    const failed = sampleValue(families, 'custom_launch_chain_rpc_errors_total', {
      chain: '4663',
      provider: '0',
      kind: 'http',
    });
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(failed).toBe(sent);
    for (const value of labelValues(families)) {
      expect(value).not.toContain(providerSecret);
      expect(value).not.toContain('clk_');
      expect(value).not.toContain(walletKey.slice(4, 16));
      expect(value).not.toMatch(/\/\/|127\.0\.0\.1|\/v[12]\//);
    }
  });

  it("reads alike through the Prometheus project's own parser (prometheus_client's, in .venv)", async () => {
    const res = await fetch(`${metricsUrl}/metrics`, { headers: bearer });
    const text = await res.text();
    const ours = [...parsePrometheusText(text).values()].flatMap((f) =>
      f.samples.map((s) => JSON.stringify([s.name, Object.entries(s.labels).sort(), String(s.value)])),
    );
    // Python prints a float as repr (1e-05, nan, inf): read back into a JavaScript number, both sides print alike.
    const number = (repr: string) => String(Number(repr.replace(/^nan$/, 'NaN').replace(/inf$/, 'Infinity')));
    const theirs = officialSamples(text).map((s) => JSON.stringify([s[0], Object.entries(s[1]).sort(), number(s[2])]));
    expect(theirs.length).toBeGreaterThan(50);
    expect(new Set(ours)).toEqual(new Set(theirs));
  });

  it("exposes node's process metrics", async () => {
    const families = await scrape(metricsUrl, bearer);
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(families.has(name), name).toBe(true);
    }
  });
});

describe('METRICS_PORT unset', () => {
  it('starts no metrics listener', async () => {
    const server = await start({ DATABASE_PATH: tempFile() });
    await expect(server.metricsUrl(1_500)).rejects.toThrow('no "metrics listening" line');
    const res = await call(`${server.url}/metrics`);
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('NOT_FOUND');
  }, 30_000);
});

/** The pids of the processes that logged a request line of `operationId` (pino's `pid`), from `stream` on. */
function requestPids(stream: NodeJS.ReadableStream, operationId: string): number[] {
  const pids: number[] = [];
  let tail = '';
  stream.on('data', (chunk: Buffer | string) => {
    const lines = (tail + chunk.toString()).split('\n');
    tail = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.includes('"msg":"request"')) continue;
      const entry = JSON.parse(line) as { pid: number; operationId: string | null };
      if (entry.operationId === operationId) pids.push(entry.pid);
    }
  });
  return pids;
}

async function until(done: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !done(); waited += 50) {
    if (waited > 10_000) throw new Error(`not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('WORKERS=2', () => {
  it("sums the workers' requests and counts a stored launch once", async () => {
    const path = tempFile();
    const walletKey = walletKeyInFile(path, ['custom-launch:create', 'custom-launch:read']);
    const server = await start({ DATABASE_PATH: path, WORKERS: '2', METRICS_PORT: '0' });
    const metricsUrl = await server.metricsUrl();
    const operation = 'getCustomLaunchCapabilitiesV4';
    const served = requestPids(server.child.stdout as NodeJS.ReadableStream, operation);
    // Fresh connections until both workers have answered some (the second may start listening a little later).
    let sent = 0;
    while (new Set(served).size < 2) {
      for (let i = 0; i < 4; i++) {
        expect(await getOnNewConnection(`${server.url}/v4/chains/4663/capabilities`)).toBe(200);
        sent += 1;
      }
      await until(() => served.length === sent, 'every request logged');
      if (sent > 100) throw new Error('one worker answered every request');
    }
    expect(await create(server.url, walletKey, 'metrics-cluster-0001')).toBe(202);
    // Both workers have answered, so both answer the primary's scrape (their registries are shared before they listen).
    const families = await scrape(metricsUrl);
    expect(sampleValue(families, 'custom_launch_http_requests_total', { operation, status: '200' })).toBe(sent);
    expect(sum(samplesOf(families, 'custom_launch_launches'))).toBe(1);
    expectHistogramsConsistent(families);
    expect(families.has('process_resident_memory_bytes')).toBe(true);
  }, 60_000);
});
