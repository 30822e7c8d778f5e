/*
 * `npm start`: opens the SQLite database (DATABASE_PATH, default var/custom-launch.sqlite) and serves the API on
 * HOST:PORT (default 127.0.0.1:8787), and the read-only developer API on HOST:DEVELOPERS_PORT (default 8788; `off`:
 * none) over its own read-only connection. WORKERS=1 (the default) is this one process (src/server/serve.ts); WORKERS=N
 * runs a node:cluster primary (src/server/cluster.ts) whose N workers each run it on the same ports and file. Stops
 * cleanly on SIGINT/SIGTERM.
 */
import cluster from 'node:cluster';
import v8 from 'node:v8';
import { loadConfig } from './config.ts';
import { runPrimary } from './server/cluster.ts';
import { serve } from './server/serve.ts';

// V8 grows the old generation far above the live data when large bodies come quickly (a 60 s mixed load with maximal
// preflights peaked at 320 MB of RSS with about 40 MB live): the next limit after a full collection is 1.5 times the
// live data instead of up to 4 times. An operator's own --heap-growing-percent on the command line is kept.
// docs/configuration.md (Memory) gives the measured trade-off.
if (!process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent'))) {
  v8.setFlagsFromString('--heap-growing-percent=50');
}

const config = loadConfig();
if (config.workers > 1 && cluster.isPrimary) runPrimary(config);
else await serve(config);
