import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ImageFindingCode, inspectBaseLayerImage, inspectImage } from '../../src/core/image.ts';
import { decodeJpeg } from '../../src/core/image-jpeg.ts';
import { decodeWebp } from '../../src/core/image-webp.ts';
import { tinyPng } from '../support/base-layer-request.ts';

// The JPEG fixtures were written by libjpeg-turbo's cjpeg and the WebP fixtures by libwebp's cwebp from one 19×13
// RGB(A) gradient (and a 61×47 noise image for the progressive files); djpeg and dwebp decode each of them.
const fixture = (name: string) => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));

/** The classic 1×1 GIF89a (one transparent pixel). */
const tinyGif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

const jpegs = [
  'baseline-420.jpg',
  'baseline-444.jpg',
  'grayscale.jpg',
  'restart.jpg',
  'progressive.jpg',
  'progressive-noise.jpg',
  'progressive-restart.jpg',
];
const webps = ['lossy.webp', 'lossy-alpha.webp', 'lossless.webp'];

const patched = (bytes: Buffer, at: number, values: number[]) => {
  const copy = Buffer.from(bytes);
  values.forEach((v, i) => {
    copy[at + i] = v;
  });
  return copy;
};

const baseline = fixture('baseline-420.jpg');
const lossless = fixture('lossless.webp');
const lossyAlpha = fixture('lossy-alpha.webp');

type Want = null | ImageFindingCode;

const rows: Array<[name: string, bytes: Buffer, declared: string, want: Want]> = [
  ...jpegs.map((f): [string, Buffer, string, Want] => [`JPEG ${f}`, fixture(f), 'image/jpeg', null]),
  ...webps.map((f): [string, Buffer, string, Want] => [`WebP ${f}`, fixture(f), 'image/webp', null]),
  ['a PNG', tinyPng, 'image/png', null],
  ['a single-frame GIF', tinyGif, 'image/gif', null],
  ['a PNG declared as JPEG', tinyPng, 'image/jpeg', 'IMAGE_TYPE_MISMATCH'],
  ['a JPEG declared as WebP', baseline, 'image/webp', 'IMAGE_TYPE_MISMATCH'],
  ['a WebP declared as PNG', lossless, 'image/png', 'IMAGE_TYPE_MISMATCH'],
  ['bytes of no image type', Buffer.from('not an image at all'), 'image/png', 'IMAGE_UNRECOGNIZED'],
  ['an arithmetic-coded JPEG', fixture('arithmetic.jpg'), 'image/jpeg', 'IMAGE_CORRUPT'],
  ['a JPEG with a byte after EOI', Buffer.concat([baseline, Buffer.from([0])]), 'image/jpeg', 'IMAGE_CORRUPT'],
  ['a JPEG signature and nothing else', baseline.subarray(0, 3), 'image/jpeg', 'IMAGE_TRUNCATED'],
  ['a JPEG cut before EOI', baseline.subarray(0, baseline.length - 2), 'image/jpeg', 'IMAGE_TRUNCATED'],
  [
    'a JPEG whose entropy data is cut short',
    Buffer.concat([baseline.subarray(0, baseline.length - 40), baseline.subarray(baseline.length - 2)]),
    'image/jpeg',
    'IMAGE_CORRUPT',
  ],
  ['a RIFF WEBP header and nothing else', lossless.subarray(0, 12), 'image/webp', 'IMAGE_TRUNCATED'],
  ['a WebP cut inside its image chunk', lossless.subarray(0, lossless.length - 1), 'image/webp', 'IMAGE_TRUNCATED'],
  [
    'a WebP with a byte after the RIFF form',
    Buffer.concat([lossless, Buffer.from([0])]),
    'image/webp',
    'IMAGE_CORRUPT',
  ],
  [
    'a VP8L header of version 1',
    patched(lossless, 24, [(lossless[24] as number) | 0x20]),
    'image/webp',
    'IMAGE_CORRUPT',
  ],
  [
    'a VP8X file flagged animated',
    patched(lossyAlpha, 20, [(lossyAlpha[20] as number) | 0x02]),
    'image/webp',
    'IMAGE_CORRUPT',
  ],
  ['a VP8X canvas wider than its image', patched(lossyAlpha, 24, [0x13]), 'image/webp', 'IMAGE_CORRUPT'],
];

