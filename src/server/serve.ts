/*
 * One server process (`npm start` with WORKERS=1, and each worker of a cluster): opens the SQLite file, serves the API
 * on HOST:PORT and the read-only developer API on HOST:DEVELOPERS_PORT over its own read-only connection, and runs
 * the background workers while it holds the file's background lease (src/cluster/lease.ts). Stops cleanly on
 * SIGINT/SIGTERM, and when the cluster primary it belongs to is gone.
 */
import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { holdLease, type LeaseHolder, leaseHeld } from '../cluster/lease.ts';
import type { Config } from '../config.ts';
import { createApp, keepIdleConnections } from '../http/app.ts';
import { answerClientErrors } from '../http/client-error.ts';
import { createDeveloperApp, developerCorsHeaders } from '../http/developer-app.ts';
import { logRequest } from '../http/request-log.ts';
import type { RequestObservation } from '../http/request-observer.ts';
import { logger } from '../observability/logger.ts';
import { recordRequest } from '../observability/metrics.ts';
import { buildChainGates, buildServices, buildWorkers, type Services, type Workers } from '../services.ts';
import { type Db, openDatabase, openReadOnlyDatabase } from '../store/db.ts';
import { serveMetrics } from './metrics-listener.ts';
import { drainServer, within } from './shutdown.ts';

/** The lease whose holder runs every background worker of the file (process_leases.name). */
export const backgroundLease = 'background';

/**
 * Starts every background worker of this process (the lifecycle workers of each lane, the trackers, the source
 * verifier, the module review worker) and answers the stop that resolves once they have all finished.
 */
function startBackground(workers: Workers): () => Promise<void> {
  const stops = [
    workers.lifecycle(),
    workers.tracker?.(),
    workers.verifier?.(),
    workers.review(),
    workers.baseLayer(),
    workers.baseTracker?.(),
    workers.multiRole(),
    workers.multiRoleTracker?.(),
  ];
  return async () => {
    await Promise.all(stops.map((stop) => stop?.()));
  };
}

/** The request log's line and the request metrics (with METRICS_PORT set) of one answered request. */
function logAndCount(observation: RequestObservation): void {
  logRequest(observation);
  recordRequest(observation);
}

/** The port a listener is bound to (the configured one until it listens). */
function boundPort(server: Server, fallback: number): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : fallback;
}

/** Exits with 1 and a logged hint when a listener cannot bind. */
function exitOnListenError(server: Server, config: Config, port: number, variable: string, db?: Db): void {
  server.on('error', (err: NodeJS.ErrnoException) => {
    const hint =
      err.code === 'EADDRINUSE'
        ? variable === 'PORT'
          ? ` (port ${port} is taken: stop the other process or set PORT)`
          : ' (the port is taken: stop the other process or set DEVELOPERS_PORT)'
        : '';
    logger.error({ code: err.code }, `cannot listen on ${config.host}:${port}${hint}`);
    db?.close();
    process.exit(1);
  });
}

/**
 * The developer API on its own listener, started once the service listens (the service's line is logged first) and
 * over its own read-only connection, opened after the service's connection has migrated the file.
 */
function startDeveloperApi(
  config: Config,
  services: Services,
  chainDeployment: Parameters<typeof createDeveloperApp>[0]['chainDeployment'],
  observe: (observation: RequestObservation) => void,
): { server: Server; db: Db } | undefined {
  if (config.developersPort === null) return undefined;
  // Another connection cannot read an in-memory database, so there is nothing for the developer API to serve.
  if (config.databasePath === ':memory:') {
    logger.warn('developer API not started: DATABASE_PATH is :memory: (set a file)');
    return undefined;
  }
  const db = openReadOnlyDatabase(config.databasePath, { busyTimeoutMs: config.busyTimeoutMs });
  const app = createDeveloperApp({ db, config, services, chainDeployment, observe });
  const server = answerClientErrors(
    keepIdleConnections(app.listen(config.developersPort, config.host), config.http),
    developerCorsHeaders,
  );
  server.once('listening', () => {
    logger.info(
      { url: `http://${config.host}:${boundPort(server, config.developersPort ?? 0)}` },
      'developer API listening',
    );
  });
  exitOnListenError(server, config, config.developersPort, 'DEVELOPERS_PORT');
  return { server, db };
}

