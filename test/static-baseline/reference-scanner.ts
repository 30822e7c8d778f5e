/*
 * A deliberately plain reading of scanRuntime's rules (src/domain/static-baseline/opcode-scanner.ts), for the
 * property test that the fast scanner finds exactly the same: one instruction at a time, every (offset,
 * reachability) state kept in a Set, every unreachable byte tried as a prologue, every metadata suffix tried, and
 * each hit labelled by searching the embedded starts. No tables, no precomputed search, no shared hex text.
 */
import type { ScanResult } from '../../src/domain/static-baseline/opcode-scanner.ts';

const knownKeys = ['ipfs', 'bzzr0', 'bzzr1', 'solc', 'experimental'];

/** Keys of one Solidity metadata CBOR map occupying exactly `code[start, end)`, or null. */
function metadataMap(code: Uint8Array, start: number, end: number): string[] | null {
  const header = code[start] ?? 0;
  if (header < 0xa1 || header > 0xb7) return null;
  let pc = start + 1;
  const readItem = (): { major: number; text: string } | null => {
    if (pc >= end) return null;
    const initial = code[pc] as number;
    pc += 1;
    const major = initial >> 5;
    const info = initial & 0x1f;
    if (major === 7) return info === 20 || info === 21 ? { major, text: '' } : null;
    let argument = info;
    if (info === 24) {
      if (pc + 1 > end) return null;
      argument = code[pc] as number;
      pc += 1;
    } else if (info === 25) {
      if (pc + 2 > end) return null;
      argument = (code[pc] as number) * 256 + (code[pc + 1] as number);
      pc += 2;
    } else if (info > 24) {
      return null;
    }
    if (major === 0) return { major, text: '' };
    if (major !== 2 && major !== 3) return null;
    if (pc + argument > end) return null;
    const text = Buffer.from(code.slice(pc, pc + argument)).toString('latin1');
    pc += argument;
    return { major, text };
  };
  const keys: string[] = [];
  for (let pair = 0; pair < header - 0xa0; pair++) {
    const key = readItem();
    if (key?.major !== 3 || !knownKeys.includes(key.text) || keys.includes(key.text)) return null;
    keys.push(key.text);
    if (!readItem()) return null;
  }
  return pc === end ? keys : null;
}

function pushLength(opcode: number): number {
  return opcode >= 0x60 && opcode <= 0x7f ? opcode - 0x5f : 0;
}

function startsPrologue(code: Uint8Array, at: number, end: number): boolean {
  const width = code[at] === 0x60 ? 1 : code[at] === 0x61 ? 2 : 0;
  if (width === 0) return false;
  let pointer = 0;
  for (let i = 1; i <= width; i++) pointer = pointer * 256 + (code[at + i] ?? 0);
  const rest = at + 1 + width;
  if (pointer < 0x80 || pointer % 32 !== 0 || rest + 3 > end) return false;
  return code[rest] === 0x60 && code[rest + 1] === 0x40 && code[rest + 2] === 0x52;
}

const hexOf = (code: Uint8Array, from: number, length: number) =>
  `0x${Buffer.from(code.slice(from, from + length)).toString('hex')}`;

/** The reference scan: the same result shape as scanRuntime. */
export function referenceScan(code: Uint8Array): ScanResult {
  const stated = code.length >= 2 ? (code[code.length - 2] as number) * 256 + (code[code.length - 1] as number) : 0;
  const trailerStart = code.length - 2 - stated;
  const trailerKeys =
    code.length >= 2 && stated > 0 && trailerStart >= 0 ? metadataMap(code, trailerStart, code.length - 2) : null;
  const metadata = trailerKeys ? { start: trailerStart, length: stated, keys: trailerKeys } : null;
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
  const walked = new Set<string>();
  const queue: number[] = [];
  const walk = (start: number) => {
    let reachable = true;
    let pc = start;
    while (pc < end) {
      const state = `${pc}:${reachable}`;
      if (walked.has(state)) return;
      walked.add(state);
      const opcode = code[pc] as number;
      const size = pushLength(opcode);
      if (!reachable && opcode !== 0x5b) {
        let skipTo: number | null = null;
        for (let suffix = pc + 1; suffix + 2 <= end && suffix - pc <= 255 && skipTo === null; suffix++) {
          const length = (code[suffix] as number) * 256 + (code[suffix + 1] as number);
          if (length === suffix - pc && metadataMap(code, pc, suffix)) skipTo = suffix + 2;
        }
        if (skipTo !== null) {
          pc = skipTo;
          continue;
        }
        for (let at = pc; at <= pc + size && at < end; at++) {
          if (startsPrologue(code, at, end) && !queue.includes(at)) queue.push(at);
        }
        pc += 1 + size;
        continue;
      }
      reachable = true;
      if (size > 0 && pc + 1 + size > code.length) {
        if (result.truncatedPushOffset === null) result.truncatedPushOffset = pc;
        return;
      }
      if (opcode === 0x63) result.selectors.push({ offset: pc, embeddedStart: null, selector: hexOf(code, pc + 1, 4) });
      const literal =
        opcode === 0x73 ? pc + 1 : opcode === 0x7f && code.slice(pc + 1, pc + 13).every((b) => b === 0) ? pc + 13 : -1;
      const address = literal >= 0 ? hexOf(code, literal, 20) : '';
      if (literal >= 0 && address !== `0x${'00'.repeat(20)}` && address !== `0x${'ff'.repeat(20)}`) {
        result.addressLiterals.push({
          offset: pc,
          embeddedStart: null,
          address,
          opcode: opcode === 0x73 ? 'PUSH20' : 'PUSH32',
        });
      }
      if (opcode === 0xf2) result.callcode.push({ offset: pc, embeddedStart: null });
      if (opcode === 0xf4) result.delegatecall.push({ offset: pc, embeddedStart: null });
      if (opcode === 0xff) result.selfdestruct.push({ offset: pc, embeddedStart: null });
      if ([0x00, 0x56, 0xf3, 0xfd, 0xfe, 0xff].includes(opcode)) reachable = false;
      pc += 1 + size;
    }
  };
  walk(0);
  for (let next = 0; next < queue.length; next++) {
    result.embeddedCreationCodes.push(queue[next] as number);
    walk(queue[next] as number);
  }
  result.embeddedCreationCodes.sort((a, b) => a - b);
  for (const hits of [
    result.callcode,
    result.selfdestruct,
    result.delegatecall,
    result.addressLiterals,
    result.selectors,
  ]) {
    hits.sort((a, b) => a.offset - b.offset);
    for (const hit of hits) hit.embeddedStart = result.embeddedCreationCodes.findLast((s) => s <= hit.offset) ?? null;
  }
  return result;
}
