/*
 * What the benchmarks under scripts/bench share: autocannon (typed here: it ships no declarations), the duration
 * from BENCH_SECONDS, loopback servers of the real app, and one figure per scenario. Benchmarks print; they never
 * assert a number.
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Config } from '../../src/config.ts';
import { createApp } from '../../src/http/app.ts';
import { type Db, openDatabase } from '../../src/store/db.ts';

/** The part of autocannon's untyped API used here (autocannon ships no type declarations). */
export interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
}
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { average: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}
export type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: AutocannonRequest[];
}) => Promise<AutocannonResult>;
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export const connections = 32;
export const seconds = Number(process.env.BENCH_SECONDS ?? '10');
if (!Number.isInteger(seconds) || seconds < 1)
  throw new Error(`BENCH_SECONDS must be a positive integer, got "${process.env.BENCH_SECONDS}"`);
export interface Running {
  url: string;
  close(): Promise<void>;
}

export async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** The real app over its own connection to the shared SQLite file. */
export async function startApp(config: Config): Promise<Running & { db: Db }> {
  const db = openDatabase(config.databasePath);
  const server = createApp({ db, config }).listen(0, '127.0.0.1');
  const url = await listen(server);
  return {
    url,
    db,
    close: async () => {
      await closeServer(server);
      db.close();
    },
  };
}

export interface Figure {
  scenario: string;
  requestsPerSecond: number;
  p99Ms: number;
  averageLatencyMs: number;
  total: number;
  errors: number;
  non2xx: number;
}

export async function measure(scenario: string, options: Parameters<Autocannon>[0]): Promise<Figure> {
  process.stderr.write(`running ${scenario} for ${seconds} s ...\n`);
  const r = await autocannon(options);
  return {
    scenario,
    requestsPerSecond: r.requests.average,
    p99Ms: r.latency.p99,
    averageLatencyMs: r.latency.average,
    total: r.requests.total,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}
