import { type RasterDecode, RasterError } from './image-jpeg.ts';

const corrupt = (detail: string) => new RasterError(false, detail);
const cut = (detail: string) => new RasterError(true, detail);

const le16 = (b: Uint8Array, at: number) => (b[at] as number) | ((b[at + 1] as number) << 8);
const le24 = (b: Uint8Array, at: number) => le16(b, at) | ((b[at + 2] as number) << 16);
const le32 = (b: Uint8Array, at: number) => (le24(b, at) | ((b[at + 3] as number) << 24)) >>> 0;
const fourcc = (b: Uint8Array, at: number) => String.fromCharCode(...b.subarray(at, at + 4));

interface Chunk {
  id: string;
  data: Uint8Array;
}

/** The RIFF chunks after the WEBP form type; the RIFF size must cover the file exactly (odd chunks padded). */
function riffChunks(bytes: Uint8Array): Chunk[] {
  if (bytes.length < 12) throw cut('the file ends inside the RIFF header');
  if (fourcc(bytes, 0) !== 'RIFF' || fourcc(bytes, 8) !== 'WEBP') throw corrupt('no RIFF WEBP header');
  const riffSize = le32(bytes, 4);
  if (riffSize + 8 > bytes.length) throw cut(`the RIFF size ${riffSize} runs past the end`);
  if (riffSize + 8 < bytes.length) throw corrupt(`${bytes.length - riffSize - 8} bytes follow the RIFF form`);
  const chunks: Chunk[] = [];
  for (let at = 12; at < bytes.length; ) {
    if (at + 8 > bytes.length) throw cut(`a chunk header at byte ${at} runs past the end`);
    const size = le32(bytes, at + 4);
    const end = at + 8 + size;
    if (end > bytes.length) throw cut(`chunk ${fourcc(bytes, at)} runs past the end`);
    chunks.push({ id: fourcc(bytes, at), data: bytes.subarray(at + 8, end) });
    at = end + (size & 1);
    if (at > bytes.length) throw cut(`chunk ${fourcc(bytes, end - size - 8)} lacks its padding byte`);
  }
  return chunks;
}

/** The VP8 boolean entropy decoder (RFC 6386 section 7), failing when it reads past its partition. */
class BoolDecoder {
  private value: number;
  private range = 255;
  private bitCount = 0;
  private pos = 2;
  constructor(private readonly data: Uint8Array) {
    if (data.length < 2) throw corrupt('the first partition is shorter than 2 bytes');
    this.value = ((data[0] as number) << 8) | (data[1] as number);
  }

  bool(probability: number): number {
    const split = 1 + (((this.range - 1) * probability) >> 8);
    const bigSplit = split << 8;
    let bit = 0;
    if (this.value >= bigSplit) {
      bit = 1;
      this.range -= split;
      this.value -= bigSplit;
    } else {
      this.range = split;
    }
    while (this.range < 128) {
      this.value <<= 1;
      this.range <<= 1;
      if (++this.bitCount === 8) {
        this.bitCount = 0;
        // RFC 6386 lets the decoder shift in zeros for at most the two bytes it preloaded.
        if (this.pos >= this.data.length + 2) throw corrupt('the frame header runs past the first partition');
        this.value |= this.data[this.pos++] ?? 0;
      }
    }
    return bit;
  }

  literal(n: number): number {
    let value = 0;
    for (let i = 0; i < n; i++) value = (value << 1) | this.bool(128);
    return value;
  }

  /** An optional signed field: a flag, then n magnitude bits and a sign bit. */
  optionalSigned(n: number): void {
    if (this.literal(1)) this.literal(n + 1);
  }
}

/** RFC 6386 section 9.2-9.6 and 19.2: the key frame header up to the DCT partition count. */
function vp8FrameHeader(decoder: BoolDecoder): number {
  decoder.literal(2); // colour space, clamping type
  if (decoder.literal(1)) {
    const updateMap = decoder.literal(1);
    if (decoder.literal(1)) {
      decoder.literal(1);
      for (let i = 0; i < 4; i++) decoder.optionalSigned(7);
      for (let i = 0; i < 4; i++) decoder.optionalSigned(6);
    }
    if (updateMap) for (let i = 0; i < 3; i++) if (decoder.literal(1)) decoder.literal(8);
  }
  decoder.literal(1 + 6 + 3); // filter type, loop filter level, sharpness
  if (decoder.literal(1) && decoder.literal(1)) {
    for (let i = 0; i < 8; i++) decoder.optionalSigned(6);
  }
  return 1 << decoder.literal(2);
}

/**
 * A VP8 key frame (RFC 6386): the frame tag, start code and size, the frame header in the first partition, and the
 * DCT partition table, whose partitions must fit the chunk.
 */
