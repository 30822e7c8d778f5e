/** The outcome of a JPEG or WebP decode: the size, or why the bytes do not decode (cut short or malformed). */
export type RasterDecode =
  | { ok: true; width: number; height: number }
  | { ok: false; truncated: boolean; detail: string };

/** Thrown inside the decoders and turned into a RasterDecode at their entry. */
export class RasterError extends Error {
  constructor(
    readonly truncated: boolean,
    detail: string,
  ) {
    super(detail);
  }
}

const corrupt = (detail: string) => new RasterError(false, detail);
const cut = (detail: string) => new RasterError(true, detail);

/** A canonical Huffman table (ITU-T T.81 Annex C): per code length, the largest code and where its values start. */
interface Huffman {
  maxCode: Int32Array;
  offset: Int32Array;
  values: Uint8Array;
}

function huffman(counts: Uint8Array, values: Uint8Array): Huffman {
  const maxCode = new Int32Array(18).fill(-1);
  const offset = new Int32Array(18);
  let code = 0;
  let k = 0;
  for (let length = 1; length <= 16; length++) {
    const n = counts[length - 1] as number;
    offset[length] = k - code;
    code += n;
    k += n;
    // As libjpeg, a table may not use the all-ones code of a length (T.81 C.2 reserves it).
    if (n > 0 && code >= 1 << length)
      throw corrupt(`a Huffman table assigns more codes of length ${length} than exist`);
    maxCode[length] = n > 0 ? code - 1 : -1;
    code <<= 1;
  }
  return { maxCode, offset, values };
}

interface Component {
  id: number;
  h: number;
  v: number;
  tq: number;
  /** Blocks per line and per column, padded to whole MCUs. */
  blocksPerLine: number;
  blocksPerColumn: number;
  /** Blocks that hold image samples (a non-interleaved scan codes only these). */
  usedPerLine: number;
  usedPerColumn: number;
  /** Progressive: one bit per AC coefficient, set once it is nonzero (what the refinement scans depend on). */
  nonzero: Uint32Array | null;
  /** Progressive: the successive-approximation bit each coefficient was last coded to (-1: not yet coded). */
  coefficientBits: Int8Array;
  dcTable?: Huffman;
  acTable?: Huffman;
  pred: number;
}

interface Frame {
  progressive: boolean;
  precision: number;
  width: number;
  height: number;
  components: Component[];
  mcusPerLine: number;
  mcusPerColumn: number;
}

/** Entropy-coded data: bits MSB first, 0xFF00 stuffing removed; a marker inside an MCU means the data is cut short. */
class BitReader {
  private buffer = 0;
  private count = 0;
  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
  ) {}

  bit(): number {
    if (this.count === 0) {
      if (this.pos >= this.bytes.length) throw cut('the file ends inside entropy-coded data');
      const byte = this.bytes[this.pos] as number;
      if (byte === 0xff) {
        const next = this.bytes[this.pos + 1];
        if (next === undefined) throw cut('the file ends inside entropy-coded data');
        if (next !== 0) throw corrupt(`marker 0xFF${next.toString(16)} inside an MCU at byte ${this.pos}`);
        this.pos++;
      }
      this.pos++;
      this.buffer = byte;
      this.count = 8;
    }
    this.count--;
    return (this.buffer >> this.count) & 1;
  }

  bits(n: number): number {
    let value = 0;
    for (let i = 0; i < n; i++) value = (value << 1) | this.bit();
    return value;
  }

  /** A value of n bits in JPEG's sign-magnitude form (T.81 F.2.2.1 EXTEND). */
  extend(n: number): number {
    if (n === 0) return 0;
    const value = this.bits(n);
    return value < 1 << (n - 1) ? value - (1 << n) + 1 : value;
  }

  decode(table: Huffman): number {
    let code = 0;
    for (let length = 1; length <= 16; length++) {
      code = (code << 1) | this.bit();
      if (code <= (table.maxCode[length] as number)) {
        const value = table.values[(table.offset[length] as number) + code];
        if (value === undefined) throw corrupt('a Huffman code points past its table');
        return value;
      }
    }
    throw corrupt('a bit string that is no Huffman code of its table');
  }

  /** Drops the bits left in the current byte (before a restart marker or the end of a scan). */
  align(): void {
    this.count = 0;
  }
}

interface Scan {
  components: Component[];
  ss: number;
  se: number;
  ah: number;
  al: number;
}

