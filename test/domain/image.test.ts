import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ImageFindingCode,
  type ImageInspection,
  imageFindingCodes,
  imageLimits,
  inspectImage,
} from '../../src/core/image.ts';

// custom-launch-create-request.v4.schema.json $defs.ImageMediaType: PNG or single-frame GIF; JPEG, WebP and animated
// GIF are rejected. Every fixture is written here by a tiny encoder, so each byte a case depends on is visible in this
// file.

type Bytes = Uint8Array | number[];
const join = (...parts: Bytes[]): Uint8Array => Buffer.concat(parts.map((p) => Uint8Array.from(p)));
const latin1 = (text: string): number[] => [...Buffer.from(text, 'latin1')];
const be32 = (n: number): number[] => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const le16 = (n: number): number[] => [n & 0xff, (n >>> 8) & 0xff];

// ---- PNG encoder (node:zlib's own crc32 is the independent oracle for the module's table CRC) ----

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function chunk(type: string, data: Bytes = []): Uint8Array {
  const body = join(latin1(type), data);
  return join(be32(body.length - 4), body, be32(crc32(body)));
}

interface PngOptions {
  width: number;
  height: number;
  colourType?: number;
  bitDepth?: number;
  interlace?: number;
  /** Inflated scanline bytes; default: the right size for a non-interlaced image, filter types cycling 0-4. */
  raw?: Uint8Array;
  /** Chunks between IHDR and IDAT. */
  before?: Uint8Array[];
  after?: Uint8Array[];
}

const samples: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

function scanlines(width: number, height: number, bitsPerPixel: number): Uint8Array {
  const rowBytes = 1 + Math.ceil((width * bitsPerPixel) / 8);
  const raw = new Uint8Array(height * rowBytes);
  for (let i = 0; i < raw.length; i++) raw[i] = i % rowBytes === 0 ? (i / rowBytes) % 5 : (i * 7) % 251;
  return raw;
}

function ihdr(o: PngOptions): Uint8Array {
  const { width, height, colourType = 6, bitDepth = 8, interlace = 0 } = o;
  return chunk('IHDR', [...be32(width), ...be32(height), bitDepth, colourType, 0, 0, interlace]);
}

function png(o: PngOptions): Uint8Array {
  const bitsPerPixel = (o.bitDepth ?? 8) * (samples[o.colourType ?? 6] ?? 1);
  const raw = o.raw ?? scanlines(o.width, o.height, bitsPerPixel);
  return join(pngSignature, ihdr(o), ...(o.before ?? []), chunk('IDAT', deflateSync(raw)), ...(o.after ?? []), iend);
}

const iend = chunk('IEND');
const plte = (entries: number) => chunk('PLTE', new Uint8Array(entries * 3).fill(0x80));
const rgba7x5 = () => png({ width: 7, height: 5 });

/** Replaces the byte at `at` (negative counts from the end) with its bitwise complement. */
function flip(bytes: Uint8Array, at: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  const i = at < 0 ? copy.length + at : at;
  copy[i] = (copy[i] ?? 0) ^ 0xff;
  return copy;
}

// ---- GIF encoder ----

/** GIF LZW, written from the GIF89a appendix F: codes LSB first, width grows at 2^n, clear at 4096 entries. */
function lzw(indices: Uint8Array, minCodeSize: number): Uint8Array {
  const clear = 1 << minCodeSize;
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  let codeSize = minCodeSize + 1;
  const emit = (code: number) => {
    buffer |= code << bits;
    bits += codeSize;
    while (bits >= 8) {
      out.push(buffer & 0xff);
      buffer >>>= 8;
      bits -= 8;
    }
  };
  let table = new Map<number, number>();
  let next = clear + 2;
  emit(clear);
  let current = indices[0] ?? 0;
  for (const k of indices.subarray(1)) {
    const found = table.get(current * 256 + k);
    if (found !== undefined) {
      current = found;
      continue;
    }
    emit(current);
    if (next === 4096) {
      emit(clear);
      table = new Map();
      next = clear + 2;
      codeSize = minCodeSize + 1;
    } else {
      if (next >= 1 << codeSize) codeSize++;
      table.set(current * 256 + k, next++);
    }
    current = k;
  }
  emit(current);
  emit(clear + 1);
  if (bits > 0) out.push(buffer & 0xff);
  return Uint8Array.from(out);
}

