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

const terminators = new Set<number>([
  opcodes.STOP,
  opcodes.JUMP,
  opcodes.RETURN,
  opcodes.REVERT,
  opcodes.INVALID,
  opcodes.SELFDESTRUCT,
]);

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
 * Each (offset, reachability) state is walked once, so the scan stays linear in the code length.
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
  const visited = new Uint8Array(end);
  const pending: number[] = [];
  const queued = new Set<number>();
  const enqueue = (start: number) => {
    if (!queued.has(start)) {
      queued.add(start);
      pending.push(start);
    }
  };
  sweep(code, end, 0, visited, result, enqueue);
  for (let start = pending.shift(); start !== undefined; start = pending.shift()) {
    result.embeddedCreationCodes.push(start);
    sweep(code, end, start, visited, result, enqueue);
  }
  const starts = result.embeddedCreationCodes.sort((a, b) => a - b);
  // The first sweep to reach an offset records it, and the parent's sweep often walks into a child through the
  // child's own JUMPDESTs; so label by position: solc places embedded code after all of the parent's code.
  const label = (hit: OpcodeHit) => {
    hit.embeddedStart = starts.findLast((start) => start <= hit.offset) ?? null;
  };
  for (const list of [
    result.callcode,
    result.selfdestruct,
    result.delegatecall,
    result.addressLiterals,
    result.selectors,
  ]) {
    list.sort(byOffset);
    list.forEach(label);
  }
  return result;
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

function sweep(
  code: Uint8Array,
  end: number,
  start: number,
  visited: Uint8Array,
  result: ScanResult,
  enqueue: (start: number) => void,
): void {
  let reachable = true;
  let pc = start;
  while (pc < end) {
    const bit = reachable ? reachableBit : unreachableBit;
    if ((visited[pc] ?? 0) & bit) return;
    visited[pc] = (visited[pc] ?? 0) | bit;
    const opcode = code[pc] ?? opcodes.STOP;
    const size = pushSize(opcode);
    if (!reachable) {
      if (opcode === opcodes.JUMPDEST) {
        reachable = true;
      } else {
        const skipTo = embeddedMetadataEnd(code, pc, end);
        if (skipTo !== null) {
          pc = skipTo;
          continue;
        }
        // Data alignment is arbitrary, so a prologue may start inside what this sweep decodes as an immediate.
        for (let at = pc; at <= pc + size && at < end; at++) {
          if (isCreationPrologue(code, at, end)) enqueue(at);
        }
        pc += 1 + size;
        continue;
      }
    }
    if (size > 0) {
      if (pc + 1 + size > code.length) {
        result.truncatedPushOffset ??= pc;
        return;
      }
      if (opcode === opcodes.PUSH20) {
        const address = hex(code.subarray(pc + 1, pc + 21));
        if (isAddress(address))
          result.addressLiterals.push({ offset: pc, embeddedStart: null, address, opcode: 'PUSH20' });
      } else if (opcode === opcodes.PUSH32) {
        const high = code.subarray(pc + 1, pc + 13);
        const address = hex(code.subarray(pc + 13, pc + 33));
        if (high.every((b) => b === 0) && isAddress(address)) {
          result.addressLiterals.push({ offset: pc, embeddedStart: null, address, opcode: 'PUSH32' });
        }
      } else if (opcode === opcodes.PUSH4) {
        result.selectors.push({ offset: pc, embeddedStart: null, selector: hex(code.subarray(pc + 1, pc + 5)) });
      }
    } else if (opcode === opcodes.CALLCODE) {
      result.callcode.push({ offset: pc, embeddedStart: null });
    } else if (opcode === opcodes.DELEGATECALL) {
      result.delegatecall.push({ offset: pc, embeddedStart: null });
    } else if (opcode === opcodes.SELFDESTRUCT) {
      result.selfdestruct.push({ offset: pc, embeddedStart: null });
    }
    if (terminators.has(opcode)) reachable = false;
    pc += 1 + size;
  }
}

function pushSize(opcode: number): number {
  return opcode >= opcodes.PUSH1 && opcode <= opcodes.PUSH32 ? opcode - opcodes.PUSH0 : 0;
}

function findMetadataTrailer(code: Uint8Array): MetadataTrailer | null {
  if (code.length < 2) return null;
  const length = ((code[code.length - 2] ?? 0) << 8) | (code[code.length - 1] ?? 0);
  const start = code.length - 2 - length;
  if (length === 0 || start < 0) return null;
  const keys = parseSolidityMetadata(code, start, code.length - 2);
  return keys ? { start, length, keys } : null;
}

/** End offset of a Solidity metadata map plus its length suffix starting at `at`, or null. */
function embeddedMetadataEnd(code: Uint8Array, at: number, end: number): number | null {
  const header = code[at] ?? 0;
  if (header < 0xa1 || header > 0xb7) return null;
  for (let suffix = at + 1; suffix + 2 <= end && suffix - at <= 0xff; suffix++) {
    const stated = ((code[suffix] ?? 0) << 8) | (code[suffix + 1] ?? 0);
    if (stated === suffix - at && parseSolidityMetadata(code, at, suffix)) return suffix + 2;
  }
  return null;
}

const metadataKeys = new Set(['ipfs', 'bzzr0', 'bzzr1', 'solc', 'experimental']);

/**
 * Strictly parses `code[start, end)` as one Solidity metadata CBOR map: a definite map of 1..23 pairs whose keys
 * are distinct known text keys and whose values are byte strings, text strings, booleans or unsigned integers,
 * ending exactly at `end`. Returns the keys, or null when any of that fails.
 */
function parseSolidityMetadata(code: Uint8Array, start: number, end: number): string[] | null {
  const header = code[start] ?? 0;
  if (header < 0xa1 || header > 0xb7) return null;
  let pc = start + 1;
  const item = (): { major: number; value: number; bytes: Uint8Array } | null => {
    const initial = code[pc];
    if (initial === undefined || pc >= end) return null;
    const major = initial >> 5;
    const info = initial & 0x1f;
    pc++;
    if (major === 7) return info === 20 || info === 21 ? { major, value: info, bytes: new Uint8Array() } : null;
    let value: number;
    if (info < 24) value = info;
    else if (info === 24 && pc + 1 <= end) value = code[pc++] ?? 0;
    else if (info === 25 && pc + 2 <= end) {
      value = ((code[pc] ?? 0) << 8) | (code[pc + 1] ?? 0);
      pc += 2;
    } else return null;
    if (major === 0) return { major, value, bytes: new Uint8Array() };
    if ((major !== 2 && major !== 3) || pc + value > end) return null;
    const bytes = code.subarray(pc, pc + value);
    pc += value;
    return { major, value, bytes };
  };
  const keys: string[] = [];
  for (let pair = 0; pair < header - 0xa0; pair++) {
    const key = item();
    if (key?.major !== 3) return null;
    const name = Buffer.from(key.bytes).toString('latin1');
    if (!metadataKeys.has(name) || keys.includes(name)) return null;
    keys.push(name);
    if (!item()) return null;
  }
  return pc === end ? keys : null;
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

function isAddress(address: string): boolean {
  // All zeros is an unfilled immutable; all 0xff is solc's unoptimized address mask.
  return address !== `0x${'0'.repeat(40)}` && address !== `0x${'f'.repeat(40)}`;
}

function hex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

function byOffset(a: OpcodeHit, b: OpcodeHit): number {
  return a.offset - b.offset;
}