/** What one block decoder needs: the reader, the scan and the running end-of-band run. */
interface BlockContext {
  reader: BitReader;
  scan: Scan;
  frame: Frame;
  eobrun: number;
}

const isNonzero = (c: Component, index: number) =>
  (((c.nonzero as Uint32Array)[index >>> 5] as number) >>> (index & 31)) & 1;
const setNonzero = (c: Component, index: number) => {
  const words = c.nonzero as Uint32Array;
  words[index >>> 5] = (words[index >>> 5] as number) | (1 << (index & 31));
};

function decodeBaselineBlock(ctx: BlockContext, c: Component): void {
  const { reader } = ctx;
  const dc = reader.decode(c.dcTable as Huffman);
  if (dc > ctx.frame.precision + 3) throw corrupt(`DC difference category ${dc}`);
  reader.extend(dc);
  for (let k = 1; k < 64; k++) {
    const rs = reader.decode(c.acTable as Huffman);
    const [r, s] = [rs >> 4, rs & 15];
    if (s === 0) {
      if (r < 15) return;
      k += 15;
      continue;
    }
    k += r;
    if (k > 63) throw corrupt('AC coefficients run past the end of a block');
    reader.extend(s);
  }
}

function decodeDcFirst(ctx: BlockContext, c: Component): void {
  const dc = ctx.reader.decode(c.dcTable as Huffman);
  if (dc > ctx.frame.precision + 3) throw corrupt(`DC difference category ${dc}`);
  ctx.reader.extend(dc);
}

function decodeAcFirst(ctx: BlockContext, c: Component, block: number): void {
  if (ctx.eobrun > 0) {
    ctx.eobrun--;
    return;
  }
  const { reader, scan } = ctx;
  for (let k = scan.ss; k <= scan.se; k++) {
    const rs = reader.decode(c.acTable as Huffman);
    const [r, s] = [rs >> 4, rs & 15];
    if (s === 0) {
      if (r < 15) {
        ctx.eobrun = (1 << r) - 1 + reader.bits(r);
        return;
      }
      k += 15;
      continue;
    }
    k += r;
    if (k > scan.se) throw corrupt('AC coefficients run past the end of the spectral band');
    reader.extend(s);
    setNonzero(c, block * 64 + k);
  }
}

/** T.81 G.1.2.3: correction bits for the nonzero coefficients, new coefficients of magnitude one. */
function decodeAcRefine(ctx: BlockContext, c: Component, block: number): void {
  const { reader, scan } = ctx;
  let k = scan.ss;
  if (ctx.eobrun === 0) {
    for (; k <= scan.se; k++) {
      const rs = reader.decode(c.acTable as Huffman);
      let r = rs >> 4;
      const s = rs & 15;
      if (s !== 0) {
        if (s !== 1) throw corrupt(`a refinement scan codes a coefficient of size ${s}`);
        reader.bit();
      } else if (r !== 15) {
        ctx.eobrun = (1 << r) + (r > 0 ? reader.bits(r) : 0);
        break;
      }
      for (; k <= scan.se; k++) {
        if (isNonzero(c, block * 64 + k)) reader.bit();
        else if (--r < 0) break;
      }
      if (s !== 0) {
        if (k > scan.se) throw corrupt('a new coefficient past the end of the spectral band');
        setNonzero(c, block * 64 + k);
      }
    }
  }
  if (ctx.eobrun > 0) {
    for (; k <= scan.se; k++) if (isNonzero(c, block * 64 + k)) reader.bit();
    ctx.eobrun--;
  }
}

function decodeBlock(ctx: BlockContext, c: Component, block: number): void {
  const { scan, frame } = ctx;
  if (!frame.progressive) decodeBaselineBlock(ctx, c);
  else if (scan.ss === 0 && scan.ah === 0) decodeDcFirst(ctx, c);
  else if (scan.ss === 0) ctx.reader.bit();
  else if (scan.ah === 0) decodeAcFirst(ctx, c, block);
  else decodeAcRefine(ctx, c, block);
}

/** Expects restart marker RST(n mod 8) at the reader's position and steps past it. */
function restart(bytes: Uint8Array, reader: BitReader, n: number): void {
  reader.align();
  let pos = reader.pos;
  if (bytes[pos] !== 0xff) throw corrupt(`no restart marker at byte ${pos}`);
  while (bytes[pos] === 0xff) pos++;
  if (pos >= bytes.length) throw cut('the file ends at a restart marker');
  if (bytes[pos] !== 0xd0 + (n % 8)) throw corrupt(`expected RST${n % 8} at byte ${pos}`);
  reader.pos = pos + 1;
}

