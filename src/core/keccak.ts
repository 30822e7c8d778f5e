/*
 * Keccak-256 (the pre-standard padding Ethereum uses, not SHA3-256) over a small WebAssembly permutation built here
 * from its definition. Node's OpenSSL offers only SHA3's padding, and the pure-JS permutation viem ships runs at a few
 * MB/s, which made hashing a maximal preflight's 393 KB of runtime code most of its CPU time.
 */
import type { Hex } from 'viem';

/** Bytes absorbed per permutation: 1600 - 2 * 256 bits. */
const rate = 136;
/** Memory layout of the module: the 25-lane state, the 24 round constants, then the input blocks. */
const roundConstantsAt = 200;
const inputAt = 512;
const pageBytes = 65_536;
const blocksPerCall = Math.floor((pageBytes - inputAt) / rate);

/** The 24 round constants, from the LFSR x^8 + x^6 + x^5 + x^4 + 1 of the Keccak reference. */
function roundConstants(): bigint[] {
  let lfsr = 1;
  const bit = () => {
    const out = lfsr & 1;
    lfsr = lfsr & 0x80 ? ((lfsr << 1) ^ 0x71) & 0xff : lfsr << 1;
    return out;
  };
  return Array.from({ length: 24 }, () => {
    let constant = 0n;
    for (let j = 0; j < 7; j++) if (bit()) constant |= 1n << BigInt((1 << j) - 1);
    return constant;
  });
}

/** Rotation offset of each lane (index x + 5y), walking (x, y) -> (y, 2x + 3y) from (1, 0) as the reference does. */
function rotationOffsets(): number[] {
  const offsets = new Array<number>(25).fill(0);
  let x = 1;
  let y = 0;
  for (let t = 0; t < 24; t++) {
    offsets[x + 5 * y] = (((t + 1) * (t + 2)) / 2) % 64;
    [x, y] = [y, (2 * x + 3 * y) % 5];
  }
  return offsets;
}

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    const low = n & 0x7f;
    n >>>= 7;
    out.push(n ? low | 0x80 : low);
  } while (n);
  return out;
};
const sleb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const low = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(low & 0x40)) || (n === -1 && low & 0x40)) return [...out, low];
    out.push(low | 0x80);
  }
};
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const name = (text: string) => [...uleb(text.length), ...Buffer.from(text, 'latin1')];

/** WebAssembly opcodes the permutation uses. */
const op = { get: 0x20, set: 0x21, xor: 0x85, and: 0x83, rotl: 0x89, i64const: 0x42, load: 0x29, store: 0x37 };

/**
 * Emits the function body. Locals: 0 the block count (the parameter), 1 the input pointer, 2 the round offset, then
 * the i64 lanes: a (state), b (after rho and pi), c (column parities) and d (theta's effect per column).
 */
class Emitter {
  readonly code: number[] = [];
  a = (i: number) => 3 + i;
  b = (i: number) => 28 + i;
  c = (i: number) => 53 + i;
  d = (i: number) => 58 + i;
  push = (...bytes: number[]) => this.code.push(...bytes);
  get = (local: number) => this.push(op.get, ...uleb(local));
  set = (local: number) => this.push(op.set, ...uleb(local));
  i32 = (value: number) => this.push(0x41, ...sleb(value));
  rotl = (by: number) => {
    if (by !== 0) this.push(op.i64const, ...sleb(by), op.rotl);
  };
  /** local[index] += by (i32). */
  add = (index: number, by: number) => {
    this.get(index);
    this.i32(by);
    this.push(0x6a);
    this.set(index);
  };
}

/** One round, fully unrolled: theta, rho and pi (into b), chi (back into a), iota (the round constant at local 2). */
function emitRound(e: Emitter, offsets: number[]): void {
  const { a, b, c, d } = e;
  for (let x = 0; x < 5; x++) {
    e.get(a(x));
    for (let y = 1; y < 5; y++) {
      e.get(a(x + 5 * y));
      e.push(op.xor);
    }
    e.set(c(x));
  }
  for (let x = 0; x < 5; x++) {
    e.get(c((x + 4) % 5));
    e.get(c((x + 1) % 5));
    e.rotl(1);
    e.push(op.xor);
    e.set(d(x));
  }
  for (let x = 0; x < 5; x++) {
    for (let y = 0; y < 5; y++) {
      e.get(a(x + 5 * y));
      e.get(d(x));
      e.push(op.xor);
      e.rotl(offsets[x + 5 * y] ?? 0);
      e.set(b(y + 5 * ((2 * x + 3 * y) % 5)));
    }
  }
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++) {
      e.get(b(x + 5 * y));
      e.get(b(((x + 1) % 5) + 5 * y));
      e.push(op.i64const, 0x7f, op.xor); // NOT as XOR with -1
      e.get(b(((x + 2) % 5) + 5 * y));
      e.push(op.and, op.xor);
      e.set(a(x + 5 * y));
    }
  }
  e.get(a(0));
  e.get(2);
  e.push(op.load, 3, ...uleb(roundConstantsAt), op.xor);
  e.set(a(0));
}

