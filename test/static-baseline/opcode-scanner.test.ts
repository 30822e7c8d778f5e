import { describe, expect, it } from 'vitest';
import {
  type ScanResult,
  scanRuntime,
  validJumpDestinations,
} from '../../src/domain/static-baseline/opcode-scanner.ts';

const bytes = (hex: string) => Buffer.from(hex.replace(/\s+/g, ''), 'hex');
const repeat = (byte: string, count: number) => byte.repeat(count);

/** `a1 64 'ipfs' 58 22 <34 bytes>`: a one-key Solidity metadata map of 42 (0x2a) bytes. */
const ipfsMap = (hash34: string) => `a1 64 69706673 58 22 ${hash34}`;
/** A hash that hides `JUMPDEST SELFDESTRUCT`: found only if the trailer is swept as code. */
const trapHash = `1220 5bff ${repeat('00', 30)}`;

type Want = Partial<{
  callcode: number[];
  selfdestruct: number[];
  delegatecall: number[];
  addresses: string[];
  selectors: string[];
  truncatedPushOffset: number | null;
  metadataStart: number | null;
  embedded: number[];
}>;

function summarize(scan: ScanResult): Required<Want> {
  return {
    callcode: scan.callcode.map((h) => h.offset),
    selfdestruct: scan.selfdestruct.map((h) => h.offset),
    delegatecall: scan.delegatecall.map((h) => h.offset),
    addresses: scan.addressLiterals.map((a) => `${a.opcode}:${a.address}`),
    selectors: scan.selectors.map((s) => s.selector),
    truncatedPushOffset: scan.truncatedPushOffset,
    metadataStart: scan.metadata?.start ?? null,
    embedded: scan.embeddedCreationCodes,
  };
}

const none: Required<Want> = {
  callcode: [],
  selfdestruct: [],
  delegatecall: [],
  addresses: [],
  selectors: [],
  truncatedPushOffset: null,
  metadataStart: null,
  embedded: [],
};

