import type { RawImage } from '../raw-image';
import {
  CLEARLY_OPAQUE,
  CLEARLY_TRANSPARENT,
  existingCutout,
  hasMeaningfulTransparency,
  transparencyShares,
} from './existing-alpha';

/** A 100 x 100 mask (10,000 pixels: 100 are 1 %) filled with `rest` but for `counts` pixels of each value. */
function mask(rest: number, counts: Array<[value: number, count: number]>) {
  const data = new Uint8Array(10_000).fill(rest);
  let at = 0;
  for (const [value, count] of counts) {
    data.fill(value, at, at + count);
    at += count;
  }
  return { data, width: 100, height: 100 };
}

/** An RGBA image of one colour with the mask as its alpha. */
function rgbaOf(alpha: { data: Uint8Array; width: number; height: number }, rgb = [200, 40, 60]): RawImage {
  const data = Buffer.alloc(alpha.data.length * 4);
  alpha.data.forEach((a, i) => data.set([...rgb, a], i * 4));
  return { data, width: alpha.width, height: alpha.height, channels: 4 };
}

describe('existing alpha', () => {
  it('counts clearly transparent (<= 16) and clearly opaque (>= 240) pixels, not the soft ones between', () => {
    expect(CLEARLY_TRANSPARENT).toBe(16);
    expect(CLEARLY_OPAQUE).toBe(240);
    const shares = transparencyShares(
      mask(128, [
        [0, 300],
        [16, 200],
        [17, 1000],
        [239, 1000],
        [240, 400],
        [255, 100],
      ]),
    );
    expect(shares).toEqual({ transparent: 0.05, opaque: 0.05 });
  });

  it('is meaningful from 1 % clearly transparent and 1 % clearly opaque, not below', () => {
    expect(
      hasMeaningfulTransparency(
        mask(128, [
          [0, 100],
          [255, 100],
        ]),
      ),
    ).toBe(true);
    expect(
      hasMeaningfulTransparency(
        mask(128, [
          [0, 99],
          [255, 100],
        ]),
      ),
    ).toBe(false);
    expect(
      hasMeaningfulTransparency(
        mask(128, [
          [0, 100],
          [255, 99],
        ]),
      ),
    ).toBe(false);
  });

  it('refuses an alpha that is 255 everywhere, nearly empty, or uniformly translucent', () => {
    expect(hasMeaningfulTransparency(mask(255, []))).toBe(false);
    // A few stray transparent pixels in an opaque file.
    expect(hasMeaningfulTransparency(mask(255, [[0, 50]]))).toBe(false);
    // A nearly empty canvas: 50 opaque pixels in 10,000.
    expect(hasMeaningfulTransparency(mask(0, [[255, 50]]))).toBe(false);
    expect(hasMeaningfulTransparency(mask(128, []))).toBe(false);
  });

  it('accepts a disc cut out with a soft edge several pixels wide', () => {
    const data = new Uint8Array(10_000);
    for (let y = 0; y < 100; y++) {
      for (let x = 0; x < 100; x++) {
        const distance = Math.hypot(x + 0.5 - 50, y + 0.5 - 50) - 30;
        data[y * 100 + x] = Math.round(255 * Math.max(0, Math.min(1, 0.5 - distance / 6)));
      }
    }
    expect(hasMeaningfulTransparency({ data, width: 100, height: 100 })).toBe(true);
  });

  it('gives the alpha unchanged as the mask, the colours as they are, and white where fully transparent', () => {
    const alpha = mask(0, [
      [255, 200],
      [128, 100],
    ]);
    const cutout = existingCutout(rgbaOf(alpha));
    expect(cutout).not.toBeNull();
    expect(Array.from(cutout!.mask.data)).toEqual(Array.from(alpha.data));
    const pixel = (i: number) => Array.from(cutout!.photo.data.subarray(i * 3, i * 3 + 3));
    expect(cutout!.photo.channels).toBe(3);
    expect(pixel(0)).toEqual([200, 40, 60]);
    // A soft pixel keeps its straight colour.
    expect(pixel(250)).toEqual([200, 40, 60]);
    expect(pixel(9999)).toEqual([255, 255, 255]);
  });

  it('is null for a source without an alpha channel or without meaningful transparency', () => {
    const rgb: RawImage = { data: Buffer.alloc(30_000, 90), width: 100, height: 100, channels: 3 };
    expect(existingCutout(rgb)).toBeNull();
    expect(existingCutout(rgbaOf(mask(255, [])))).toBeNull();
  });
});