function subBlocks(data: Uint8Array): Uint8Array {
  const parts: Bytes[] = [];
  for (let i = 0; i < data.length; i += 255) {
    const block = data.subarray(i, i + 255);
    parts.push([block.length], block);
  }
  return join(...parts, [0]);
}

/** Header, logical screen descriptor and a global colour table of 2^(depth) entries. */
function gifHead(width: number, height: number, depth = 2, version = '89a'): Uint8Array {
  return join(
    latin1(`GIF${version}`),
    le16(width),
    le16(height),
    [0x80 | (depth - 1), 0, 0],
    new Uint8Array(3 << depth),
  );
}

function frame(width: number, height: number, indices?: Uint8Array, minCodeSize = 2): Uint8Array {
  const pixels = indices ?? Uint8Array.from({ length: width * height }, (_, i) => i % (1 << minCodeSize));
  return join(
    [0x2c],
    le16(0),
    le16(0),
    le16(width),
    le16(height),
    [0],
    [minCodeSize],
    subBlocks(lzw(pixels, minCodeSize)),
  );
}

const netscapeLoop = join([0x21, 0xff, 11], latin1('NETSCAPE2.0'), [3, 1, 0, 0, 0]);
const graphicControl = Uint8Array.of(0x21, 0xf9, 4, 0, 10, 0, 0, 0);
const trailer = [0x3b];
const gif = (width: number, height: number, ...blocks: Bytes[]) => join(gifHead(width, height), ...blocks, trailer);
const gif2x2 = () => gif(2, 2, frame(2, 2, Uint8Array.of(0, 1, 1, 0)));
const noise = (length: number, seed: number) => Uint8Array.from({ length }, (_, i) => (i * 2654435761 + seed) >>> 24);

// Two 43-byte GIFs seen all over the web: a transparent pixel (whose end code is cut short) and a white pixel.
const transparentPixel = () => Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const whitePixel = () => Buffer.from('R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs=', 'base64');

// ---- The table ----

type Want = Omit<Extract<ImageInspection, { ok: true }>, 'ok'> | ImageFindingCode;
const okPng = (width: number, height: number): Want => ({ mediaType: 'image/png', width, height, frames: 1 });
const okGif = (width: number, height: number): Want => ({ mediaType: 'image/gif', width, height, frames: 1 });
const PNG = 'image/png';
const GIF = 'image/gif';

