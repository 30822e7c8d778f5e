import type { RasterDecode } from './image-jpeg.ts';

/** Decodes a WebP (RFC 9649). */
export function decodeWebp(bytes: Uint8Array): RasterDecode {
  return { ok: false, truncated: false, detail: `WebP decoding is not implemented (${bytes.length} bytes)` };
}
