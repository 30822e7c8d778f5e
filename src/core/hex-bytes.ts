/*
 * Strict decoding of `0x` hex text (the runtime code and hashes of spec/schemas/custom-launch-create-request.v4.schema.json),
 * and a per-request memo of it: a maximal request carries 786 KB of runtime code as hex, which the request rules
 * (keccak-256 and both canonical digests) and the static baseline would otherwise each decode or re-check.
 */

/**
 * The bytes of `0x` followed by an even number of hex digits (either case), or null when the text is anything else.
 * Node's hex decoding alone is not a proof: it stops at the first pair that is not hex, and it reads only the low byte
 * of each UTF-16 unit (U+0130 decodes as `0`), so the text must also be ASCII.
 */
export function hexBytes(hex: string): Buffer | null {
  if (hex.length % 2 !== 0 || !hex.startsWith('0x')) return null;
  // Buffer.byteLength counts UTF-8 bytes: equal to the length only when every unit is ASCII.
  if (Buffer.byteLength(hex, 'utf8') !== hex.length) return null;
  const bytes = Buffer.from(hex.slice(2), 'hex');
  return bytes.length * 2 === hex.length - 2 ? bytes : null;
}

/**
 * One request's hex decodes, each done once however many rules read the same text (the runtime code of
 * custom-launch-create-request.v4.schema.json GraphTarget). Keys are the texts themselves; a memo lives as long as
 * the request it serves.
 */
export class HexMemo {
  private readonly decoded = new Map<string, Buffer | null>();

  /** `hexBytes` of the text, decoded at most once per memo. */
  bytes(hex: string): Buffer | null {
    let bytes = this.decoded.get(hex);
    if (bytes === undefined) {
      bytes = hexBytes(hex);
      this.decoded.set(hex, bytes);
    }
    return bytes;
  }

  /** Whether the text is `0x` hex (then it is ASCII and JSON needs no escape in it). */
  isHex(text: string): boolean {
    return this.bytes(text) !== null;
  }
}