const cases: Array<[string, () => Uint8Array, string, Want]> = [
  // PNG accepted
  ['PNG 1×1 RGBA', () => png({ width: 1, height: 1 }), PNG, okPng(1, 1)],
  ['PNG 7×5 RGBA', rgba7x5, PNG, okPng(7, 5)],
  ['PNG 7×5 greyscale 1-bit', () => png({ width: 7, height: 5, colourType: 0, bitDepth: 1 }), PNG, okPng(7, 5)],
  ['PNG 9×2 greyscale 16-bit', () => png({ width: 9, height: 2, colourType: 0, bitDepth: 16 }), PNG, okPng(9, 2)],
  ['PNG 3×2 RGB 16-bit', () => png({ width: 3, height: 2, colourType: 2, bitDepth: 16 }), PNG, okPng(3, 2)],
  ['PNG 4×4 grey+alpha 8-bit', () => png({ width: 4, height: 4, colourType: 4 }), PNG, okPng(4, 4)],
  [
    'PNG 5×3 palette 2-bit with PLTE',
    () => png({ width: 5, height: 3, colourType: 3, bitDepth: 2, before: [plte(4)] }),
    PNG,
    okPng(5, 3),
  ],
  [
    'PNG with an ancillary tEXt chunk',
    () => png({ width: 2, height: 2, before: [chunk('tEXt', latin1('a\0b'))] }),
    PNG,
    okPng(2, 2),
  ],
  [
    'PNG with IDAT split over two chunks',
    () => {
      const idat = deflateSync(scanlines(7, 5, 32));
      return join(
        pngSignature,
        ihdr({ width: 7, height: 5 }),
        chunk('IDAT', idat.subarray(0, 9)),
        chunk('IDAT', idat.subarray(9)),
        iend,
      );
    },
    PNG,
    okPng(7, 5),
  ],
  // Adam7 sizes by hand: 3×3 grey 8-bit has passes 1×1, 1×1, 2×1, 1×2, 3×1 = 2+2+3+4+4 bytes.
  [
    'PNG 3×3 Adam7 interlaced',
    () => png({ width: 3, height: 3, colourType: 0, interlace: 1, raw: new Uint8Array(15) }),
    PNG,
    okPng(3, 3),
  ],
  // 7×5 RGBA: passes 1×1, 1×1, 2×1, 2×2, 4×1, 3×3, 7×2 = 5+5+9+18+17+39+58 = 151 bytes (145 non-interlaced).
  [
    'PNG 7×5 RGBA Adam7 interlaced',
    () => png({ width: 7, height: 5, interlace: 1, raw: new Uint8Array(151) }),
    PNG,
    okPng(7, 5),
  ],
  [
    'PNG Adam7 with non-interlaced data size',
    () => png({ width: 7, height: 5, interlace: 1, raw: new Uint8Array(145) }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  // PNG rejected
  [
    'APNG (acTL chunk)',
    () => png({ width: 2, height: 2, before: [chunk('acTL', [...be32(2), ...be32(0)])] }),
    PNG,
    'IMAGE_PNG_ANIMATED',
  ],
  ['PNG with one flipped CRC byte', () => flip(rgba7x5(), -13), PNG, 'IMAGE_CORRUPT'],
  ['PNG with a flipped IHDR byte', () => flip(rgba7x5(), 18), PNG, 'IMAGE_CORRUPT'],
  ['PNG without IEND', () => rgba7x5().subarray(0, -12), PNG, 'IMAGE_TRUNCATED'],
  ['PNG with a byte after IEND', () => join(rgba7x5(), [0]), PNG, 'IMAGE_CORRUPT'],
  [
    'PNG whose first chunk is not IHDR',
    () => join(pngSignature, chunk('tEXt', latin1('a\0b')), rgba7x5().subarray(8)),
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'PNG with a second IHDR',
    () => png({ width: 2, height: 2, before: [ihdr({ width: 2, height: 2 })] }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  ['PNG width 0', () => png({ width: 0, height: 2, raw: new Uint8Array(2) }), PNG, 'IMAGE_CORRUPT'],
  [
    'PNG RGB 4-bit',
    () => png({ width: 2, height: 2, colourType: 2, bitDepth: 4, raw: new Uint8Array(8) }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'PNG palette 16-bit',
    () => png({ width: 2, height: 2, colourType: 3, bitDepth: 16, before: [plte(2)] }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'PNG colour type 5',
    () => png({ width: 2, height: 2, colourType: 5, raw: new Uint8Array(6) }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  ['PNG interlace method 2', () => png({ width: 2, height: 2, interlace: 2 }), PNG, 'IMAGE_CORRUPT'],
  [
    'PNG palette image without PLTE',
    () => png({ width: 5, height: 3, colourType: 3, bitDepth: 2 }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'PNG 2-bit palette with 5 entries',
    () => png({ width: 5, height: 3, colourType: 3, bitDepth: 2, before: [plte(5)] }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'PNG greyscale with PLTE',
    () => png({ width: 2, height: 2, colourType: 0, before: [plte(2)] }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  ['PNG without IDAT', () => join(pngSignature, ihdr({ width: 1, height: 1 }), iend), PNG, 'IMAGE_CORRUPT'],
  [
    'PNG with IDAT chunks split by another chunk',
    () => {
      const idat = deflateSync(scanlines(7, 5, 32));
      const [a, b] = [chunk('IDAT', idat.subarray(0, 9)), chunk('IDAT', idat.subarray(9))];
      return join(pngSignature, ihdr({ width: 7, height: 5 }), a, chunk('tEXt', latin1('a\0b')), b, iend);
    },
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'PNG with an unknown critical chunk',
    () => png({ width: 2, height: 2, before: [chunk('ZZZZ', [1])] }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'PNG with a non-letter chunk type',
    () => png({ width: 2, height: 2, before: [chunk('a1bc', [1])] }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'PNG IDAT one byte short',
    () => png({ width: 7, height: 5, raw: scanlines(7, 5, 32).subarray(1) }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'PNG IDAT one byte long',
    () => png({ width: 7, height: 5, raw: join(scanlines(7, 5, 32), [0]) }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'PNG scanline filter type 5',
    () => png({ width: 1, height: 2, raw: Uint8Array.of(0, 1, 2, 3, 4, 5, 1, 2, 3, 4) }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'PNG IDAT that is not zlib',
    () => join(pngSignature, ihdr({ width: 1, height: 1 }), chunk('IDAT', [1, 2, 3, 4]), iend),
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'PNG chunk length over 2^31-1',
    () => join(pngSignature, ihdr({ width: 1, height: 1 }), [0x80, 0, 0, 0], latin1('IDAT')),
    PNG,
    'IMAGE_CORRUPT',
  ],
  // GIF accepted
  ['GIF transparent 1×1 (end code cut short)', transparentPixel, GIF, okGif(1, 1)],
  ['GIF white 1×1', whitePixel, GIF, okGif(1, 1)],
  ['GIF 2×2', gif2x2, GIF, okGif(2, 2)],
  ['GIF87a 3×3', () => join(gifHead(3, 3, 2, '87a'), frame(3, 3), trailer), GIF, okGif(3, 3)],
  ['GIF 40×30 16 colours', () => join(gifHead(40, 30, 4), frame(40, 30, undefined, 4), trailer), GIF, okGif(40, 30)],
  // Noise fills the 4096-entry table, so the encoder sends a clear code mid-stream.
  [
    'GIF 128×128 256 colours of noise',
    () => join(gifHead(128, 128, 8), frame(128, 128, noise(16384, 7), 8), trailer),
    GIF,
    okGif(128, 128),
  ],
  ['GIF NETSCAPE loop with one frame', () => gif(2, 2, netscapeLoop, graphicControl, frame(2, 2)), GIF, okGif(2, 2)],
  ['GIF frame larger than its screen', () => gif(2, 2, frame(3, 3)), GIF, okGif(2, 2)],
  [
    'GIF with a comment extension',
    () => gif(2, 2, [0x21, 0xfe], subBlocks(Uint8Array.from(latin1('hi'))), frame(2, 2)),
    GIF,
    okGif(2, 2),
  ],
  // GIF rejected
  ['GIF with two frames', () => gif(2, 2, frame(2, 2), frame(2, 2)), GIF, 'IMAGE_GIF_ANIMATED'],
  [
    'GIF NETSCAPE loop with two frames',
    () => gif(2, 2, netscapeLoop, graphicControl, frame(2, 2), graphicControl, frame(2, 2)),
    GIF,
    'IMAGE_GIF_ANIMATED',
  ],
  ['GIF without a frame', () => gif(2, 2), GIF, 'IMAGE_CORRUPT'],
  ['GIF without trailer', () => gif2x2().subarray(0, -1), GIF, 'IMAGE_TRUNCATED'],
  ['GIF with a byte after the trailer', () => join(gif2x2(), [0]), GIF, 'IMAGE_CORRUPT'],
  ['GIF with an unknown block', () => gif(2, 2, frame(2, 2), [0x99]), GIF, 'IMAGE_CORRUPT'],
  ['GIF screen 0×2', () => gif(0, 2, frame(2, 2)), GIF, 'IMAGE_CORRUPT'],
  ['GIF frame 0×2', () => gif(2, 2, frame(0, 2, Uint8Array.of(0))), GIF, 'IMAGE_CORRUPT'],
  ['GIF LZW minimum code size 1', () => gif(2, 2, frame(2, 2, Uint8Array.of(0, 1, 1, 0), 1)), GIF, 'IMAGE_CORRUPT'],
  ['GIF LZW minimum code size 9', () => gif(2, 2, frame(2, 2, Uint8Array.of(0, 1, 1, 0), 9)), GIF, 'IMAGE_CORRUPT'],
  [
    'GIF graphic control extension of 5 bytes',
    () => gif(2, 2, [0x21, 0xf9, 5, 0, 0, 0, 0, 0, 0], frame(2, 2)),
    GIF,
    'IMAGE_CORRUPT',
  ],
  [
    'GIF LZW with 3 of 4 indices',
    () => gif(2, 2, join([0x2c, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2], subBlocks(lzw(Uint8Array.of(0, 1, 1), 2)))),
    GIF,
    'IMAGE_CORRUPT',
  ],
  [
    'GIF LZW with 5 of 4 indices',
    () => gif(2, 2, join([0x2c, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2], subBlocks(lzw(Uint8Array.of(0, 1, 1, 0, 1), 2)))),
    GIF,
    'IMAGE_CORRUPT',
  ],
  // Codes (3 bits): clear 4, literal 0, then 7 while the next free entry is 6.
  [
    'GIF LZW code beyond the table',
    () => gif(2, 2, [0x2c, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2, 2, 0xc4, 0x01, 0]),
    GIF,
    'IMAGE_CORRUPT',
  ],
  // Codes (3 bits): clear 4, then 6, a table code before any literal.
  [
    'GIF LZW starting with a table code',
    () => gif(2, 2, [0x2c, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2, 1, 0x34, 0]),
    GIF,
    'IMAGE_CORRUPT',
  ],
  // Type checks
  ['PNG declared as image/gif', rgba7x5, GIF, 'IMAGE_TYPE_MISMATCH'],
  ['GIF declared as image/png', gif2x2, PNG, 'IMAGE_TYPE_MISMATCH'],
  ['PNG declared as image/jpeg', rgba7x5, 'image/jpeg', 'IMAGE_TYPE_MISMATCH'],
  [
    'JPEG header declared as image/png',
    () => Uint8Array.of(0xff, 0xd8, 0xff, 0xe0, 0, 0x10, ...latin1('JFIF')),
    PNG,
    'IMAGE_JPEG_UNSUPPORTED',
  ],
  [
    'JPEG header declared as image/jpeg',
    () => Uint8Array.of(0xff, 0xd8, 0xff, 0xdb),
    'image/jpeg',
    'IMAGE_JPEG_UNSUPPORTED',
  ],
  [
    'WebP header declared as image/gif',
    () => join(latin1('RIFF'), [26, 0, 0, 0], latin1('WEBPVP8 ')),
    GIF,
    'IMAGE_WEBP_UNSUPPORTED',
  ],
  ['RIFF that is not WebP', () => join(latin1('RIFF'), [26, 0, 0, 0], latin1('WAVEfmt ')), PNG, 'IMAGE_UNRECOGNIZED'],
  ['random bytes', () => noise(300, 1), PNG, 'IMAGE_UNRECOGNIZED'],
  ['BMP header', () => Uint8Array.from(latin1('BM6\0\0\0\0\0\0\0')), PNG, 'IMAGE_UNRECOGNIZED'],
  ['empty file', () => new Uint8Array(0), PNG, 'IMAGE_TRUNCATED'],
  ['half a GIF signature', () => Uint8Array.from(latin1('GIF8')), GIF, 'IMAGE_TRUNCATED'],
  // Decode caps (imageLimits), both sides
  [
    'PNG 4096×4096 at the pixel cap',
    () => png({ width: 4096, height: 4096, colourType: 0, bitDepth: 1, raw: new Uint8Array(4096 * 513) }),
    PNG,
    okPng(4096, 4096),
  ],
  [
    'PNG 4097×4096 over the pixel cap',
    () => png({ width: 4097, height: 4096, colourType: 0, bitDepth: 1, raw: new Uint8Array(1) }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'PNG 2896×2896 RGBA 16-bit under the scanline byte cap',
    () => png({ width: 2896, height: 2896, bitDepth: 16, raw: new Uint8Array(2896 * (1 + 2896 * 8)) }),
    PNG,
    okPng(2896, 2896),
  ],
  [
    'PNG 2897×2896 RGBA 16-bit over the scanline byte cap',
    () => png({ width: 2897, height: 2896, bitDepth: 16, raw: new Uint8Array(1) }),
    PNG,
    'IMAGE_CORRUPT',
  ],
  [
    'GIF frame 4096×4096 at the pixel cap',
    () => gif(4096, 4096, frame(4096, 4096, new Uint8Array(4096 * 4096))),
    GIF,
    okGif(4096, 4096),
  ],
  [
    'GIF frame 4097×4096 over the pixel cap',
    () => gif(2, 2, frame(4097, 4096, Uint8Array.of(0))),
    GIF,
    'IMAGE_CORRUPT',
  ],
];

describe('inspectImage (PNG or single-frame GIF only)', () => {
  it.each(cases)('%s', (_name, build, declared, want) => {
    const got = inspectImage(build(), declared);
    if (typeof want === 'string') {
      expect(got).toMatchObject({ ok: false, code: want });
      if (!got.ok) expect(got.detail).not.toBe('');
    } else {
      expect(got).toEqual({ ok: true, ...want });
    }
  });

  it('exercises every finding code, and uses only codes from the list', () => {
    const used = new Set(cases.map(([, , , want]) => want).filter((w) => typeof w === 'string'));
    expect([...used].sort()).toEqual([...imageFindingCodes].sort());
  });

  it('keeps the caps the module documents', () => {
    expect(imageLimits).toEqual({ maxPixels: 16_777_216, maxPngRawBytes: 64 * 1024 * 1024 });
    expect(2896 * (1 + 2896 * 8)).toBeLessThanOrEqual(imageLimits.maxPngRawBytes);
    expect(2896 * (1 + 2897 * 8)).toBeGreaterThan(imageLimits.maxPngRawBytes);
  });

  it('accepts the example image of the v4 create request', () => {
    const example = JSON.parse(
      readFileSync(new URL('../../spec/examples/custom-launch-create-request.v4.json', import.meta.url), 'utf8'),
    );
    const artifact = example.projectMetadataImageArtifact;
    const bytes = Buffer.from(artifact.bytesBase64, 'base64');
    expect(bytes.length).toBe(artifact.byteLength);
    expect(inspectImage(bytes, artifact.mediaType)).toMatchObject({ ok: true, mediaType: artifact.mediaType });
  });

  // Every cut of a valid file, including inside the signature, must be a finding and never a throw.
  it.each([
    ['PNG 7×5 RGBA', rgba7x5, PNG],
    ['PNG 5×3 palette', () => png({ width: 5, height: 3, colourType: 3, bitDepth: 2, before: [plte(4)] }), PNG],
    ['GIF 2×2', gif2x2, GIF],
    ['GIF NETSCAPE loop', () => gif(2, 2, netscapeLoop, graphicControl, frame(2, 2)), GIF],
    ['GIF 40×30', () => join(gifHead(40, 30, 4), frame(40, 30, undefined, 4), trailer), GIF],
  ])('every truncation of %s is IMAGE_TRUNCATED', (_name, build, declared) => {
    const bytes = build();
    expect(inspectImage(bytes, declared).ok).toBe(true);
    for (let cut = 0; cut < bytes.length; cut++) {
      expect(inspectImage(bytes.subarray(0, cut), declared), `cut at ${cut}`).toMatchObject({
        ok: false,
        code: 'IMAGE_TRUNCATED',
      });
    }
  });
});

describe('inspectImage never throws', () => {
  const isFinding = (got: ImageInspection) => got.ok || imageFindingCodes.includes(got.code);
  const startsWithSignature = (bytes: Uint8Array) => {
    const head = Buffer.from(bytes.subarray(0, 8));
    return (
      head.equals(Buffer.from(pngSignature)) || ['GIF87a', 'GIF89a'].includes(head.subarray(0, 6).toString('latin1'))
    );
  };

  it('accepts random bytes only when they start with a PNG or GIF signature', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), fc.constantFrom(PNG, GIF), (bytes, declared) => {
        const got = inspectImage(bytes, declared);
        expect(isFinding(got)).toBe(true);
        if (got.ok) expect(startsWithSignature(bytes)).toBe(true);
      }),
    );
  });

  it('returns a finding for random data behind a PNG or GIF signature', () => {
    const head = fc.constantFrom(
      Uint8Array.from(pngSignature),
      gifHead(2, 2),
      join(pngSignature, ihdr({ width: 3, height: 3 })),
    );
    fc.assert(
      fc.property(head, fc.uint8Array({ maxLength: 2048 }), (h, tail) => {
        const bytes = join(h, tail);
        expect(isFinding(inspectImage(bytes, h[0] === 0x89 ? PNG : GIF))).toBe(true);
      }),
    );
  });

  it('returns a finding for valid files with random bytes overwritten', () => {
    const fixtures = [rgba7x5(), gif2x2(), join(gifHead(40, 30, 4), frame(40, 30, undefined, 4), trailer)];
    const edit = fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) });
    fc.assert(
      fc.property(
        fc.constantFrom(...fixtures.keys()),
        fc.array(edit, { minLength: 1, maxLength: 4 }),
        (which, edits) => {
          const bytes = Uint8Array.from(fixtures[which] ?? []);
          for (const { at, value } of edits) bytes[at % bytes.length] = value;
          expect(isFinding(inspectImage(bytes, which === 0 ? PNG : GIF))).toBe(true);
        },
      ),
    );
  });
});