const cases: Array<[name: string, given: string, want: Want]> = [
  ['empty code', '', {}],
  ['reachable CALLCODE', 'f2', { callcode: [0] }],
  ['reachable DELEGATECALL', '5f f4', { delegatecall: [1] }],
  ['reachable SELFDESTRUCT', 'ff', { selfdestruct: [0] }],
  ['PUSH0 has no immediate', '5f ff', { selfdestruct: [1] }],
  ['0xff after STOP is unreachable', '00 ff', {}],
  ['0xff after JUMP is unreachable', '56 ff f2 f4', {}],
  ['0xff after RETURN, REVERT, INVALID is unreachable', 'f3 ff fd ff fe ff', {}],
  ['SELFDESTRUCT is a terminator too', 'ff ff', { selfdestruct: [0] }],
  ['a JUMPDEST after a terminator makes code reachable again', '00 5b ff', { selfdestruct: [2] }],
  ['a 0x5b inside a PUSH immediate is no JUMPDEST', '00 60 5b ff', {}],
  ['a PUSH32 immediate of 0xf2 bytes is data', `7f ${repeat('f2', 32)} 00`, {}],
  ['a PUSH1 immediate of 0xff is data', '60 ff 50', {}],
  ['a truncated PUSH at the end is data', '60 00 61 ff', { truncatedPushOffset: 2 }],
  [
    'a truncated PUSH32 holding 0xf2 is data',
    `f4 7f ${repeat('f2', 10)}`,
    { delegatecall: [0], truncatedPushOffset: 1 },
  ],
  ['an unreachable truncated PUSH is not reported', '00 61 ff', {}],
  ['PUSH20 address literal', `73 ${repeat('11', 20)} 00`, { addresses: [`PUSH20:0x${repeat('11', 20)}`] }],
  [
    'PUSH32 with the top 12 bytes zero is an address literal',
    `7f ${repeat('00', 12)}${repeat('22', 20)}`,
    { addresses: [`PUSH32:0x${repeat('22', 20)}`] },
  ],
  ['PUSH32 with a nonzero top byte is no address', `7f 01${repeat('00', 11)}${repeat('22', 20)}`, {}],
  ['PUSH32 unfilled immutable (all zero) is no address', `7f ${repeat('00', 32)}`, {}],
  ['PUSH20 all-0xff mask is no address', `73 ${repeat('ff', 20)}`, {}],
  ['unreachable PUSH20 is not reported', `00 73 ${repeat('11', 20)}`, {}],
  ['PUSH4 selector', '63 dc4c90d3 14', { selectors: ['0xdc4c90d3'] }],
  ['valid trailer is stripped', `00 ${ipfsMap(trapHash)} 002a`, { metadataStart: 1 }],
  ['trailer whose length byte lies is swept', `00 ${ipfsMap(trapHash)} 002b`, { selfdestruct: [12] }],
  ['trailer whose length is one short is swept', `00 ${ipfsMap(trapHash)} 0029`, { selfdestruct: [12] }],
  ['trailer longer than the code is swept', `5b ff ffff`, { selfdestruct: [1] }],
  ['trailer without a map header is swept', `00 81 5b ff 0003`, { selfdestruct: [3] }],
  ['trailer map with an unknown key is swept', `00 a1 63 616263 40 5b ff 0006`, { selfdestruct: [8] }],
  ['embedded creation code after a terminator is swept', '00 6080604052 ff', { selfdestruct: [6], embedded: [1] }],
  ['embedded creation code with immutables (0xa0)', 'fe 60a0604052 ff', { selfdestruct: [6], embedded: [1] }],
  ['embedded creation code with a PUSH2 pointer', 'fe 610100604052 f2', { callcode: [7], embedded: [1] }],
  ['a prologue inside an unreachable immediate is found', '00 62 6080604052 ff', { selfdestruct: [7], embedded: [2] }],
  ['no prologue: pointer not a multiple of 0x20', '00 6081604052 ff', {}],
  ['no prologue: pointer below 0x80', '00 6040604052 ff', {}],
  [
    'nested embedded code is swept from its own start',
    '00 6080604052 00 6080604052 f4',
    { delegatecall: [12], embedded: [1, 7] },
  ],
  [
    "an embedded child's own trailer is data",
    `00 6080604052 00 ${ipfsMap(trapHash)} 002a 00 ${ipfsMap(repeat('00', 34))} 002a`,
    { embedded: [1], metadataStart: 52 },
  ],
  [
    "an embedded child's lying trailer is swept",
    `00 6080604052 00 ${ipfsMap(trapHash)} 0029 00 ${ipfsMap(repeat('00', 34))} 002a`,
    { selfdestruct: [18], embedded: [1], metadataStart: 52 },
  ],
];

describe('scanRuntime', () => {
  it.each(cases)('%s', (_name, given, want) => {
    expect(summarize(scanRuntime(bytes(given)))).toEqual({ ...none, ...want });
  });

  it('reports hits inside embedded code with the embedded start', () => {
    const scan = scanRuntime(bytes('00 6080604052 ff'));
    expect(scan.selfdestruct).toEqual([{ offset: 6, embeddedStart: 1 }]);
  });

  it('reads the keys of a solc trailer', () => {
    const trailer = `a2 ${ipfsMap(repeat('00', 34)).slice(3)} 64 736f6c63 43 000825`;
    const scan = scanRuntime(bytes(`00 ${trailer} 0033`));
    expect(scan.metadata).toEqual({ start: 1, length: 0x33, keys: ['ipfs', 'solc'] });
  });
});

describe('validJumpDestinations', () => {
  it.each([
    ['JUMPDEST bytes outside immediates', '5b 60 5b 5b', [0, 3]],
    ['none in empty code', '', []],
  ] as const)('%s', (_name, given, want) => {
    expect([...validJumpDestinations(bytes(given))]).toEqual(want);
  });
});
