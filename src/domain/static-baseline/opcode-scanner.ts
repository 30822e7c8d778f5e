/** Opcodes the static baseline reports (`staticBaseline` of spec/schemas/custom-launch-preflight.v2.schema.json). */
export const opcodes = {
  STOP: 0x00,
  JUMP: 0x56,
  JUMPI: 0x57,
  JUMPDEST: 0x5b,
  PUSH0: 0x5f,
  PUSH1: 0x60,
  PUSH2: 0x61,
  PUSH4: 0x63,
  PUSH20: 0x73,
  PUSH32: 0x7f,
  CALLCODE: 0xf2,
  RETURN: 0xf3,
  DELEGATECALL: 0xf4,
  REVERT: 0xfd,
  INVALID: 0xfe,
  SELFDESTRUCT: 0xff,
} as const;

/**
 * One reachable occurrence of an opcode. `embeddedStart` is the nearest embedded creation code start at or before
 * the offset, or null when the offset precedes all of them (solc places embedded code after the parent's code).
 */
export interface OpcodeHit {
  offset: number;
  embeddedStart: number | null;
}

/** An address literal: a PUSH20, or a PUSH32 whose top 12 bytes are zero (a filled immutable). */
export interface AddressLiteral extends OpcodeHit {
  /** Lowercase `0x` + 40 hex digits. */
  address: string;
  opcode: 'PUSH20' | 'PUSH32';
}

/** A 4-byte value pushed by a reachable PUSH4, usually a function selector or a custom error selector. */
export interface PushedSelector extends OpcodeHit {
  /** Lowercase `0x` + 8 hex digits. */
  selector: string;
}

/** The Solidity CBOR metadata trailer when it validated and was excluded from the sweep. */
export interface MetadataTrailer {
  /** Offset of the CBOR map; the trailer runs from here to the end of the code. */
  start: number;
  /** The CBOR map's length as the final two bytes state it. */
  length: number;
  /** Top-level keys of the map in encoded order, e.g. `['ipfs', 'solc']`. */
  keys: string[];
}

/** What one linear sweep over runtime code found. */
export interface ScanResult {
  codeLength: number;
  /** `null` when the code has no trailer or its trailer did not validate (then every byte was swept). */
  metadata: MetadataTrailer | null;
  callcode: OpcodeHit[];
  selfdestruct: OpcodeHit[];
  delegatecall: OpcodeHit[];
  addressLiterals: AddressLiteral[];
  selectors: PushedSelector[];
  /** Offset of a PUSH whose immediate runs past the end of the code (truncated data, not an opcode). */
  truncatedPushOffset: number | null;
  /** Offsets of data regions swept as embedded creation code (a factory's child), ascending. */
  embeddedCreationCodes: number[];
}

/** Per opcode: 1 when it ends the reachable code (STOP, JUMP, RETURN, REVERT, INVALID, SELFDESTRUCT). */
const terminates = new Uint8Array(256);
for (const opcode of [
  opcodes.STOP,
  opcodes.JUMP,
  opcodes.RETURN,
  opcodes.REVERT,
  opcodes.INVALID,
  opcodes.SELFDESTRUCT,
])
  terminates[opcode] = 1;

/** Sweep state: reachable or not, stored per offset so a sweep stops where another already walked. */
const reachableBit = 1;
const unreachableBit = 2;

/**
 * Scans EVM runtime code by linear sweep. The findings feed the objective hard-block rules of the static baseline
 * (`staticBaseline` of spec/schemas/custom-launch-preflight.v2.schema.json).
 *
 * - The Solidity CBOR metadata trailer is excluded only when it validates strictly (see `parseSolidityMetadata`):
 *   the final two bytes are a big-endian length L with L + 2 <= code length, the byte at `length - 2 - L` is a map
 *   header 0xa1..0xb7, and those L bytes parse completely as one CBOR map whose keys are all known Solidity
 *   metadata keys. Anything less and the trailer bytes are swept like the rest.
 * - PUSH1..PUSH32 skip their immediates, PUSH0 has none; a PUSH whose immediate runs past the end is truncated
 *   data. Immediates are skipped in unreachable regions too, because that is how the EVM decides which 0x5b
 *   bytes are valid jump destinations.
 * - After STOP, JUMP, RETURN, REVERT, INVALID or SELFDESTRUCT the code is unreachable until the next JUMPDEST.
 * - Embedded creation code: a factory carries its child's creation code as data after its own terminators, where
 *   the sweep would ignore it. Any unreachable byte that starts solc's creation prologue
 *   `PUSH1|PUSH2 <free memory pointer> PUSH1 0x40 MSTORE` (e.g. `6080604052`, `60a0604052` with immutables) is
 *   also swept as code from that offset with its own instruction alignment, and nested children the same way.
 *   This over-approximates: data that merely looks like the prologue is treated as code.
 * - A Solidity metadata map met in an unreachable region (an embedded child's own trailer) is skipped as data.
 *
 * Each (offset, reachability) state is walked once, so the scan stays linear in the code length. The hex text of
 * selectors and addresses is cut from one hex encoding of the code, made at the first hit that needs it.
 *
 * @param code Runtime bytecode.
 * @returns Reachable occurrences of CALLCODE, SELFDESTRUCT and DELEGATECALL, address literals, PUSH4 values.
 */
