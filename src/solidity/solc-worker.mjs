// The solc-js compile of compileSolidityIsolated (compile-contracts.ts), run in a worker thread. The input is
// standard JSON whose sources are the whole closed set, so every import outside it is reported as not found.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const solc = require('solc');
// solc asks the callback only for units missing from the input, and the input holds the whole closed set.
const output = solc.compile(workerData.input, { import: (path) => ({ error: `not found: ${path}` }) });
parentPort.postMessage({ output, version: solc.version() });
