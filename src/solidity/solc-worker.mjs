// solc-js in a worker thread (compile-contracts.ts): either the compile of compileSolidityIsolated and the other
// isolated builds, or pinnedCompilerVersion's lookup. For a compile, the input is standard JSON whose sources are the
// whole closed set, so every import outside it is reported as not found. For the version, the answer is written into
// the shared buffer the parent thread waits on: Int32 0 the state (1 version, 2 error), Int32 1 the byte length, then
// the UTF-8 text.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const require = createRequire(import.meta.url);

if (workerData.version) {
  const state = new Int32Array(workerData.version, 0, 2);
  let status = 1;
  let text;
  try {
    text = require('solc').version();
  } catch (err) {
    status = 2;
    text = String(err);
  }
  const bytes = Buffer.from(text, 'utf8').subarray(0, workerData.version.byteLength - 8);
  new Uint8Array(workerData.version, 8).set(bytes);
  Atomics.store(state, 1, bytes.length);
  Atomics.store(state, 0, status);
  Atomics.notify(state, 0);
} else {
  const solc = require('solc');
  // solc asks the callback only for units missing from the input, and the input holds the whole closed set.
  const output = solc.compile(workerData.input, { import: (path) => ({ error: `not found: ${path}` }) });
  parentPort.postMessage({ output, version: solc.version() });
}