export function scanRuntime(code: Uint8Array): ScanResult {
  const metadata = findMetadataTrailer(code);
  const end = metadata ? metadata.start : code.length;
  const result: ScanResult = {
    codeLength: code.length,
    metadata,
    callcode: [],
    selfdestruct: [],
    delegatecall: [],
    addressLiterals: [],
    selectors: [],
    truncatedPushOffset: null,
    embeddedCreationCodes: [],
  };
  const sweep = new Sweep(code, end, result);
  sweep.run(0);
  for (let start = sweep.pending.shift(); start !== undefined; start = sweep.pending.shift()) {
    result.embeddedCreationCodes.push(start);
    sweep.run(start);
  }
  if (result.embeddedCreationCodes.length > 0) labelEmbedded(result);
  return result;
}

/**
 * Orders the hits of a scan that swept embedded creation code and labels each with its embedded start. The first
 * sweep to reach an offset records it, and the parent's sweep often walks into a child through the child's own
 * JUMPDESTs; so label by position: solc places embedded code after all of the parent's code. (Without embedded code
 * every hit comes from the one sweep from offset 0, already in order and unlabelled.)
 */
function labelEmbedded(result: ScanResult): void {
  const starts = result.embeddedCreationCodes.sort((a, b) => a - b);
  for (const list of [
    result.callcode,
    result.selfdestruct,
    result.delegatecall,
    result.addressLiterals,
    result.selectors,
  ] as OpcodeHit[][]) {
    list.sort(byOffset);
    let next = 0;
    for (const hit of list) {
      while (next < starts.length && (starts[next] ?? 0) <= hit.offset) next++;
      hit.embeddedStart = next === 0 ? null : (starts[next - 1] ?? null);
    }
  }
}

/**
 * Decodes the instruction at `offset` for analyses that walk code themselves (e.g. a getter's entry block).
 *
 * @returns The opcode, its immediate (empty for non-PUSH) and the offset of the next instruction.
 */
export function decodeAt(code: Uint8Array, offset: number): { opcode: number; immediate: Uint8Array; next: number } {
  const opcode = code[offset] ?? opcodes.STOP;
  const size = pushSize(opcode);
  return { opcode, immediate: code.subarray(offset + 1, offset + 1 + size), next: offset + 1 + size };
}

/**
 * The selectors the top-level dispatcher branches on: a reachable PUSH4 outside embedded creation code that solc's
 * dispatcher shape follows, `PUSH4 sel [DUP1..DUP16] EQ PUSH1..PUSH32 dest JUMPI` with dest a valid JUMPDEST. A
 * selector only pushed as data or as an outgoing call's selector (`PUSH4 sel PUSH1 0xe0 SHL ...`) is not dispatched,
 * and neither is a binary-search pivot (compared with GT or LT).
 *
 * @param code Runtime bytecode.
 * @param scan Its scan result.
 * @returns Lowercase `0x` + 8 hex digit selectors.
 */
export function dispatchedSelectors(code: Uint8Array, scan: ScanResult): Set<string> {
  const destinations = validJumpDestinations(code);
  const dispatched = new Set<string>();
  for (const pushed of scan.selectors) {
    if (pushed.embeddedStart !== null) continue;
    let next = decodeAt(code, pushed.offset + 5);
    if (next.opcode >= 0x80 && next.opcode <= 0x8f) next = decodeAt(code, next.next);
    if (next.opcode !== 0x14) continue;
    const push = decodeAt(code, next.next);
    const jumpi = decodeAt(code, push.next);
    if (push.immediate.length === 0 || jumpi.opcode !== opcodes.JUMPI) continue;
    let dest = 0;
    for (const byte of push.immediate) dest = dest * 256 + byte;
    if (destinations.has(dest)) dispatched.add(pushed.selector);
  }
  return dispatched;
}

