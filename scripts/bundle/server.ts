/*
 * Builds `npm start`'s server bundle (build/server/main.mjs) from src/main.ts: `npx tsx scripts/bundle/server.ts`.
 * bin/server.mjs runs it when the bundle is missing or stale. The packages are taken into the bundle (all but
 * better-sqlite3 and solc): node then reads one file at startup rather than resolving and compiling viem's, ajv's
 * and express's hundreds of modules.
 */
import { mkdirSync, utimesSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundle } from './bundle.ts';
import { root, serverBundle, serverStamp } from './fresh.mjs';

// The bundle is dated from the build's start: a source saved while it builds is newer, so the next start rebuilds.
const startedAt = new Date();
mkdirSync(dirname(serverBundle), { recursive: true });
await bundle('src/main.ts', serverBundle, 'inline', serverStamp(root));
utimesSync(serverBundle, startedAt, startedAt);
