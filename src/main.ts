/*
 * `npm start`: opens the SQLite database (DATABASE_PATH, default var/custom-launch.sqlite) and serves the API on
 * HOST:PORT (default 127.0.0.1:8787), and the read-only developer API on HOST:DEVELOPERS_PORT (default 8788; `off`:
 * none) over its own read-only connection. Stops cleanly on SIGINT/SIGTERM.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { loadConfig } from './config.ts';
import { createApp, keepIdleConnections } from './http/app.ts';
import { answerClientErrors } from './http/client-error.ts';
import { createDeveloperApp, developerCorsHeaders } from './http/developer-app.ts';
import { buildChainGates, buildServices, buildWorkers } from './services.ts';
import { type Db, openDatabase, openReadOnlyDatabase } from './store/db.ts';

const config = loadConfig();
const db = openDatabase(config.databasePath, { busyTimeoutMs: config.busyTimeoutMs });

const { authorizer, evidence } = buildChainGates(config);
// Listening starts after the first attempt, so a client never meets a lane that is merely still checking.
await evidence?.first;
const services = buildServices({
  db,
  config,
  now: Date.now,
  ...(evidence ? { evidence: () => evidence.state().kind } : {}),
  reviewWorkerRunning: () => stopReviewWorker !== undefined,
  referenceBinder: authorizer,
});
const app = createApp({ db, config, services });
const workers = buildWorkers(services, authorizer, `${hostname()}:${process.pid}:${randomUUID()}`);
let stopReviewWorker: (() => Promise<void>) | undefined;
let stopWorker: (() => Promise<void>) | undefined;
let stopTracker: (() => Promise<void>) | undefined;
let stopVerifier: (() => Promise<void>) | undefined;
let stopBaseLayer: (() => Promise<void>) | undefined;
let stopBaseTracker: (() => Promise<void>) | undefined;
let stopMultiRole: (() => Promise<void>) | undefined;
let stopMultiRoleTracker: (() => Promise<void>) | undefined;
let developerServer: Server | undefined;
let developerDb: Db | undefined;

// Not the listen callback: Express 5 calls it on failure too.
const server = answerClientErrors(keepIdleConnections(app.listen(config.port, config.host), config.http));
server.once('listening', () => {
  stopWorker = workers.lifecycle();
  stopTracker = workers.tracker?.();
  stopVerifier = workers.verifier?.();
  stopReviewWorker = workers.review();
  stopBaseLayer = workers.baseLayer();
  stopBaseTracker = workers.baseTracker?.();
  stopMultiRole = workers.multiRole();
  stopMultiRoleTracker = workers.multiRoleTracker?.();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  console.log(
    JSON.stringify({
      level: 'info',
      msg: 'custom-launch-api listening',
      url: `http://${config.host}:${port}`,
      database: config.databasePath,
      validateResponses: config.validateResponses,
      pid: process.pid,
    }),
  );
  startDeveloperApi();
});

/**
 * The developer API on its own listener, started once the service listens (the service's line is logged first) and
 * over its own read-only connection, opened after the service's connection has migrated the file.
 */
function startDeveloperApi(): void {
  if (config.developersPort === null) return;
  // Another connection cannot read an in-memory database, so there is nothing for the developer API to serve.
  if (config.databasePath === ':memory:') {
    console.error(
      JSON.stringify({ level: 'warn', msg: 'developer API not started: DATABASE_PATH is :memory: (set a file)' }),
    );
    return;
  }
  developerDb = openReadOnlyDatabase(config.databasePath, { busyTimeoutMs: config.busyTimeoutMs });
  const developerApp = createDeveloperApp({
    db: developerDb,
    config,
    services,
    chainDeployment: authorizer?.chainDeployment ?? null,
  });
  const listener = answerClientErrors(
    keepIdleConnections(developerApp.listen(config.developersPort, config.host), config.http),
    developerCorsHeaders,
  );
  developerServer = listener;
  listener.once('listening', () => {
    const address = listener.address();
    const port = typeof address === 'object' && address ? address.port : config.developersPort;
    console.log(
      JSON.stringify({ level: 'info', msg: 'developer API listening', url: `http://${config.host}:${port}` }),
    );
  });
  listener.on('error', (err: NodeJS.ErrnoException) => {
    const hint = err.code === 'EADDRINUSE' ? ' (the port is taken: stop the other process or set DEVELOPERS_PORT)' : '';
    console.error(
      JSON.stringify({
        level: 'error',
        msg: `cannot listen on ${config.host}:${config.developersPort}${hint}`,
        code: err.code,
      }),
    );
    process.exit(1);
  });
}

server.on('error', (err: NodeJS.ErrnoException) => {
  const hint = err.code === 'EADDRINUSE' ? ` (port ${config.port} is taken: stop the other process or set PORT)` : '';
  console.error(
    JSON.stringify({ level: 'error', msg: `cannot listen on ${config.host}:${config.port}${hint}`, code: err.code }),
  );
  db.close();
  process.exit(1);
});

function stop(signal: string): void {
  console.log(JSON.stringify({ level: 'info', msg: 'stopping', signal }));
  evidence?.stop();
  developerServer?.close(() => developerDb?.close());
  server.close(() => {
    void Promise.all([
      stopWorker?.(),
      stopTracker?.(),
      stopVerifier?.(),
      stopReviewWorker?.(),
      stopBaseLayer?.(),
      stopBaseTracker?.(),
      stopMultiRole?.(),
      stopMultiRoleTracker?.(),
    ])
      .then(() => workers.stopReviewEvm())
      .then(() => {
        db.close();
        process.exit(0);
      });
  });
  setTimeout(() => process.exit(0), 5000).unref();
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
