// Plain JavaScript, so that bin/server.mjs can ask, without loading TypeScript, whether `npm start`'s server
// bundle (built by scripts/bundle/server.ts) still matches its sources. Types: fresh.d.mts.
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root directory, with a trailing slash. */
export const root = fileURLToPath(new URL('../../', import.meta.url));

/** `npm start`'s server: src/main.ts and its dependencies bundled into one plain ES module. */
export const serverBundle = `${root}build/server/main.mjs`;

/**
 * What the server bundle is built from (relative to the repository): the sources, the generated code, the bundler,
 * and the installed packages (through the lock file).
 */
export const serverInputs = ['src', 'generated', 'scripts/bundle', 'package.json', 'package-lock.json'];

/**
 * The server bundle's first line (after `// `): the checkout it was built from, whose files it reads at run time
 * (spec/, generated/, node_modules/), so a bundle carried to another directory counts as stale.
 */
export function serverStamp(rootDir) {
  return `custom-launch-api server bundle built from ${rootDir}`;
}

/**
 * The latest modification time (ms) among `inputs` (files or folders, relative to `rootDir`) and everything under
 * the folders; a folder's own time counts too, as it changes when a file in it is removed or renamed. A missing
 * input counts as 0.
 */
export function newestInputMs(rootDir, inputs) {
  let newest = 0;
  for (const input of inputs) {
    const path = join(rootDir, input);
    let stat;
    try {
      stat = statSync(path);
    } catch {
      continue;
    }
    newest = Math.max(newest, stat.mtimeMs);
    if (!stat.isDirectory()) continue;
    for (const name of readdirSync(path, { recursive: true })) {
      newest = Math.max(newest, statSync(join(path, name)).mtimeMs);
    }
  }
  return newest;
}

function firstLineOf(path) {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(4096);
    const read = readSync(fd, head, 0, head.length, 0);
    return head.subarray(0, read).toString('utf8').split('\n', 1)[0];
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether the bundle at `bundlePath` can be started as it is: it exists, its first line is `// ` and the stamp of
 * `rootDir` (serverStamp), and no input is newer than it. A few hundred stat calls: a few milliseconds.
 */
export function bundleIsFresh(bundlePath, rootDir, inputs) {
  let builtMs;
  try {
    builtMs = statSync(bundlePath).mtimeMs;
  } catch {
    return false;
  }
  if (firstLineOf(bundlePath) !== `// ${serverStamp(rootDir)}`) return false;
  return newestInputMs(rootDir, inputs) <= builtMs;
}