/**
 * The stop of a server process, bounded by SHUTDOWN_GRACE_MS: both listeners drain (no new connection; every request
 * already read gets its complete answer) while the background workers finish their current step or, past the grace,
 * leave it to their lease's expiry; then the file is closed. src/server/shutdown.ts drains a listener.
 */
async function shutDown(parts: {
  config: Config;
  server: Server;
  developer: { server: Server; db: Db } | undefined;
  background: () => LeaseHolder | undefined;
  workers: Workers;
  db: Db;
  evidence: { stop: () => void } | null | undefined;
}): Promise<void> {
  const { config, server, developer, workers, db } = parts;
  const started = Date.now();
  parts.evidence?.stop();
  const [service, developers, backgroundDone] = await Promise.all([
    drainServer(server, config.shutdownGraceMs),
    developer ? drainServer(developer.server, config.shutdownGraceMs) : Promise.resolve(undefined),
    within(
      Promise.resolve(parts.background()?.stop()).then(() => true),
      config.shutdownGraceMs,
      false,
    ),
  ]);
  await within(
    Promise.resolve(workers.stopReviewEvm()).then(() => true),
    2_000,
    false,
  );
  developer?.db.close();
  db.close();
  logger.info(
    {
      service: service.kind === 'drained' ? 'drained' : `closed ${service.connections} open connections`,
      developerApi: developers === undefined ? null : developers.kind,
      background: backgroundDone ? 'stopped' : 'step left to its lease',
      ms: Date.now() - started,
    },
    'stopped',
  );
}

/** Serves this process until SIGINT/SIGTERM (or, in a cluster worker, until its primary is gone). */
export async function serve(config: Config): Promise<void> {
  logger.level = config.logLevel;
  const db = openDatabase(config.databasePath, { busyTimeoutMs: config.busyTimeoutMs });
  const { authorizer, evidence } = buildChainGates(config);
  // Listening starts after the first attempt, so a client never meets a lane that is merely still checking.
  await evidence?.first;
  const services = buildServices({
    db,
    config,
    now: Date.now,
    ...(evidence ? { evidence: () => evidence.state().kind } : {}),
    // Whichever process on the file holds the background lease runs the review worker.
    reviewWorkerRunning: () => leaseHeld(db, backgroundLease, Date.now()),
    referenceBinder: authorizer,
  });
  const metrics = serveMetrics(config, db);
  // The developer API's reads are counted beside the service's: their operationIds are their own.
  const observe = metrics ? logAndCount : logRequest;
  const app = createApp({ db, config, services, observe });
  const workerId = `${hostname()}:${process.pid}:${randomUUID()}`;
  const workers = buildWorkers(services, authorizer, workerId);
  let background: LeaseHolder | undefined;
  let developer: { server: Server; db: Db } | undefined;

  // Not the listen callback: Express 5 calls it on failure too.
  const server = answerClientErrors(keepIdleConnections(app.listen(config.port, config.host), config.http));
  server.once('listening', () => {
    background = holdLease({
      db,
      name: backgroundLease,
      owner: workerId,
      leaseMs: config.lifecycle.leaseMs,
      start: () => startBackground(workers),
      onChange: (holding) => logger.info(holding ? 'background work started' : 'background work stopped'),
    });
    logger.info(
      {
        url: `http://${config.host}:${boundPort(server, config.port)}`,
        database: config.databasePath,
        validateResponses: config.validateResponses,
      },
      'custom-launch-api listening',
    );
    developer = startDeveloperApi(config, services, authorizer?.chainDeployment ?? null, observe);
  });
  exitOnListenError(server, config, config.port, 'PORT', db);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'stopping');
    void metrics?.close();
    void shutDown({ config, server, developer, background: () => background, workers, db, evidence }).then(() =>
      process.exit(0),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // A cluster worker whose primary is gone has nobody handing it connections (and writing to it fails): it stops too.
  process.on('disconnect', () => stop('disconnect'));
  cluster.worker?.on('error', () => stop('disconnect'));
}
