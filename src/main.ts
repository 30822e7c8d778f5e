/**
 * `npm start`: opens the SQLite database (DATABASE_PATH, default var/custom-launch.sqlite) and serves the API on
 * HOST:PORT (default 127.0.0.1:8787). Stops cleanly on SIGINT/SIGTERM.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { viemLaunchObserver } from './chain/launch-observer.ts';
import { privateAnvilEvm } from './chain/local-evm.ts';
import { minimumInitialBuyWei, priceFeedFromConfig } from './chain/price-feed.ts';
import { registryObservationProvider } from './chain/source-observation.ts';
import { watchDeploymentEvidence } from './chain/verify-deployment-evidence.ts';
import { loadConfig } from './config.ts';
import { authorizerFromConfig } from './domain/lifecycle/chain-gates.ts';
import { SourceVerifier } from './domain/lifecycle/source-verifier.ts';
import { LaunchTracker } from './domain/lifecycle/tracker.ts';
import { LifecycleWorker } from './domain/lifecycle/worker.ts';
import { ModuleReviewWorker } from './domain/modules/review-worker.ts';
import { createApp, keepIdleConnections } from './http/app.ts';
import { compileSolidityIsolated, pinnedCompilerVersion, solidityAstsIsolated } from './solidity/compile-contracts.ts';
import { openDatabase } from './store/db.ts';

const config = loadConfig();
const db = openDatabase(config.databasePath, { busyTimeoutMs: config.busyTimeoutMs });

const priceFeed = priceFeedFromConfig(config);
const authorizer = authorizerFromConfig(config);
// The bound deployment evidence is verified against the chain at start-up; until then the V4 lane takes no writes.
const evidence = authorizer ? watchDeploymentEvidence(authorizer.chainDeployment, config.chain4663RpcUrls) : null;
// Listening starts after the first attempt, so a client never meets a lane that is merely still checking.
await evidence?.first;
const app = createApp({
  db,
  config,
  ...(evidence ? { evidence: () => evidence.state().kind } : {}),
  reviewWorkerRunning: () => stopReviewWorker !== undefined,
  referenceBinder: authorizer,
});
const workerId = `${hostname()}:${process.pid}:${randomUUID()}`;
const worker = new LifecycleWorker({
  db,
  lifecycle: config.lifecycle,
  admission: { canonicalPoolManager: config.canonicalPoolManager },
  now: Date.now,
  workerId,
  minimumInitialBuyWei: () => minimumInitialBuyWei(priceFeed, Date.now()),
  authorizer,
  sourceAsts: solidityAstsIsolated,
});
// The post-authorization tracker follows the chain the gates are bound to; without chain gates nothing is authorized.
const observer = authorizer ? viemLaunchObserver(config.chain4663RpcUrls) : null;
const tracker =
  authorizer && observer
    ? new LaunchTracker({
        db,
        observer,
        finalityPolicy: authorizer.chainDeployment.finality,
        now: Date.now,
        workerId,
        pollMs: config.lifecycle.trackerPollMs,
      })
    : null;
// Source verification of finalized launches: the delivered sources, the pinned compiler, the finalized code on both
// providers, and the operator's registry of provider observations.
const verifier =
  authorizer && observer
    ? new SourceVerifier({
        db,
        observer,
        provider: registryObservationProvider(config.sourceVerificationRegistryPath, Date.now),
        compilerVersion: pinnedCompilerVersion(),
        compile: compileSolidityIsolated,
        now: Date.now,
        retryBaseMs: config.lifecycle.sourceVerificationRetryBaseMs,
        retryMaxMs: config.lifecycle.sourceVerificationRetryMaxMs,
      })
    : null;
// The module review pipeline: plans and builds submitted packages (reviewers decide through the admin command).
// The review's private local EVM for engine builds (the measured execution budget), started at the first one.
const reviewEvm = privateAnvilEvm();
const reviewWorker = new ModuleReviewWorker({
  db,
  now: Date.now,
  workerId,
  leaseMs: config.lifecycle.leaseMs,
  compile: compileSolidityIsolated,
  quoteEnvironmentSourceDigest: config.modulesQuoteEnvironmentSourceDigest,
  evm: reviewEvm.evm,
});
let stopReviewWorker: (() => Promise<void>) | undefined;
let stopWorker: (() => Promise<void>) | undefined;
let stopTracker: (() => Promise<void>) | undefined;
let stopVerifier: (() => Promise<void>) | undefined;

// Not the listen callback: Express 5 calls it on failure too.
const server = keepIdleConnections(app.listen(config.port, config.host));
server.once('listening', () => {
  stopWorker = worker.start();
  stopTracker = tracker?.start();
  stopVerifier = verifier?.start(config.lifecycle.sourceVerificationPollMs);
  stopReviewWorker = reviewWorker.start(config.modulesReviewPollMs);
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
});

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
  server.close(() => {
    void Promise.all([stopWorker?.(), stopTracker?.(), stopVerifier?.(), stopReviewWorker?.()])
      .then(() => reviewEvm.stop())
      .then(() => {
        db.close();
        process.exit(0);
      });
  });
  setTimeout(() => process.exit(0), 5000).unref();
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
