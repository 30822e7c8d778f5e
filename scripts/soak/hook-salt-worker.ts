/*
 * Worker thread of hookSaltSupply (requests.ts): on each message, mines one hook salt from a random start for the
 * hook in workerData and posts it back.
 */
import { randomBytes } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import type { Hex } from 'viem';
import { mineHookSalt } from '../../src/core/create2.ts';

const { factory, router, runtimeCode, mask } = workerData as {
  factory: Hex;
  router: Hex;
  runtimeCode: Hex;
  mask: number;
};

parentPort?.on('message', () => {
  // A start below 2^248 leaves room to count up, as pack's own search does.
  const start = BigInt(`0x${randomBytes(31).toString('hex')}`);
  parentPort?.postMessage(mineHookSalt(factory, router, runtimeCode, mask, start));
});
