/**
 * Variant (b) of `npm run bench:pipeline`: the same edit as the worker's `image_editing`
 * pipeline (resize 1200 contain + light + colour + polish, WebP out) written the plain way, as
 * one sharp pipeline per image with sharp's own operations and no thumbnail:
 *
 * - `.rotate()`: auto-orient from EXIF;
 * - `.resize(1200, 1200, { fit: 'contain', background: transparent })`: fit inside the box and
 *   pad to 1200 x 1200 (sharp adds an alpha channel for the transparent padding);
 * - `.normalise()`: "light", a 1 %..99 % luminance stretch (sharp's default percentiles);
 * - `.modulate({ saturation: 1.1 })`: "colour";
 * - `.median(3)`: "polish", denoise: sharp's nearest operation. The worker's polish does more
 *   (it measures the noise and any JPEG blocking and takes them out in JavaScript, see
 *   src/engine/polish/polish.ts), so (a) carries that extra work against this chain;
 * - `.sharpen({ sigma: 0.8, m1: 0, m2: 1.5, x1: 2 })`: the sharpening the worker applies after
 *   `polish` on a downscale (same sigma, flat-area and edge gains);
 * - `.webp({ quality: 85, effort: 4 })`: the worker's WebP settings.
 *
 * sharp runs them in its own fixed order, not the order written: orient, resize, pad, median,
 * modulate, sharpen, then normalise (which holds the whole image for a histogram pass), encode.
 * Padding comes before the filters, so they work on the 1200 x 1200 RGBA canvas, where the
 * worker's pipeline filters the RGB picture alone (1200 x 830 or 1200 x 801 here) and pads it
 * afterwards.
 *
 * `bareEditInside` is a reference beside it, not the target's measure: the same script with
 * `fit: 'inside'` and no padding, so sharp filters only the picture (3 channels), as the worker does.
 */
import sharp from 'sharp';

export const BARE_SIDE = 1200;

export function bareEdit(bytes: Buffer): Promise<Buffer> {
  return filtered(
    sharp(bytes, { failOn: 'error' })
      .rotate()
      .resize(BARE_SIDE, BARE_SIDE, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } }),
  );
}

export function bareEditInside(bytes: Buffer): Promise<Buffer> {
  return filtered(sharp(bytes, { failOn: 'error' }).rotate().resize(BARE_SIDE, BARE_SIDE, { fit: 'inside' }));
}

function filtered(pipeline: sharp.Sharp): Promise<Buffer> {
  return pipeline
    .normalise()
    .modulate({ saturation: 1.1 })
    .median(3)
    .sharpen({ sigma: 0.8, m1: 0, m2: 1.5, x1: 2 })
    .webp({ quality: 85, effort: 4 })
    .toBuffer();
}