describe('inspectBaseLayerImage (PNG, JPEG, WebP or single-frame GIF, decoded as declared)', () => {
  it.each(rows)('%s', (_name, bytes, declared, want) => {
    const result = inspectBaseLayerImage(bytes, declared);
    if (want === null) expect(result).toMatchObject({ ok: true, mediaType: declared });
    else expect(result).toMatchObject({ ok: false, code: want });
  });

  it('gives the sizes of the fixtures', () => {
    expect(inspectBaseLayerImage(baseline, 'image/jpeg')).toMatchObject({ width: 19, height: 13, frames: 1 });
    expect(inspectBaseLayerImage(fixture('progressive-noise.jpg'), 'image/jpeg')).toMatchObject({
      width: 61,
      height: 47,
    });
    for (const f of webps)
      expect(inspectBaseLayerImage(fixture(f), 'image/webp')).toMatchObject({ width: 19, height: 13 });
  });

  it.each([...jpegs, ...webps])('refuses every proper prefix of %s', (name) => {
    const bytes = fixture(name);
    const declared = name.endsWith('.jpg') ? 'image/jpeg' : 'image/webp';
    for (let n = 0; n < bytes.length; n++) expect(inspectBaseLayerImage(bytes.subarray(0, n), declared).ok).toBe(false);
  });

  it('holds the pixel cap on both sides of it', () => {
    expect(decodeJpeg(baseline, 19 * 13)).toMatchObject({ ok: true });
    expect(decodeJpeg(baseline, 19 * 13 - 1)).toMatchObject({ ok: false, detail: expect.stringContaining('cap') });
    expect(decodeJpeg(fixture('progressive.jpg'), 19 * 13 - 1)).toMatchObject({ ok: false });
    expect(decodeWebp(lossless, 19 * 13)).toMatchObject({ ok: true });
    expect(decodeWebp(lossless, 19 * 13 - 1)).toMatchObject({ ok: false, detail: expect.stringContaining('cap') });
  });

  it('leaves the V4 check as it was: JPEG and WebP are refused there', () => {
    expect(inspectImage(baseline, 'image/jpeg')).toMatchObject({ ok: false, code: 'IMAGE_JPEG_UNSUPPORTED' });
    expect(inspectImage(lossless, 'image/webp')).toMatchObject({ ok: false, code: 'IMAGE_WEBP_UNSUPPORTED' });
  });

  it('never throws for random bytes behind a JPEG or WebP start, or for fixtures with a byte overwritten', () => {
    const starts = [baseline.subarray(0, 2), lossless.subarray(0, 12), baseline.subarray(0, 200)];
    fc.assert(
      fc.property(fc.constantFrom(...starts), fc.uint8Array({ maxLength: 600 }), (start, tail) => {
        const bytes = Buffer.concat([start, tail]);
        for (const declared of ['image/jpeg', 'image/webp'])
          expect(() => inspectBaseLayerImage(bytes, declared)).not.toThrow();
      }),
    );
    const files = [...jpegs, ...webps].map(
      (f) => [fixture(f), f.endsWith('.jpg') ? 'image/jpeg' : 'image/webp'] as const,
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...files),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        ([bytes, declared], at, xor) => {
          const copy = Buffer.from(bytes);
          copy[at % copy.length] = (copy[at % copy.length] as number) ^ xor;
          expect(() => inspectBaseLayerImage(copy, declared)).not.toThrow();
        },
      ),
    );
  });
});
