'use strict';
// The solc-js of the CLI the tests start (test/support/bundle.ts puts it in place of `require('solc')`): the same
// compiler, with each compilation's output kept for the rest of the vitest run under build/test-cli/solc-cache/,
// addressed by the compiler version and the exact standard-JSON input. solc's output depends only on that input and
// on what the import callback answers, so a kept output is used only when the callback, asked again for every path
// solc asked it, answers each exactly as before; otherwise, and when nothing is kept, solc compiles. The global setup
// empties the folder at the start of every run, so each run compiles each input once for real.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const cacheDir = join(__dirname, '../../build/test-cli/solc-cache');
const packageVersion = require('solc/package.json').version;
let loaded;
const solc = () => {
  loaded ??= require('solc');
  return loaded;
};
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
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, JSON.stringify({ input, asked, version: solc().version(), output }));
    renameSync(partial, file);
  }
  return output;
}

module.exports = new Proxy(
  {},
  {
    get(_target, name) {
      if (name === 'compile') return compile;
      if (name === 'version') return () => keptVersion ?? solc().version();
      return solc()[name];
    },
  },
);
