'use strict';
// Preloaded (`node --require`) into every process of a vitest run: the test workers, the server and CLI processes
// they start, and those processes' solc worker threads. `require('solc')` there gives the same solc-js with each
// compilation's output kept for the rest of the run under build/test-run/solc-cache/, addressed by the compiler
// version and the exact standard-JSON input. solc's output depends only on that input and on what the import
// callback answers, so a kept output is used only when the callback, asked again for every path solc asked it,
// answers each exactly as before; otherwise, and when nothing is kept, solc compiles. The global setup
// (test/support/global-setup.ts) empties the folder at the start of every run, so each run compiles each input once
// for real.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');

const cacheDir = join(__dirname, '../../build/test-run/solc-cache');
const solcPath = require.resolve('solc');
const packageVersion = require('solc/package.json').version;

let real;
/** The real solc-js, loaded on the first compilation that is not kept (loading it takes about a second). */
function solc() {
  if (!real) {
    const kept = require.cache[solcPath];
    delete require.cache[solcPath];
    try {
      real = require(solcPath);
    } finally {
      require.cache[solcPath] = kept;
    }
  }
  return real;
}
/** The version of the build a kept output came from, so version() needs no compiler load after a hit. */
let keptVersion;

const sameAnswer = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function compile(input, options) {
  const ask = options?.import;
  const file = join(cacheDir, `${createHash('sha256').update(`${packageVersion}\0${input}`).digest('hex')}.json`);
  let kept;
  try {
    kept = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    kept = undefined;
  }
  if (kept && kept.input === input && (ask || kept.asked.length === 0)) {
    try {
      if (kept.asked.every(([path, answer]) => sameAnswer(ask(path), answer))) {
        keptVersion = kept.version;
        return kept.output;
      }
    } catch {
      // The callback threw where it answered before: solc compiles and meets the same throw.
    }
  }
  const asked = [];
  let threw = false;
  const recording = ask
    ? {
        ...options,
        import: (path) => {
          let answer;
          try {
            answer = ask(path);
          } catch (err) {
            threw = true;
            throw err;
          }
          asked.push([path, answer]);
          return answer;
        },
      }
    : options;
  const output = solc().compile(input, recording);
  if (!threw) {
    mkdirSync(cacheDir, { recursive: true });
    const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
    writeFileSync(partial, JSON.stringify({ input, asked, version: solc().version(), output }));
    renameSync(partial, file);
  }
  return output;
}

const cached = new Proxy(
  {},
  {
    get(_target, name) {
      if (name === 'compile') return compile;
      if (name === 'version') return () => keptVersion ?? solc().version();
      return solc()[name];
    },
  },
);

const entry = new Module(solcPath, null);
entry.filename = solcPath;
entry.loaded = true;
entry.exports = cached;
require.cache[solcPath] = entry;