/** Decodes one scan's entropy-coded data from `start`; returns where the marker after it begins. */
function decodeScan(bytes: Uint8Array, start: number, frame: Frame, scan: Scan, restartInterval: number): number {
  const reader = new BitReader(bytes, start);
  const ctx: BlockContext = { reader, scan, frame, eobrun: 0 };
  const single = scan.components.length === 1 ? (scan.components[0] as Component) : null;
  const mcusPerLine = single ? single.usedPerLine : frame.mcusPerLine;
  const total = mcusPerLine * (single ? single.usedPerColumn : frame.mcusPerColumn);
  for (const c of scan.components) c.pred = 0;
  for (let mcu = 0; mcu < total; mcu++) {
    if (restartInterval > 0 && mcu > 0 && mcu % restartInterval === 0) {
      restart(bytes, reader, mcu / restartInterval - 1);
      ctx.eobrun = 0;
    }
    const [row, col] = [Math.floor(mcu / mcusPerLine), mcu % mcusPerLine];
    if (single) {
      decodeBlock(ctx, single, row * single.blocksPerLine + col);
      continue;
    }
    for (const c of scan.components) {
      for (let y = 0; y < c.v; y++) {
        for (let x = 0; x < c.h; x++) decodeBlock(ctx, c, (row * c.v + y) * c.blocksPerLine + col * c.h + x);
      }
    }
  }
  reader.align();
  return reader.pos;
}

/** Big-endian 16-bit value at `at`. */
const u16 = (bytes: Uint8Array, at: number) => ((bytes[at] as number) << 8) | (bytes[at + 1] as number);

/** Reads a SOF0 (baseline), SOF1 (extended) or SOF2 (progressive) frame header. */
function readFrame(data: Uint8Array, marker: number, maxPixels: number): Frame {
  const progressive = marker === 0xc2;
  if (data.length < 6) throw corrupt('a frame header shorter than 6 bytes');
  const [precision, height, width, count] = [data[0] as number, u16(data, 1), u16(data, 3), data[5] as number];
  if (precision !== 8 && (marker === 0xc0 || precision !== 12)) throw corrupt(`sample precision ${precision}`);
  if (height === 0) throw corrupt('a frame of height 0 (DNL) is not accepted');
  if (width === 0) throw corrupt('a frame of width 0');
  if (width * height > maxPixels) throw corrupt(`${width}×${height} exceeds the ${maxPixels}-pixel decode cap`);
  if (count < 1 || count > 4 || data.length !== 6 + 3 * count) {
    throw corrupt(`a frame header of ${data.length} bytes with ${count} components`);
  }
  const raw = Array.from({ length: count }, (_, i) => ({
    id: data[6 + 3 * i] as number,
    h: (data[7 + 3 * i] as number) >> 4,
    v: (data[7 + 3 * i] as number) & 15,
    tq: data[8 + 3 * i] as number,
  }));
  if (new Set(raw.map((c) => c.id)).size !== count) throw corrupt('two frame components share an id');
  if (raw.some((c) => c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4 || c.tq > 3)) {
    throw corrupt('a component sampling factor outside 1-4 or quantization table outside 0-3');
  }
  const hMax = Math.max(...raw.map((c) => c.h));
  const vMax = Math.max(...raw.map((c) => c.v));
  const mcusPerLine = Math.ceil(width / (8 * hMax));
  const mcusPerColumn = Math.ceil(height / (8 * vMax));
  const components = raw.map((c): Component => {
    const blocksPerLine = mcusPerLine * c.h;
    const blocksPerColumn = mcusPerColumn * c.v;
    return {
      ...c,
      blocksPerLine,
      blocksPerColumn,
      usedPerLine: Math.ceil(Math.ceil((width * c.h) / hMax) / 8),
      usedPerColumn: Math.ceil(Math.ceil((height * c.v) / vMax) / 8),
      nonzero: progressive ? new Uint32Array(blocksPerLine * blocksPerColumn * 2) : null,
      coefficientBits: new Int8Array(64).fill(-1),
      pred: 0,
    };
  });
  return { progressive, precision, width, height, components, mcusPerLine, mcusPerColumn };
}

