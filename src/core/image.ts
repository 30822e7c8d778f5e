import { inflateSync } from 'node:zlib';
import { decodeJpeg, type RasterDecode } from './image-jpeg.ts';
import { decodeWebp } from './image-webp.ts';

/**
 * The project metadata image check. Spec: `$defs.ImageMediaType` of
 * spec/schemas/custom-launch-create-request.v4.schema.json (PNG or single-frame GIF; JPEG, WebP and animated GIF
 * are rejected). Project design: the image is decoded, not just sniffed, and each way of failing
 * has its own finding code. An APNG (PNG with an acTL chunk) is animated too, so it gets IMAGE_PNG_ANIMATED.
 */
export const imageFindingCodes = [
  'IMAGE_JPEG_UNSUPPORTED',
  'IMAGE_WEBP_UNSUPPORTED',
  'IMAGE_GIF_ANIMATED',
  'IMAGE_PNG_ANIMATED',
  'IMAGE_TRUNCATED',
  'IMAGE_TYPE_MISMATCH',
  'IMAGE_UNRECOGNIZED',
  'IMAGE_CORRUPT',
] as const;

export type ImageFindingCode = (typeof imageFindingCodes)[number];

/** The metadata image types of the base-layer (V3) lane. */
export type MetadataImageMediaType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';

/** A decoded image of media type M, or why it is refused. */
export type ImageInspection<M extends MetadataImageMediaType = 'image/png' | 'image/gif'> =
  | { ok: true; mediaType: M; width: number; height: number; frames: number }
  | { ok: false; code: ImageFindingCode; detail: string };

/**
 * Decoder caps, so no untrusted size field drives an allocation unchecked. Project design: 16,777,216 pixels
 * (4096 × 4096) per image or frame, and 64 MiB of inflated PNG scanline data (a 16-bit RGBA image reaches the byte
 * cap before the pixel cap). Larger images are IMAGE_CORRUPT.
 */
export const imageLimits = { maxPixels: 16_777_216, maxPngRawBytes: 64 * 1024 * 1024 } as const;

type Failure = Extract<ImageInspection, { ok: false }>;

function fail(code: ImageFindingCode, detail: string): Failure {
  return { ok: false, code, detail };
}

function truncated(detail: string): Failure {
  return fail('IMAGE_TRUNCATED', detail);
}

function corrupt(detail: string): Failure {
  return fail('IMAGE_CORRUPT', detail);
}

const pngSignature = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
const gif87a = Uint8Array.of(0x47, 0x49, 0x46, 0x38, 0x37, 0x61);
const gif89a = Uint8Array.of(0x47, 0x49, 0x46, 0x38, 0x39, 0x61);

function startsWith(bytes: Uint8Array, prefix: Uint8Array, at = 0): boolean {
  if (at + prefix.length > bytes.length) return false;
  return prefix.every((b, i) => bytes[at + i] === b);
}

function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function sniff(bytes: Uint8Array): 'image/png' | 'image/gif' | 'image/jpeg' | 'image/webp' | undefined {
  if (startsWith(bytes, pngSignature)) return 'image/png';
  if (startsWith(bytes, gif87a) || startsWith(bytes, gif89a)) return 'image/gif';
  if (startsWith(bytes, Uint8Array.of(0xff, 0xd8, 0xff))) return 'image/jpeg';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  return undefined;
}

/**
 * Decodes a metadata image and says whether the launch may carry it: a PNG or a single-frame GIF whose bytes match
 * the declared media type. Never throws; every failure is a finding. Spec: `$defs.ImageMediaType` of
 * spec/schemas/custom-launch-create-request.v4.schema.json (PNG or single-frame GIF; JPEG, WebP and animated GIF
 * are rejected).
 */
