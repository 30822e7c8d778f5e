/*
 * What the benchmarks under scripts/bench share: autocannon (typed here: it ships no declarations), the duration
 * from BENCH_SECONDS, the rounds and the warm-up, one figure per load (with the CPU time and peak RSS of the
 * server process that answered it), and the distinct create bodies a durable create needs. Benchmarks print; they
 * never assert a number.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { freshIntent } from '../soak/requests.ts';
import type { BenchFigure } from './report.ts';
import { type ServerProcess, sampleRss } from './server-process.ts';

/** The part of autocannon's untyped API used here (autocannon ships no type declarations). */
export interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
  onResponse?: (status: number, body: string) => void;
}
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { average: number; p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
}
export type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: AutocannonRequest[];
  /** Requests per second across all connections (no limit when absent). */
  overallRate?: number;
  /** Seconds a request may wait for its answer before it counts as a timeout (autocannon's default: 10). */
  timeout?: number;
}) => Promise<AutocannonResult>;
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export const connections = 32;
export const seconds = Number(process.env.BENCH_SECONDS ?? '10');
if (!Number.isInteger(seconds) || seconds < 1)
  throw new Error(`BENCH_SECONDS must be a positive integer, got "${process.env.BENCH_SECONDS}"`);
/** Seconds of unmeasured load a server gets before its figure is taken (BENCH_WARMUP_SECONDS, default 1; 0: none). */
export const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? '1');
if (!Number.isInteger(warmupSeconds) || warmupSeconds < 0)
  throw new Error(`BENCH_WARMUP_SECONDS must be a non-negative integer, got "${process.env.BENCH_WARMUP_SECONDS}"`);

/** Unmeasured load (the JIT and the caches warm up), the same requests as the measured run. */
export async function warmUp(options: Parameters<Autocannon>[0]): Promise<void> {
  if (warmupSeconds > 0) await autocannon({ ...options, duration: warmupSeconds });
}

/**
 * One load against `server` as a figure: requests per second (value), p50 and p99 latency, the count of each status,
 * and the server process's CPU milliseconds per answered request and peak RSS (read from /proc) over the run. A load
 * with answers that were not 2xx, or with errors, carries a warning.
 */
export async function loadFigure(
  id: string,
  label: string,
  server: Pick<ServerProcess, 'pid' | 'cpuMs'> | null,
  options: Parameters<Autocannon>[0],
): Promise<BenchFigure> {
  process.stderr.write(`  ${label}: ${options.duration} s\n`);
  const rss = server ? sampleRss(server.pid) : null;
  const cpuBefore = server?.cpuMs() ?? 0;
  const r = await autocannon(options);
  const cpuMs = (server?.cpuMs() ?? 0) - cpuBefore;
  rss?.stop();
  return figureOf(id, label, r, server ? { cpuMs, rssPeakMb: rss?.peak() ?? 0 } : null);
}

/** How many times each compared load runs, the servers taking turns (BENCH_ROUNDS, default 1). */
export const rounds = Number(process.env.BENCH_ROUNDS ?? '1');
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`BENCH_ROUNDS must be a positive integer, got "${process.env.BENCH_ROUNDS}"`);

/**
 * Runs each of `loads` BENCH_ROUNDS times, taking turns (a change in the machine's load falls on all of them alike),
 * and answers for each the round of median value, with every round's value in its detail (`round1`, `round2` ...).
 */
export async function inRounds(loads: Array<() => Promise<BenchFigure>>): Promise<BenchFigure[]> {
  const taken: BenchFigure[][] = loads.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, load] of loads.entries()) taken[i]?.push(await load());
  }
  return taken.map((figures) => {
    const median = [...figures].sort((a, b) => a.value - b.value)[Math.floor((figures.length - 1) / 2)] as BenchFigure;
    if (figures.length === 1) return median;
    const values = Object.fromEntries(figures.map((f, i) => [`round${i + 1}`, f.value]));
    return { ...median, detail: { ...median.detail, ...values } };
  });
}

/** A figure of one autocannon result, with the server's CPU and RSS over the run when measured. */
export function figureOf(
  id: string,
  label: string,
  r: AutocannonResult,
  server: { cpuMs: number; rssPeakMb: number } | null,
): BenchFigure {
  const answered = r.requests.total;
  const detail: Record<string, number> = {
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: answered,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
  for (const [status, { count }] of Object.entries(r.statusCodeStats ?? {})) detail[`status${status}`] = count;
  if (server) {
    detail.cpuMs = server.cpuMs;
    detail.cpuMsPerRequest = answered === 0 ? Number.NaN : Math.round((server.cpuMs / answered) * 100) / 100;
    detail.rssPeakMb = server.rssPeakMb;
  }
  const figure: BenchFigure = { id, label, value: Math.round(r.requests.average), unit: 'req/s', detail };
  const warnings: string[] = [];
  if (r.non2xx > 0) warnings.push(`${r.non2xx} of ${answered} answers were not 2xx`);
  if (detail.errors) warnings.push(`${detail.errors} connection errors or timeouts`);
  if (warnings.length > 0) figure.warnings = warnings;
  return figure;
}

/** The spec's V4 create example (27 KB): the template every bench create varies (scripts/soak/requests.ts). */
export const exampleCreate = JSON.parse(
  readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url), 'utf8'),
) as CustomLaunchCreateRequestV4;

/**
 * Distinct create bodies of the example: `count` made before any timing (every hash of a distinct intent is
 * recomputed, a few ms each), then `fresh()` hands each out once and makes one on demand past them (counted in
 * `madeLate`, since that time is the load generator's). `cycle(i)` reuses the made ones for a server that stores
 * nothing.
 */
export function createBodySupply(count: number) {
  process.stderr.write(`  making ${count} distinct create bodies ...\n`);
  const made = Array.from({ length: Math.max(1, count) }, () => freshIntent(exampleCreate).bytes);
  let next = 0;
  let late = 0;
  return {
    fresh(): string {
      const body = made[next];
      if (body !== undefined) {
        next += 1;
        return body;
      }
      late += 1;
      return freshIntent(exampleCreate).bytes;
    },
    cycle: (i: number): string => made[i % made.length] as string,
    madeLate: () => late,
  };
}

/**
 * A create of the example for autocannon's `requests`: a fresh Idempotency-Key and the body `body()` on every
 * request, and the first answer that is not 2xx kept for the report.
 */
export function createRequest(path: string, apiKey: string, body: () => string) {
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  const prefix = `bench-${randomUUID()}`;
  let sent = 0;
  let firstRefusal: string | null = null;
  const request: AutocannonRequest = {
    method: 'POST',
    path,
    headers,
    setupRequest: (r) => {
      sent += 1;
      return { ...r, headers: { ...headers, 'Idempotency-Key': `${prefix}-${sent}` }, body: body() };
    },
    onResponse: (status, text) => {
      if (status >= 300 && firstRefusal === null) firstRefusal = `${status} ${text.slice(0, 300)}`;
    },
  };
  return { request, sent: () => sent, firstRefusal: () => firstRefusal };
}