/** The tables the segments before a scan define. */
interface Tables {
  dc: Array<Huffman | undefined>;
  ac: Array<Huffman | undefined>;
  quant: boolean[];
  restartInterval: number;
}

function readHuffmanTables(data: Uint8Array, tables: Tables): void {
  let at = 0;
  while (at < data.length) {
    if (at + 17 > data.length) throw corrupt('a Huffman table header runs past its segment');
    const [tc, th] = [(data[at] as number) >> 4, (data[at] as number) & 15];
    if (tc > 1 || th > 3) throw corrupt(`Huffman table class ${tc} id ${th}`);
    const counts = data.subarray(at + 1, at + 17);
    const total = counts.reduce((sum, n) => sum + n, 0);
    if (total > 256 || at + 17 + total > data.length) throw corrupt(`a Huffman table of ${total} values`);
    const values = data.slice(at + 17, at + 17 + total);
    if (tc === 0 && values.some((v) => v > 15)) throw corrupt('a DC Huffman table with a category above 15');
    (tc === 0 ? tables.dc : tables.ac)[th] = huffman(counts, values);
    at += 17 + total;
  }
}

function readQuantTables(data: Uint8Array, tables: Tables): void {
  let at = 0;
  while (at < data.length) {
    const [pq, tq] = [(data[at] as number) >> 4, (data[at] as number) & 15];
    if (pq > 1 || tq > 3) throw corrupt(`quantization table precision ${pq} id ${tq}`);
    const size = 1 + 64 * (pq + 1);
    if (at + size > data.length) throw corrupt('a quantization table runs past its segment');
    tables.quant[tq] = true;
    at += size;
  }
}

/** Reads a scan header and binds each of its components to the Huffman tables the scan needs. */
function readScan(data: Uint8Array, frame: Frame, tables: Tables): Scan {
  const count = data[0] ?? 0;
  if (count < 1 || count > 4 || data.length !== 4 + 2 * count) throw corrupt(`a scan header with ${count} components`);
  const components: Component[] = [];
  for (let i = 0; i < count; i++) {
    const c = frame.components.find((f) => f.id === data[1 + 2 * i]);
    if (!c || components.includes(c)) throw corrupt('a scan names an unknown or repeated component');
    if (!tables.quant[c.tq]) throw corrupt(`component ${c.id} uses undefined quantization table ${c.tq}`);
    c.dcTable = tables.dc[(data[2 + 2 * i] as number) >> 4];
    c.acTable = tables.ac[(data[2 + 2 * i] as number) & 15];
    components.push(c);
  }
  const at = 1 + 2 * count;
  const scan = {
    components,
    ss: data[at] as number,
    se: data[at + 1] as number,
    ah: (data[at + 2] as number) >> 4,
    al: (data[at + 2] as number) & 15,
  };
  const { ss, se, ah, al } = scan;
  const valid = frame.progressive
    ? (ss === 0 ? se === 0 : ss <= se && se <= 63 && count === 1) && ah <= 13 && al <= 13
    : ss === 0 && se === 63 && ah === 0 && al === 0;
  if (!valid) throw corrupt(`scan parameters Ss ${ss}, Se ${se}, Ah ${ah}, Al ${al}`);
  if (count > 1 && components.reduce((sum, c) => sum + c.h * c.v, 0) > 10)
    throw corrupt('an MCU of more than 10 blocks');
  if (frame.progressive) checkProgression(scan);
  const needsDc = !frame.progressive || (ss === 0 && ah === 0);
  const needsAc = !frame.progressive || ss > 0;
  if (components.some((c) => (needsDc && !c.dcTable) || (needsAc && !c.acTable))) {
    throw corrupt('a scan uses an undefined Huffman table');
  }
  return scan;
}

/**
 * T.81 G.1.1.1: a progressive scan codes DC before AC, and each refinement refines by one bit what the scans before
 * coded (as libjpeg checks it).
 */
