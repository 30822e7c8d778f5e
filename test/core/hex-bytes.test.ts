import fc from 'fast-check';
import { keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import type { CustomLaunchCreateRequestV4 } from '../../generated/types/service.ts';
import { canonicalJson, sha256Digest } from '../../src/core/canonical-json.ts';
import { HexMemo, hexBytes } from '../../src/core/hex-bytes.ts';
import {
  bindRequestHashes,
  graphBundleDigestOf,
  launchIntentHashOf,
  runtimeCodeHashOf,
} from '../../src/core/request-hashes.ts';
import { example, v4Example } from '../support/server.ts';

/** Strict `0x` hex decoding and its per-request memo (src/core/hex-bytes.ts). */
describe('hexBytes', () => {
  const rows: Array<[name: string, given: string, want: string | null]> = [
    ['the empty code', '0x', ''],
    ['mixed case', '0xabCD01', 'abcd01'],
    ['an odd digit count', '0xabc', null],
    ['no prefix', 'abcd', null],
    ['an upper-case prefix', '0Xabcd', null],
    ['a pair that is not hex at the start', '0xzzab', null],
    ['a pair that is not hex at the end', '0xab0g', null],
    ['a space inside', '0xab cd', null],
    // Buffer's hex decoding reads only the low byte of U+0130 (0x30, the digit 0).
    ['a non-ASCII unit whose low byte is a digit', '0x\u0130\u0130', null],
    ['a non-ASCII unit after valid pairs', '0xabcd\u0130\u0131', null],
    ['a lone surrogate', '0x\ud830\ud830', null],
  ];
  it.each(rows)('%s', (_name, given, want) => {
    const bytes = hexBytes(given);
    expect(bytes === null ? null : bytes.toString('hex')).toBe(want);
  });

  it('decodes what Buffer encodes, in either case', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.boolean(), (data, upper) => {
        const hex = Buffer.from(data).toString('hex');
        const bytes = hexBytes(`0x${upper ? hex.toUpperCase() : hex}`);
        return bytes !== null && Buffer.compare(bytes, Buffer.from(data)) === 0;
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what differs from hex in one unit', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.nat(),
        fc.integer({ min: 0, max: 0xffff }),
        (data, at, unit) => {
          const hex = `0x${Buffer.from(data).toString('hex')}`;
          const i = 2 + (at % (hex.length - 2));
          const char = String.fromCharCode(unit);
          const edited = hex.slice(0, i) + char + hex.slice(i + 1);
          const isHexDigit = /^[0-9a-fA-F]$/.test(char);
          return (hexBytes(edited) === null) === !isHexDigit;
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('HexMemo', () => {
  it('decodes each text once and answers whether it is hex', () => {
    const memo = new HexMemo();
    const code = `0x${'5b'.repeat(300)}`;
    const first = memo.bytes(code);
    expect(first?.length).toBe(300);
    expect(memo.bytes(`0x${'5b'.repeat(300)}`)).toBe(first);
    expect(memo.isHex(code)).toBe(true);
    expect(memo.isHex('0x5')).toBe(false);
    expect(memo.isHex('plain text')).toBe(false);
  });

  it('gives runtimeCodeHashOf the keccak-256 viem computes, and its refusal', () => {
    const memo = new HexMemo();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 1_000 }), (data) => {
        const hex = `0x${Buffer.from(data).toString('hex')}` as const;
        return runtimeCodeHashOf(hex, memo) === keccak256(hex) && runtimeCodeHashOf(hex) === keccak256(hex);
      }),
      { numRuns: 200 },
    );
    expect(() => runtimeCodeHashOf('0xzz', memo)).toThrow(TypeError);
    expect(() => runtimeCodeHashOf('0xzz')).toThrow(TypeError);
  });
});

describe('the request digests through one memo', () => {
  it('equal the digests of the canonical text for a request of 16 targets of 24 KiB', () => {
    const request = example<CustomLaunchCreateRequestV4>(v4Example);
    const targets = request.graphBundle.targets;
    for (let i = targets.length; i < 16; i++) {
      targets.push({ targetId: `auxiliary-${i}`, role: 'auxiliary', runtimeBytecode: '0x00', runtimeCodeHash: '0x' });
    }
    targets.forEach((target, i) => {
      const code = Buffer.alloc(24_576, i + 1);
      code.writeUInt32BE((i * 2654435761) >>> 0, 100);
      // Upper-case hex in one target: the digest binds the text as written, not its bytes.
      const hex = code.toString('hex');
      target.runtimeBytecode = `0x${i === 3 ? hex.toUpperCase() : hex}`;
      target.runtimeCodeHash = keccak256(target.runtimeBytecode as `0x${string}`);
    });
    const bound = bindRequestHashes(request);
    const memo = new HexMemo();
    const { graphBundleDigest: _digest, ...graph } = bound.graphBundle;
    const { launchIntentHash: _hash, agentAttestation: _attestation, ...intent } = bound;
    expect(graphBundleDigestOf(bound.graphBundle, memo)).toBe(sha256Digest(canonicalJson(graph)));
    expect(launchIntentHashOf(bound, memo)).toBe(sha256Digest(canonicalJson(intent)));
    expect(launchIntentHashOf(bound, memo)).toBe(bound.launchIntentHash);
    for (const target of bound.graphBundle.targets) {
      expect(runtimeCodeHashOf(target.runtimeBytecode, memo)).toBe(target.runtimeCodeHash.toLowerCase());
    }
  });
});