function vp8Size(data: Uint8Array): { width: number; height: number } {
  if (data.length < 10) throw cut('the VP8 chunk ends inside its frame header');
  const tag = le24(data, 0);
  if (tag & 1) throw corrupt('the VP8 frame is not a key frame');
  if (((tag >> 1) & 7) > 3) throw corrupt(`VP8 version ${(tag >> 1) & 7}`);
  if (!((tag >> 4) & 1)) throw corrupt('the VP8 frame is not shown');
  const firstPartition = tag >>> 5;
  if (data[3] !== 0x9d || data[4] !== 0x01 || data[5] !== 0x2a) throw corrupt('no VP8 start code');
  const [width, height] = [le16(data, 6) & 0x3fff, le16(data, 8) & 0x3fff];
  if (10 + firstPartition > data.length) throw cut('the first VP8 partition runs past the chunk');
  const partitions = vp8FrameHeader(new BoolDecoder(data.subarray(10, 10 + firstPartition)));
  const table = 10 + firstPartition;
  let start = table + 3 * (partitions - 1);
  if (start > data.length) throw cut('the VP8 partition table runs past the chunk');
  for (let i = 0; i < partitions - 1; i++) start += le24(data, table + 3 * i);
  if (start > data.length) throw cut('the VP8 DCT partitions run past the chunk');
  return { width, height };
}

/** A VP8L (lossless) bitstream header: signature 0x2f, 14-bit sizes, version 0. */
function vp8lSize(data: Uint8Array): { width: number; height: number } {
  if (data.length < 5) throw cut('the VP8L chunk ends inside its header');
  if (data[0] !== 0x2f) throw corrupt('no VP8L signature');
  const bits = le32(data, 1);
  if (bits >>> 29 !== 0) throw corrupt(`VP8L version ${bits >>> 29}`);
  return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
}

/** The extended format's chunks: VP8X, optional ICCP, optional ALPH, one VP8 or VP8L; animation is refused. */
function extendedSize(chunks: Chunk[]): { width: number; height: number } {
  const header = chunks[0] as Chunk;
  if (header.data.length < 10) throw corrupt('a VP8X chunk shorter than 10 bytes');
  const flags = header.data[0] as number;
  if (flags & 0x02) throw corrupt('an animated WebP is not decoded; use a single image');
  const canvas = { width: le24(header.data, 4) + 1, height: le24(header.data, 7) + 1 };
  let at = 1;
  if (chunks[at]?.id === 'ICCP') at++;
  const alpha = chunks[at]?.id === 'ALPH' ? chunks[at++] : undefined;
  const image = chunks[at];
  if (!image || (image.id !== 'VP8 ' && image.id !== 'VP8L')) throw corrupt('the VP8X file has no image chunk');
  const size = image.id === 'VP8 ' ? vp8Size(image.data) : vp8lSize(image.data);
  if (size.width !== canvas.width || size.height !== canvas.height) {
    throw corrupt(`the canvas is ${canvas.width}×${canvas.height} but the image ${size.width}×${size.height}`);
  }
  if (alpha) {
    const compression = (alpha.data[0] ?? 0xff) & 3;
    if (alpha.data.length < 1 || compression > 1 || (alpha.data[0] as number) >> 6 !== 0) {
      throw corrupt('an ALPH chunk with an unknown header');
    }
    if (compression === 0 && alpha.data.length !== 1 + size.width * size.height) {
      throw corrupt('an uncompressed ALPH chunk whose size is not the pixel count');
    }
  }
  return size;
}

/**
 * Checks a WebP (RFC 9649) down to its bitstream headers: the RIFF container covers the file exactly, the chunk
 * layout is a simple lossy (VP8), simple lossless (VP8L) or extended (VP8X) file, a VP8 key frame's frame header
 * decodes with the boolean decoder and its partitions fit, a VP8L header is version 0, and the sizes agree. The
 * macroblock and entropy-coded pixel data are not decoded. Animated WebP is refused. Spec: `$defs.Image` of
 * spec/schemas/custom-launch-create-request.v3.schema.json.
 */
export function decodeWebp(bytes: Uint8Array, maxPixels: number): RasterDecode {
  try {
    const chunks = riffChunks(bytes);
    const first = chunks[0];
    if (!first) throw cut('the WebP file has no chunk');
    let size: { width: number; height: number };
    if (first.id === 'VP8 ') size = vp8Size(first.data);
    else if (first.id === 'VP8L') size = vp8lSize(first.data);
    else if (first.id === 'VP8X') size = extendedSize(chunks);
    else throw corrupt(`the first chunk is ${JSON.stringify(first.id)}, not VP8, VP8L or VP8X`);
    if (size.width === 0 || size.height === 0) throw corrupt(`an image of ${size.width}×${size.height}`);
    if (size.width * size.height > maxPixels) {
      throw corrupt(`${size.width}×${size.height} exceeds the ${maxPixels}-pixel decode cap`);
    }
    return { ok: true, ...size };
  } catch (err) {
    if (err instanceof RasterError) return { ok: false, truncated: err.truncated, detail: err.message };
    throw err;
  }
}