/**
 * The module: `absorb(blocks)` XORs that many 136-byte blocks from `inputAt` into the state and permutes after each.
 * The state stays in locals across blocks; the 24 rounds are one loop over a fully unrolled round.
 */
function keccakModule(): Uint8Array {
  const e = new Emitter();
  for (let i = 0; i < 25; i++) {
    e.i32(0);
    e.push(op.load, 3, ...uleb(8 * i));
    e.set(e.a(i));
  }
  e.i32(inputAt);
  e.set(1);
  e.push(0x02, 0x40, 0x03, 0x40); // block $done, loop $blocks
  e.get(0);
  e.push(0x45, 0x0d, 1); // no blocks left (i32.eqz, br_if): out
  for (let i = 0; i < rate / 8; i++) {
    e.get(e.a(i));
    e.get(1);
    e.push(op.load, 3, ...uleb(8 * i), op.xor);
    e.set(e.a(i));
  }
  e.i32(0);
  e.set(2);
  e.push(0x03, 0x40); // loop $rounds
  emitRound(e, rotationOffsets());
  // The next round constant; the rounds loop again until all 24 ran (i32.ne, br_if, end).
  e.add(2, 8);
  e.get(2);
  e.i32(24 * 8);
  e.push(0x47, 0x0d, 0, 0x0b);
  // The next block (pointer += 136, blocks -= 1), then the blocks loop again (br); end loop, end block.
  e.add(1, rate);
  e.add(0, -1);
  e.push(0x0c, 0, 0x0b, 0x0b);
  for (let i = 0; i < 25; i++) {
    e.i32(0);
    e.get(e.a(i));
    e.push(op.store, 3, ...uleb(8 * i));
  }
  e.push(0x0b);
  const body = [2, 2, 0x7f, 60, 0x7e, ...e.code];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 1, 0x7f, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0, 1]),
    ...section(7, [2, ...name('absorb'), 0, 0, ...name('memory'), 2, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

/** The part of the WebAssembly global used here (the project's TypeScript libraries do not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: { absorb: (blocks: number) => void; memory: { buffer: ArrayBuffer } } };
}

let instance: { absorb: (blocks: number) => void; memory: Uint8Array } | undefined;

function permutation(): NonNullable<typeof instance> {
  if (instance) return instance;
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const { exports } = new wasm.Instance(new wasm.Module(keccakModule()));
  new BigUint64Array(exports.memory.buffer, roundConstantsAt, 24).set(roundConstants());
  instance = { absorb: exports.absorb, memory: new Uint8Array(exports.memory.buffer) };
  return instance;
}

/**
 * Keccak-256 of bytes (Ethereum's hash: Keccak padding 0x01 ... 0x80, not SHA3's 0x06), as viem's `keccak256(bytes,
 * 'bytes')` computes it.
 *
 * @returns The 32-byte digest.
 */
export function keccak256Bytes(data: Uint8Array): Uint8Array {
  const { absorb, memory } = permutation();
  memory.fill(0, 0, roundConstantsAt);
  const full = Math.floor(data.length / rate);
  for (let block = 0; block < full; block += blocksPerCall) {
    const count = Math.min(blocksPerCall, full - block);
    memory.set(data.subarray(block * rate, (block + count) * rate), inputAt);
    absorb(count);
  }
  const tail = data.subarray(full * rate);
  memory.fill(0, inputAt, inputAt + rate);
  memory.set(tail, inputAt);
  memory[inputAt + tail.length] = 0x01;
  memory[inputAt + rate - 1] = (memory[inputAt + rate - 1] ?? 0) | 0x80;
  absorb(1);
  return memory.slice(0, 32);
}

/**
 * Keccak-256 of a `0x` hex string or of bytes, as viem's `keccak256(value)` computes it (lowercase `0x` + 64 hex).
 *
 * @throws {TypeError} When a string is not `0x`-prefixed even-length hex.
 */
export function keccak256Hex(value: Hex | Uint8Array): Hex {
  let bytes: Uint8Array;
  if (typeof value === 'string') {
    bytes = Buffer.from(value.slice(2), 'hex');
    // Buffer.from stops at the first pair that is not hex; viem would throw there.
    if (!value.startsWith('0x') || bytes.length * 2 !== value.length - 2) {
      throw new TypeError('keccak256Hex: not 0x-prefixed even-length hex');
    }
  } else {
    bytes = value;
  }
  return `0x${Buffer.from(keccak256Bytes(bytes)).toString('hex')}` as Hex;
}
