/*
 * `npm start`: opens the SQLite database (DATABASE_PATH, default var/custom-launch.sqlite) and serves the API on
 * HOST:PORT (default 127.0.0.1:8787), and the read-only developer API on HOST:DEVELOPERS_PORT (default 8788; `off`:
 * none) over its own read-only connection. WORKERS=1 (the default) is this one process (src/server/serve.ts); WORKERS=N
 * runs a node:cluster primary (src/server/cluster.ts) whose N workers each run it on the same ports and file. Stops
 * cleanly on SIGINT/SIGTERM.
 */
import cluster from 'node:cluster';
import { loadConfig } from './config.ts';
import { runPrimary } from './server/cluster.ts';
import { serve } from './server/serve.ts';

const config = loadConfig();
if (config.workers > 1 && cluster.isPrimary) runPrimary(config);
else await serve(config);
