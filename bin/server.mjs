#!/usr/bin/env node
// `npm start`: runs the server (src/main.ts) from its prebuilt plain-JavaScript bundle, build/server/main.mjs,
// rather than compiling TypeScript through tsx at every start. The bundle is built first (scripts/bundle/server.ts,
// in a child process, so the server never holds esbuild or tsx) when it is missing or older than any of its inputs
// (scripts/bundle/fresh.mjs). With WORKERS=N the node:cluster workers start the bundle itself: they never build.
import { spawnSync } from 'node:child_process';
import cluster from 'node:cluster';
import { pathToFileURL } from 'node:url';
import { bundleIsFresh, root, serverBundle, serverInputs } from '../scripts/bundle/fresh.mjs';

// tsx's hooks, when this is started from a tsx process (`make start`): the workers run plain JavaScript.
const isTsxHook = (arg) => arg.includes('/node_modules/tsx/');

function withoutTsx(execArgv) {
  const kept = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i];
    const next = execArgv[i + 1] ?? '';
    if ((arg === '--import' || arg === '--require') && isTsxHook(next)) i++;
    else if (!isTsxHook(arg)) kept.push(arg);
  }
  return kept;
}

if (!bundleIsFresh(serverBundle, root, serverInputs)) {
  const built = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), `${root}scripts/bundle/server.ts`], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (built.status !== 0) {
    console.error(`building ${serverBundle} failed`);
    process.exit(built.status ?? 1);
  }
}
cluster.setupPrimary({ exec: serverBundle, execArgv: withoutTsx(process.execArgv) });
await import(pathToFileURL(serverBundle).href);