/**
 * Offsets of valid jump destinations as the EVM decides them: 0x5b bytes that are not inside a PUSH immediate.
 *
 * @param code Runtime bytecode.
 */
export function validJumpDestinations(code: Uint8Array): Set<number> {
  const destinations = new Set<number>();
  for (let pc = 0; pc < code.length; pc += 1 + pushSize(code[pc] ?? 0)) {
    if (code[pc] === opcodes.JUMPDEST) destinations.add(pc);
  }
  return destinations;
}

/**
 * The sweeps of one scan: the visited states, the embedded starts still to sweep, and where the code holds solc's
 * creation prologue (found once, at the first unreachable stretch). A sweep alternates between a reachable stretch
 * (hits recorded) and an unreachable one (data: only metadata maps and prologues matter there).
 */
class Sweep {
  readonly pending: number[] = [];
  private readonly visited: Uint8Array;
  private readonly queued = new Set<number>();
  private prologues: number[] | null = null;
  private hexText: string | null = null;
  private hexCuts = 0;

  constructor(
    private readonly code: Uint8Array,
    private readonly end: number,
    private readonly result: ScanResult,
  ) {
    this.visited = new Uint8Array(end);
  }

  /** Sweeps from `start` as reachable code until the end, truncated data, or a state already walked. */
  run(start: number): void {
    for (let pc = this.reachable(start); pc >= 0; pc = this.reachable(pc)) {
      pc = this.unreachable(pc);
      if (pc < 0) return;
    }
  }

  /**
   * Walks reachable instructions from `pc`, recording hits, up to and including a terminator.
   *
   * @returns The offset after the terminator, or -1 when the sweep stops (end, truncated PUSH, state walked).
   */
  private reachable(pc: number): number {
    const { code, end, visited } = this;
    while (pc < end) {
      const seen = visited[pc] ?? 0;
      if (seen & reachableBit) return -1;
      visited[pc] = seen | reachableBit;
      const opcode = code[pc] ?? opcodes.STOP;
      if (opcode >= opcodes.PUSH1 && opcode <= opcodes.PUSH32) {
        const next = pc + 1 + opcode - opcodes.PUSH0;
        if (next > code.length) {
          this.result.truncatedPushOffset ??= pc;
          return -1;
        }
        if (opcode === opcodes.PUSH4 || opcode === opcodes.PUSH20 || opcode === opcodes.PUSH32) this.pushed(opcode, pc);
        pc = next;
        continue;
      }
      if (opcode >= opcodes.CALLCODE) this.called(opcode, pc);
      pc++;
      if (terminates[opcode]) return pc;
    }
    return -1;
  }

  /**
   * Walks unreachable instructions from `pc` up to a JUMPDEST, skipping embedded metadata maps, and queues every
   * creation prologue that starts within the bytes it walked (data alignment is arbitrary, so a prologue may start
   * inside what this sweep decodes as an immediate).
   *
   * @returns The offset after the JUMPDEST, reachable again, or -1 when the sweep stops (end, state walked).
   */
  private unreachable(pc: number): number {
    const { code, end, visited } = this;
    let from = pc;
    while (pc < end) {
      const seen = visited[pc] ?? 0;
      if (seen & unreachableBit) break;
      visited[pc] = seen | unreachableBit;
      const opcode = code[pc] ?? opcodes.STOP;
      if (opcode === opcodes.JUMPDEST) {
        this.queuePrologues(from, pc - 1);
        return pc + 1;
      }
      if (opcode >= 0xa1 && opcode <= 0xb7) {
        const skipTo = embeddedMetadataEnd(code, pc, end);
        if (skipTo !== null) {
          this.queuePrologues(from, pc - 1);
          pc = skipTo;
          from = pc;
          continue;
        }
      }
      pc += opcode >= opcodes.PUSH1 && opcode <= opcodes.PUSH32 ? 1 + opcode - opcodes.PUSH0 : 1;
    }
    this.queuePrologues(from, Math.min(pc, end) - 1);
    return -1;
  }