export function inspectImage(bytes: Uint8Array, declaredMediaType: string): ImageInspection {
  const sniffed = sniff(bytes);
  if (sniffed === 'image/jpeg')
    return fail('IMAGE_JPEG_UNSUPPORTED', 'JPEG is not accepted; use PNG or a single-frame GIF');
  if (sniffed === 'image/webp')
    return fail('IMAGE_WEBP_UNSUPPORTED', 'WebP is not accepted; use PNG or a single-frame GIF');
  if (sniffed === undefined) {
    // A file cut inside its own signature is a truncated PNG or GIF, not an unknown format.
    const cutSignature = [pngSignature, gif87a, gif89a].some(
      (sig) => bytes.length < sig.length && startsWith(sig, bytes),
    );
    if (cutSignature) return truncated(`${bytes.length} bytes end inside the PNG or GIF signature`);
    return fail('IMAGE_UNRECOGNIZED', 'the bytes are not a PNG, GIF, JPEG or WebP image');
  }
  if (sniffed !== declaredMediaType) {
    return fail('IMAGE_TYPE_MISMATCH', `the bytes are ${sniffed} but the declared media type is ${declaredMediaType}`);
  }
  return sniffed === 'image/png' ? inspectPng(bytes) : inspectGif(bytes);
}

/**
 * Decodes a base-layer (V3) metadata image as its declared media type: PNG, JPEG, WebP or a single-frame GIF. Bytes
 * of another type than the declared one, or that only start like it, are refused. Never throws; every failure is a
 * finding. Spec: `$defs.Image` of spec/schemas/custom-launch-create-request.v3.schema.json (PNG, JPEG, WebP or GIF).
 */
export function inspectBaseLayerImage(
  bytes: Uint8Array,
  declaredMediaType: string,
): ImageInspection<MetadataImageMediaType> {
  const sniffed = sniff(bytes);
  if (sniffed === undefined) return fail('IMAGE_UNRECOGNIZED', 'the bytes are not a PNG, GIF, JPEG or WebP image');
  if (sniffed !== declaredMediaType) {
    return fail('IMAGE_TYPE_MISMATCH', `the bytes are ${sniffed} but the declared media type is ${declaredMediaType}`);
  }
  switch (sniffed) {
    case 'image/png':
      return inspectPng(bytes);
    case 'image/gif':
      return inspectGif(bytes);
    case 'image/jpeg':
      return inspectJpeg(bytes);
    case 'image/webp':
      return inspectWebp(bytes);
  }
}

function rasterInspection<M extends 'image/jpeg' | 'image/webp'>(
  mediaType: M,
  decoded: RasterDecode,
): ImageInspection<M> {
  if (!decoded.ok) return decoded.truncated ? truncated(decoded.detail) : corrupt(decoded.detail);
  if (decoded.width * decoded.height > imageLimits.maxPixels) {
    return corrupt(`${decoded.width}×${decoded.height} exceeds the ${imageLimits.maxPixels}-pixel decode cap`);
  }
  return { ok: true, mediaType, width: decoded.width, height: decoded.height, frames: 1 };
}

const inspectJpeg = (bytes: Uint8Array) => rasterInspection('image/jpeg', decodeJpeg(bytes, imageLimits.maxPixels));
const inspectWebp = (bytes: Uint8Array) => rasterInspection('image/webp', decodeWebp(bytes, imageLimits.maxPixels));

// ---- PNG (ISO/IEC 15948, W3C PNG Third Edition) ----

