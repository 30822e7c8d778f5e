/*
 * Section `scanner`: throughput of the static baseline's linear sweep (`scanRuntime`,
 * src/domain/static-baseline/opcode-scanner.ts) over 24 KiB runtime codes (the EIP-170 size limit), beside a plain
 * byte loop (counting JUMPDEST bytes) over the same bytes, in the bench process. Corpora: solc-shaped code
 * (dispatcher, PUSH4/PUSH20/PUSH32, JUMPDESTs, a CBOR trailer) and uniformly random bytes (many terminators,
 * JUMPDESTs and truncated immediates). The sweeps alternate in slices of about 250 ms for BENCH_SECONDS each, so a
 * change in the machine's load falls on both alike.
 */
import { scanRuntime } from '../../src/domain/static-baseline/opcode-scanner.ts';
import { seconds } from './harness.ts';
import { type BenchSection, ratioOf } from './report.ts';

/** Bytes of each code of the corpora: 24 KiB, the EIP-170 limit. */
export const codeSize = 24 * 1024;

/** A deterministic byte generator (a linear congruential generator's top byte). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state >>> 24;
  };
}

/** 24 KiB of uniformly random bytes. */
export function randomCode(seed: number): Uint8Array {
  const next = random(seed);
  return Uint8Array.from({ length: codeSize }, next);
}

/** 24 KiB shaped like solc output: the free-memory prelude, dispatcher blocks, INVALID and a CBOR metadata trailer. */
export function solcShapedCode(seed: number): Uint8Array {
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

/** Counts JUMPDEST (0x5b) bytes: the plain loop over the same bytes the scanner is read against. */
export function countJumpdests(code: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < code.length; i++) if (code[i] === 0x5b) n++;
  return n;
}

type Sweep = (code: Uint8Array) => unknown;

/** MB/s of each sweep over `codes`, the sweeps taking turns in slices until each has run `seconds`. */
function alternate(codes: Uint8Array[], sweeps: Sweep[]): number[] {
  const bytes = sweeps.map(() => 0);
  const busyMs = sweeps.map(() => 0);
  let sink = 0;
  while (busyMs.some((ms) => ms < seconds * 1000)) {
    sweeps.forEach((sweep, k) => {
      const started = performance.now();
      const until = started + 250;
      while (performance.now() < until) {
        for (const code of codes) {
          // Keep each result alive, so neither loop can be optimized away.
          sink += sweep(code) ? 1 : 0;
          bytes[k] = (bytes[k] ?? 0) + code.length;
        }
      }
      busyMs[k] = (busyMs[k] ?? 0) + performance.now() - started;
    });
  }
  if (sink < 0) throw new Error('unreachable');
  return bytes.map((b, k) => Math.round((b / ((busyMs[k] ?? 1) / 1000) / 1e6) * 10) / 10);
}

/** Runs the section: the scanner and the byte loop over the solc-shaped corpus, then the scanner on random bytes. */
export async function run(): Promise<BenchSection> {
  const seeds = [1, 2, 3, 4, 5, 6, 7, 8];
  const solc = seeds.map(solcShapedCode);
  process.stderr.write(`  scanRuntime and a byte loop over solc-shaped code: ${seconds} s each\n`);
  const [scanSolc = 0, loopSolc = 0] = alternate(solc, [scanRuntime, countJumpdests]);
  process.stderr.write(`  scanRuntime and a byte loop over random bytes: ${seconds} s each\n`);
  const [scanRandom = 0, loopRandom = 0] = alternate(seeds.map(randomCode), [scanRuntime, countJumpdests]);
  const section: BenchSection = {
    name: 'scanner',
    figures: [
      { id: 'scanner.solc', label: 'scanner: scanRuntime, solc-shaped', value: scanSolc, unit: 'MB/s' },
      { id: 'scanner.byteLoop', label: 'scanner: byte loop, solc-shaped', value: loopSolc, unit: 'MB/s' },
      { id: 'scanner.random', label: 'scanner: scanRuntime, random bytes', value: scanRandom, unit: 'MB/s' },
      { id: 'scanner.byteLoopRandom', label: 'scanner: byte loop, random bytes', value: loopRandom, unit: 'MB/s' },
    ],
    ratios: [],
    notes: [`${seeds.length} codes of ${codeSize} bytes per corpus; in the bench process, ${seconds} s per sweep`],
  };
  section.ratios.push(
    ratioOf(section, 'scanner.solc/loop', 'scanner / byte loop (solc-shaped)', 'scanner.solc', 'scanner.byteLoop', {
      target: '>= 0.333',
    }),
    ratioOf(section, 'scanner.random/loop', 'scanner / byte loop (random)', 'scanner.random', 'scanner.byteLoopRandom'),
  );
  return section;
}