  private pushed(opcode: number, pc: number): void {
    const { code, result } = this;
    if (opcode === opcodes.PUSH4) {
      result.selectors.push({ offset: pc, embeddedStart: null, selector: this.hex(pc + 1, 4) });
    } else if (opcode === opcodes.PUSH20) {
      if (isAddress(code, pc + 1)) {
        result.addressLiterals.push({
          offset: pc,
          embeddedStart: null,
          address: this.hex(pc + 1, 20),
          opcode: 'PUSH20',
        });
      }
    } else if (isZero(code, pc + 1, 12) && isAddress(code, pc + 13)) {
      result.addressLiterals.push({
        offset: pc,
        embeddedStart: null,
        address: this.hex(pc + 13, 20),
        opcode: 'PUSH32',
      });
    }
  }

  private called(opcode: number, pc: number): void {
    const { result } = this;
    if (opcode === opcodes.CALLCODE) result.callcode.push({ offset: pc, embeddedStart: null });
    else if (opcode === opcodes.DELEGATECALL) result.delegatecall.push({ offset: pc, embeddedStart: null });
    else if (opcode === opcodes.SELFDESTRUCT) result.selfdestruct.push({ offset: pc, embeddedStart: null });
  }

  /** Queues, in ascending order, each creation prologue starting in `code[from..to]` not queued before. */
  private queuePrologues(from: number, to: number): void {
    const { code, end } = this;
    // Most stretches are a few bytes (a terminator's padding before the next JUMPDEST): look at them directly.
    if (to - from < shortStretch) {
      for (let at = from; at <= to; at++) {
        const byte = code[at];
        if ((byte === opcodes.PUSH1 || byte === opcodes.PUSH2) && isCreationPrologue(code, at, end)) this.enqueue(at);
      }
      return;
    }
    this.prologues ??= creationPrologues(code, end);
    const prologues = this.prologues;
    let low = 0;
    let high = prologues.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((prologues[middle] ?? 0) < from) low = middle + 1;
      else high = middle;
    }
    for (let i = low; i < prologues.length && (prologues[i] ?? 0) <= to; i++) this.enqueue(prologues[i] ?? 0);
  }

  private enqueue(start: number): void {
    if (!this.queued.has(start)) {
      this.queued.add(start);
      this.pending.push(start);
    }
  }

  /**
   * Lowercase `0x` hex of `length` code bytes from `from`. Code with many literals has its whole hex text encoded once
   * and sliced; the first few are encoded one by one, since most code has few.
   */
  private hex(from: number, length: number): string {
    const { code } = this;
    if (this.hexText === null && this.hexCuts++ < 16) {
      return `0x${Buffer.from(code.buffer, code.byteOffset + from, length).toString('hex')}`;
    }
    this.hexText ??= Buffer.from(code.buffer, code.byteOffset, code.byteLength).toString('hex');
    return `0x${this.hexText.slice(2 * from, 2 * (from + length))}`;
  }
}

/** Unreachable stretches shorter than this are searched for prologues byte by byte, longer ones in one search. */
const shortStretch = 64;

/** The `PUSH1 0x40 MSTORE` that ends solc's creation prologue. */
const prologueTail = Buffer.from([opcodes.PUSH1, 0x40, 0x52]);

/** Every offset before `end` where solc's creation prologue starts (`isCreationPrologue`), ascending. */
function creationPrologues(code: Uint8Array, end: number): number[] {
  const view = Buffer.from(code.buffer, code.byteOffset, end);
  const starts: number[] = [];
  for (let tail = view.indexOf(prologueTail); tail !== -1; tail = view.indexOf(prologueTail, tail + 1)) {
    // PUSH2 <pointer> ends three bytes before the tail, PUSH1 <pointer> two.
    if (tail >= 3 && isCreationPrologue(code, tail - 3, end)) starts.push(tail - 3);
    if (tail >= 2 && isCreationPrologue(code, tail - 2, end)) starts.push(tail - 2);
  }
  return starts;
}

function pushSize(opcode: number): number {
  return opcode >= opcodes.PUSH1 && opcode <= opcodes.PUSH32 ? opcode - opcodes.PUSH0 : 0;
}

