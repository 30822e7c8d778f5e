/*
 * `npx tsx scripts/bench/scanner.ts`: throughput of the static baseline's linear sweep (`scanRuntime`) over 24 KiB
 * runtime codes (the EIP-170 size limit), BENCH_SECONDS per corpus (default 3). Prints MB/s; never fails on them.
 * Corpora: solc-shaped code (dispatcher, PUSH4/PUSH20/PUSH32, JUMPDESTs, a CBOR trailer) and uniformly random
 * bytes (many terminators, JUMPDESTs and truncated immediates).
 */
import { scanRuntime } from '../../src/domain/static-baseline/opcode-scanner.ts';

const codeSize = 24 * 1024;
const seconds = Number(process.env.BENCH_SECONDS ?? 3);

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state >>> 24;
  };
}

function randomCode(seed: number): Uint8Array {
  const next = random(seed);
  return Uint8Array.from({ length: codeSize }, next);
}

function solcShapedCode(seed: number): Uint8Array {
  const next = random(seed);
  const hex = (n: number) => Array.from({ length: n }, () => next().toString(16).padStart(2, '0')).join('');
  const trailer = `a264697066735822${hex(34)}64736f6c6343000825`;
  const blocks: string[] = ['6080604052'];
  let size = 5 + trailer.length / 2 + 2;
  while (size < codeSize - 64) {
    const block = `5b8063${hex(4)}1461${hex(2)}57${'73'}${hex(20)}7f${'00'.repeat(12)}${hex(20)}16813360${hex(1)}5556`;
    blocks.push(block);
    size += block.length / 2;
  }
  blocks.push('fe', trailer, (trailer.length / 2).toString(16).padStart(4, '0'));
  return Buffer.from(blocks.join(''), 'hex');
}

function measure(name: string, codes: Uint8Array[]): void {
  let bytes = 0;
  let scans = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  while (performance.now() < deadline) {
    for (const code of codes) {
      scanRuntime(code);
      bytes += code.length;
      scans++;
    }
  }
  const elapsed = (performance.now() - started) / 1000;
  const mbPerSecond = bytes / elapsed / 1e6;
  console.log(
    `${name}: ${scans} scans of ~${codeSize} bytes in ${elapsed.toFixed(2)} s = ${mbPerSecond.toFixed(1)} MB/s`,
  );
}

const seeds = [1, 2, 3, 4, 5, 6, 7, 8];
measure('solc-shaped', seeds.map(solcShapedCode));
measure('random bytes', seeds.map(randomCode));
