/** The outcome of a JPEG or WebP decode: the size, or why the bytes do not decode (cut short or malformed). */
export type RasterDecode =
  | { ok: true; width: number; height: number }
  | { ok: false; truncated: boolean; detail: string };

/** Decodes a JPEG (ITU-T T.81). */
export function decodeJpeg(bytes: Uint8Array): RasterDecode {
  return { ok: false, truncated: false, detail: `JPEG decoding is not implemented (${bytes.length} bytes)` };
}