function findMetadataTrailer(code: Uint8Array): MetadataTrailer | null {
  if (code.length < 2) return null;
  const length = ((code[code.length - 2] ?? 0) << 8) | (code[code.length - 1] ?? 0);
  const start = code.length - 2 - length;
  if (length === 0 || start < 0) return null;
  const parsed = parseSolidityMetadata(code, start, code.length - 2);
  return parsed && parsed.end === code.length - 2 ? { start, length, keys: parsed.keys } : null;
}

/**
 * End offset of a Solidity metadata map plus its length suffix starting at `at`, or null: a map that parses within
 * 255 bytes and before the last two bytes of the swept code, followed by the big-endian length it spans. A map's
 * parse decides where it ends, so only that one offset can carry the suffix.
 */
function embeddedMetadataEnd(code: Uint8Array, at: number, end: number): number | null {
  const parsed = parseSolidityMetadata(code, at, Math.min(end - 2, at + 0xff));
  if (!parsed) return null;
  const suffix = parsed.end;
  const stated = ((code[suffix] ?? 0) << 8) | (code[suffix + 1] ?? 0);
  return stated === suffix - at ? suffix + 2 : null;
}

const metadataKeys = new Set(['ipfs', 'bzzr0', 'bzzr1', 'solc', 'experimental']);

/**
 * Strictly parses a Solidity metadata CBOR map at `code[start]` that ends at or before `limit`: a definite map of
 * 1..23 pairs whose keys are distinct known text keys and whose values are byte strings, text strings, booleans or
 * unsigned integers. Returns the keys and the offset after the map, or null when any of that fails.
 */
function parseSolidityMetadata(code: Uint8Array, start: number, limit: number): { keys: string[]; end: number } | null {
  const header = code[start] ?? 0;
  if (header < 0xa1 || header > 0xb7) return null;
  let pc = start + 1;
  const keys: string[] = [];
  for (let item = 0; item < 2 * (header - 0xa0); item++) {
    if (pc >= limit) return null;
    const initial = code[pc] ?? 0;
    const major = initial >> 5;
    const info = initial & 0x1f;
    const isKey = item % 2 === 0;
    pc++;
    if (major === 7) {
      if (isKey || (info !== 20 && info !== 21)) return null;
      continue;
    }
    let value: number;
    if (info < 24) value = info;
    else if (info === 24 && pc + 1 <= limit) value = code[pc++] ?? 0;
    else if (info === 25 && pc + 2 <= limit) {
      value = ((code[pc] ?? 0) << 8) | (code[pc + 1] ?? 0);
      pc += 2;
    } else return null;
    if (isKey ? major !== 3 : major !== 0 && major !== 2 && major !== 3) return null;
    if (major === 0) continue;
    if (pc + value > limit) return null;
    if (isKey) {
      const name = Buffer.from(code.buffer, code.byteOffset + pc, value).toString('latin1');
      if (!metadataKeys.has(name) || keys.includes(name)) return null;
      keys.push(name);
    }
    pc += value;
  }
  return { keys, end: pc };
}

function isCreationPrologue(code: Uint8Array, at: number, end: number): boolean {
  let pointer: number;
  let rest: number;
  if (code[at] === opcodes.PUSH1) {
    pointer = code[at + 1] ?? 0;
    rest = at + 2;
  } else if (code[at] === opcodes.PUSH2) {
    pointer = ((code[at + 1] ?? 0) << 8) | (code[at + 2] ?? 0);
    rest = at + 3;
  } else {
    return false;
  }
  // solc's free memory pointer starts at 0x80 and grows by 32 bytes per immutable.
  if (pointer < 0x80 || pointer % 0x20 !== 0 || rest + 3 > end) return false;
  return code[rest] === opcodes.PUSH1 && code[rest + 1] === 0x40 && code[rest + 2] === 0x52;
}

/** Whether the 20 bytes at `at` are an address: neither all zeros (an unfilled immutable) nor all 0xff (solc's
 * unoptimized address mask). */
function isAddress(code: Uint8Array, at: number): boolean {
  const first = code[at] ?? 0;
  if (first !== 0 && first !== 0xff) return true;
  for (let i = at + 1; i < at + 20; i++) if (code[i] !== first) return true;
  return false;
}

function isZero(code: Uint8Array, at: number, length: number): boolean {
  for (let i = at; i < at + length; i++) if (code[i] !== 0) return false;
  return true;
}

function byOffset(a: OpcodeHit, b: OpcodeHit): number {
  return a.offset - b.offset;
}