const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (crcTable[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Allowed bit depths per colour type, and samples per pixel. */
const pngColourTypes: Record<number, { depths: readonly number[]; samples: number }> = {
  0: { depths: [1, 2, 4, 8, 16], samples: 1 },
  2: { depths: [8, 16], samples: 3 },
  3: { depths: [1, 2, 4, 8], samples: 1 },
  4: { depths: [8, 16], samples: 2 },
  6: { depths: [8, 16], samples: 4 },
};

// Adam7 passes: x start, y start, x step, y step.
const adam7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

interface Ihdr {
  width: number;
  height: number;
  bitDepth: number;
  colourType: number;
  interlace: number;
}

/** The scanline layout as [pixels per row, rows] for each (sub-)image, in the order the filter bytes appear. */
function pngPasses({ width, height, interlace }: Ihdr): Array<[number, number]> {
  if (interlace === 0) return [[width, height]];
  return adam7
    .map(([x0, y0, dx, dy]): [number, number] => [
      Math.max(0, Math.ceil((width - x0) / dx)),
      Math.max(0, Math.ceil((height - y0) / dy)),
    ])
    .filter(([w, h]) => w > 0 && h > 0);
}

function readIhdr(data: Uint8Array): Ihdr | Failure {
  if (data.length !== 13) return corrupt(`IHDR is ${data.length} bytes, not 13`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const ihdr: Ihdr = {
    width: view.getUint32(0),
    height: view.getUint32(4),
    bitDepth: view.getUint8(8),
    colourType: view.getUint8(9),
    interlace: view.getUint8(12),
  };
  if (ihdr.width === 0 || ihdr.height === 0 || ihdr.width > 0x7fffffff || ihdr.height > 0x7fffffff) {
    return corrupt(`IHDR size ${ihdr.width}×${ihdr.height} is out of range`);
  }
  if (!pngColourTypes[ihdr.colourType]?.depths.includes(ihdr.bitDepth)) {
    return corrupt(`IHDR colour type ${ihdr.colourType} with bit depth ${ihdr.bitDepth} is not a PNG combination`);
  }
  if (view.getUint8(10) !== 0 || view.getUint8(11) !== 0) return corrupt('IHDR compression or filter method is not 0');
  if (ihdr.interlace > 1) return corrupt(`IHDR interlace method ${ihdr.interlace} is not 0 or 1`);
  if (ihdr.width * ihdr.height > imageLimits.maxPixels) {
    return corrupt(`${ihdr.width}×${ihdr.height} exceeds the ${imageLimits.maxPixels}-pixel decode cap`);
  }
  return ihdr;
}

function inspectPng(bytes: Uint8Array): ImageInspection {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = pngSignature.length;
  let ihdr: Ihdr | undefined;
  let sawPalette = false;
  let idatState: 'before' | 'in' | 'after' = 'before';
  const idat: Uint8Array[] = [];
  for (;;) {
    if (offset === bytes.length) return truncated('the file ends without an IEND chunk');
    if (offset + 8 > bytes.length) return truncated(`a chunk header at byte ${offset} runs past the end`);
    const length = view.getUint32(offset);
    const typeBytes = bytes.subarray(offset + 4, offset + 8);
    const type = String.fromCharCode(...typeBytes);
    if (!/^[A-Za-z]{4}$/.test(type)) return corrupt(`invalid chunk type at byte ${offset}`);
    if (length > 0x7fffffff) return corrupt(`chunk ${type} declares length ${length}`);
    if (offset + 12 + length > bytes.length) return truncated(`chunk ${type} at byte ${offset} runs past the end`);
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== view.getUint32(offset + 8 + length)) {
      return corrupt(`chunk ${type} at byte ${offset} fails its CRC-32`);
    }
    offset += 12 + length;

    if (ihdr === undefined) {
      if (type !== 'IHDR') return corrupt(`the first chunk is ${type}, not IHDR`);
      const read = readIhdr(data);
      if ('ok' in read) return read;
      ihdr = read;
      continue;
    }
    if (idatState === 'in' && type !== 'IDAT') idatState = 'after';
    switch (type) {
      case 'IHDR':
        return corrupt('a second IHDR chunk');
      case 'acTL':
        return fail('IMAGE_PNG_ANIMATED', 'an acTL chunk makes this an animated PNG (APNG)');
      case 'PLTE': {
        const entries = length / 3;
        if (sawPalette || idatState !== 'before') return corrupt('PLTE repeated or after IDAT');
        if (ihdr.colourType === 0 || ihdr.colourType === 4) return corrupt('PLTE in a greyscale image');
        if (!Number.isInteger(entries) || entries < 1 || entries > 256) return corrupt(`PLTE of ${length} bytes`);
        if (ihdr.colourType === 3 && entries > 2 ** ihdr.bitDepth)
          return corrupt('PLTE larger than the bit depth allows');
        sawPalette = true;
        break;
      }
      case 'IDAT':
        if (idatState === 'after') return corrupt('IDAT chunks are not consecutive');
        if (ihdr.colourType === 3 && !sawPalette) return corrupt('a palette image has no PLTE before IDAT');
        idatState = 'in';
        idat.push(data);
        break;
      case 'IEND':
        if (length !== 0) return corrupt('IEND carries data');
        if (offset !== bytes.length) return corrupt(`${bytes.length - offset} bytes follow IEND`);
        if (idat.length === 0) return corrupt('no IDAT chunk');
        return checkPngScanlines(ihdr, Buffer.concat(idat));
      default:
        // Bit 5 of the first type byte clear marks a critical chunk, which a decoder must understand.
        if (((typeBytes[0] as number) & 0x20) === 0) return corrupt(`unknown critical chunk ${type}`);
    }
  }
}

function checkPngScanlines(ihdr: Ihdr, compressed: Buffer): ImageInspection {
  const bitsPerPixel = ihdr.bitDepth * (pngColourTypes[ihdr.colourType]?.samples ?? 0);
  const passes = pngPasses(ihdr).map(([w, h]) => ({ rowBytes: 1 + Math.ceil((w * bitsPerPixel) / 8), rows: h }));
  const expected = passes.reduce((sum, p) => sum + p.rowBytes * p.rows, 0);
  if (expected > imageLimits.maxPngRawBytes) {
    return corrupt(`${expected} bytes of scanlines exceed the ${imageLimits.maxPngRawBytes}-byte decode cap`);
  }
  let raw: Buffer;
  try {
    // One byte of headroom tells "too much data" apart from "exactly right" without inflating a bomb.
    raw = inflateSync(compressed, { maxOutputLength: expected + 1 });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return corrupt(`IDAT data does not inflate to ${expected} bytes: ${reason}`);
  }
  if (raw.length !== expected) return corrupt(`IDAT inflates to ${raw.length} bytes, expected ${expected}`);
  let at = 0;
  for (const { rowBytes, rows } of passes) {
    for (let row = 0; row < rows; row++, at += rowBytes) {
      if ((raw[at] as number) > 4) return corrupt(`scanline filter type ${raw[at]} at byte ${at} is not 0-4`);
    }
  }
  return { ok: true, mediaType: 'image/png', width: ihdr.width, height: ihdr.height, frames: 1 };
}

// ---- GIF (GIF89a specification) ----

class GifReader {
  offset = 6;
  constructor(readonly bytes: Uint8Array) {}

  /** The next n bytes, or undefined when the file ends first. */
  take(n: number): Uint8Array | undefined {
    if (this.offset + n > this.bytes.length) return undefined;
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  /** Data sub-blocks up to the zero-length terminator, joined; undefined when the file ends first. */
  subBlocks(): Uint8Array | undefined {
    const parts: Uint8Array[] = [];
    for (;;) {
      const size = this.take(1)?.[0];
      if (size === undefined) return undefined;
      if (size === 0) return Buffer.concat(parts);
      const block = this.take(size);
      if (block === undefined) return undefined;
      parts.push(block);
    }
  }
}

function colourTableBytes(packed: number): number {
  return packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0;
}

function inspectGif(bytes: Uint8Array): ImageInspection {
  const reader = new GifReader(bytes);
  const screen = reader.take(7);
  if (screen === undefined) return truncated('the file ends inside the logical screen descriptor');
  const width = (screen[0] as number) | ((screen[1] as number) << 8);
  const height = (screen[2] as number) | ((screen[3] as number) << 8);
  if (width === 0 || height === 0) return corrupt(`logical screen ${width}×${height} is empty`);
  if (reader.take(colourTableBytes(screen[4] as number)) === undefined) {
    return truncated('the file ends inside the global colour table');
  }
  let frames = 0;
  for (;;) {
    const at = reader.offset;
    const introducer = reader.take(1)?.[0];
    if (introducer === undefined) return truncated('the file ends before the GIF trailer');
    if (introducer === 0x3b) {
      if (reader.offset !== bytes.length)
        return corrupt(`${bytes.length - reader.offset} bytes follow the GIF trailer`);
      if (frames === 0) return corrupt('the GIF has no image');
      return { ok: true, mediaType: 'image/gif', width, height, frames };
    }
    if (introducer === 0x21) {
      const label = reader.take(1)?.[0];
      if (label === undefined) return truncated('the file ends inside an extension');
      const start = reader.offset;
      if (reader.subBlocks() === undefined) return truncated(`extension 0x${label.toString(16)} runs past the end`);
      if (label === 0xf9 && bytes[start] !== 4) return corrupt('a graphic control extension is not 4 bytes');
      continue;
    }
    if (introducer !== 0x2c) return corrupt(`unknown block 0x${introducer.toString(16)} at byte ${at}`);
    // A second frame already makes the image animated; stop before decoding it (and bound the work to one frame).
    if (frames === 1) return fail('IMAGE_GIF_ANIMATED', 'the GIF has more than one frame');
    const descriptor = reader.take(9);
    if (descriptor === undefined) return truncated('the file ends inside an image descriptor');
    const frameWidth = (descriptor[4] as number) | ((descriptor[5] as number) << 8);
    const frameHeight = (descriptor[6] as number) | ((descriptor[7] as number) << 8);
    if (reader.take(colourTableBytes(descriptor[8] as number)) === undefined) {
      return truncated('the file ends inside a local colour table');
    }
    const minCodeSize = reader.take(1)?.[0];
    if (minCodeSize === undefined) return truncated('the file ends before the LZW minimum code size');
    const data = reader.subBlocks();
    if (data === undefined) return truncated('image data runs past the end');
    // Frames poking out of the logical screen are clipped by every browser, so only emptiness and the cap matter.
    if (frameWidth === 0 || frameHeight === 0) return corrupt(`frame ${frameWidth}×${frameHeight} is empty`);
    if (frameWidth * frameHeight > imageLimits.maxPixels) {
      return corrupt(`frame ${frameWidth}×${frameHeight} exceeds the ${imageLimits.maxPixels}-pixel decode cap`);
    }
    if (minCodeSize < 2 || minCodeSize > 8) return corrupt(`LZW minimum code size ${minCodeSize} is not 2-8`);
    const decoded = decodeGifLzw(data, minCodeSize, frameWidth * frameHeight);
    if (typeof decoded === 'string') return corrupt(decoded);
    frames++;
  }
}

/**
 * GIF's variable-length LZW (codes LSB first, 12-bit maximum, deferred clear allowed). Returns the colour indices,
 * or why the stream is malformed. The stream must yield exactly `pixels` indices; a missing end code is tolerated
 * only when it does, as browsers do.
 */
function decodeGifLzw(data: Uint8Array, minCodeSize: number, pixels: number): Uint8Array | string {
  const clear = 1 << minCodeSize;
  const end = clear + 1;
  const prefix = new Uint16Array(4096);
  const suffix = new Uint8Array(4096);
  const first = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  for (let code = 0; code < clear; code++) {
    suffix[code] = code;
    first[code] = code;
    lengths[code] = 1;
  }
  const out = new Uint8Array(pixels);
  let written = 0;
  let codeSize = minCodeSize + 1;
  let next = end + 1;
  let previous = -1;
  let bitBuffer = 0;
  let bitCount = 0;
  let at = 0;
  for (;;) {
    while (bitCount < codeSize && at < data.length) {
      bitBuffer |= (data[at++] as number) << bitCount;
      bitCount += 8;
    }
    if (bitCount < codeSize) break;
    const code = bitBuffer & ((1 << codeSize) - 1);
    bitBuffer >>>= codeSize;
    bitCount -= codeSize;

    if (code === clear) {
      codeSize = minCodeSize + 1;
      next = end + 1;
      previous = -1;
      continue;
    }
    if (code === end) break;
    if (previous === -1) {
      if (code >= clear) return `LZW code ${code} before any string`;
    } else if (code > next) {
      return `LZW code ${code} is beyond the table (next ${next})`;
    } else if (next < 4096) {
      // code === next is the KwKwK case: the new entry is the previous string plus its own first index.
      prefix[next] = previous;
      suffix[next] = code === next ? (first[previous] as number) : (first[code] as number);
      first[next] = first[previous] as number;
      lengths[next] = (lengths[previous] as number) + 1;
      next++;
      if (next === 1 << codeSize && codeSize < 12) codeSize++;
    }
    const length = lengths[code] as number;
    if (written + length > pixels) return `LZW data yields more than the frame's ${pixels} indices`;
    let c = code;
    for (let i = written + length - 1; i >= written; i--) {
      out[i] = suffix[c] as number;
      c = prefix[c] as number;
    }
    written += length;
    previous = code;
  }
  if (written !== pixels) return `LZW data yields ${written} of the frame's ${pixels} indices`;
  return out;
}