function checkProgression(scan: Scan): void {
  const { ss, se, ah, al } = scan;
  if (ah !== 0 && al !== ah - 1) throw corrupt(`a refinement scan from bit ${ah} to bit ${al}`);
  for (const c of scan.components) {
    if (ss > 0 && c.coefficientBits[0] === -1) throw corrupt(`an AC scan of component ${c.id} before its DC scan`);
    for (let k = ss; k <= se; k++) {
      if (ah !== Math.max(c.coefficientBits[k] as number, 0) || (ah === 0 && c.coefficientBits[k] !== -1)) {
        throw corrupt(`scan Ss ${ss}, Se ${se}, Ah ${ah}, Al ${al} breaks the progression of component ${c.id}`);
      }
      c.coefficientBits[k] = al;
    }
  }
}

/** Coding processes this decoder does not implement: lossless, hierarchical and arithmetic-coded JPEG. */
const unsupportedFrames = new Set([0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** One marker segment: its marker, its data and where the next one starts. */
function nextSegment(bytes: Uint8Array, at: number): { marker: number; data: Uint8Array; next: number } {
  if (at >= bytes.length) throw cut('the file ends before the EOI marker');
  if (bytes[at] !== 0xff) throw corrupt(`no marker at byte ${at}`);
  let pos = at;
  while (bytes[pos] === 0xff) pos++;
  if (pos >= bytes.length) throw cut('the file ends inside a marker');
  const marker = bytes[pos++] as number;
  if (marker === 0xd9) return { marker, data: bytes.subarray(pos, pos), next: pos };
  if (marker === 0x00 || marker === 0x01 || marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
    throw corrupt(`marker 0xFF${marker.toString(16)} out of place at byte ${pos - 1}`);
  }
  if (pos + 2 > bytes.length) throw cut('the file ends inside a segment length');
  const length = u16(bytes, pos);
  if (length < 2) throw corrupt(`a segment length of ${length}`);
  if (pos + length > bytes.length) throw cut(`segment 0xFF${marker.toString(16)} runs past the end`);
  return { marker, data: bytes.subarray(pos + 2, pos + length), next: pos + length };
}

/**
 * Decodes a JPEG (ITU-T T.81, JFIF or Exif): the marker segments, the tables, a baseline, extended or progressive
 * Huffman-coded frame, and every scan's entropy-coded data block by block (with restart markers), up to an EOI with
 * nothing after it. The decoded coefficients are not transformed into pixels: the inverse DCT and colour conversion
 * cannot fail, so the bytes decode exactly when the entropy-coded data does. Lossless, hierarchical and
 * arithmetic-coded JPEG are refused. Spec: `$defs.Image` of spec/schemas/custom-launch-create-request.v3.schema.json.
 */
export function decodeJpeg(bytes: Uint8Array, maxPixels: number): RasterDecode {
  try {
    if (bytes[0] !== 0xff || bytes[1] !== 0xd8) throw corrupt('no SOI marker');
    const tables: Tables = { dc: [], ac: [], quant: [], restartInterval: 0 };
    let frame: Frame | undefined;
    let scans = 0;
    for (let at = 2; ; ) {
      const { marker, data, next } = nextSegment(bytes, at);
      at = next;
      if (marker === 0xd9) {
        if (!frame || scans === 0) throw corrupt('EOI before any scan');
        if (at !== bytes.length) throw corrupt(`${bytes.length - at} bytes follow EOI`);
        return { ok: true, width: frame.width, height: frame.height };
      }
      if (marker === 0xc4) readHuffmanTables(data, tables);
      else if (marker === 0xdb) readQuantTables(data, tables);
      else if (marker === 0xdd) {
        if (data.length !== 2) throw corrupt('a DRI segment that is not 2 bytes');
        tables.restartInterval = u16(data, 0);
      } else if (marker === 0xc0 || marker === 0xc1 || marker === 0xc2) {
        if (frame) throw corrupt('a second frame header');
        frame = readFrame(data, marker, maxPixels);
      } else if (unsupportedFrames.has(marker)) {
        throw corrupt(`SOF${marker - 0xc0}: lossless, hierarchical or arithmetic-coded JPEG is not decoded`);
      } else if (marker === 0xda) {
        if (!frame) throw corrupt('a scan before the frame header');
        at = decodeScan(bytes, at, frame, readScan(data, frame, tables), tables.restartInterval);
        scans++;
      } else if (!((marker >= 0xe0 && marker <= 0xef) || marker === 0xfe)) {
        throw corrupt(`unexpected marker 0xFF${marker.toString(16)}`);
      }
    }
  } catch (err) {
    if (err instanceof RasterError) return { ok: false, truncated: err.truncated, detail: err.message };
    throw err;
  }
}
