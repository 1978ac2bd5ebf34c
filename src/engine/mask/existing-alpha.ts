import type { RawImage } from '../raw-image';
import type { AlphaMask } from './alpha-mask';

/**
 * A source that is already cut out (`existing_alpha` `use`) is its own mask. It must have
 * meaningful transparency: at least MEANINGFUL_SHARE of its pixels clearly transparent (alpha at
 * most CLEARLY_TRANSPARENT) and at least MEANINGFUL_SHARE clearly opaque (alpha at least
 * CLEARLY_OPAQUE). A cut-out with a soft edge passes whatever the width of its edge; a photo
 * without alpha, an RGBA file whose alpha is 255 everywhere (or nearly: a few stray pixels), a
 * nearly empty one, and a uniformly translucent overlay do not: used as a mask, each would give
 * a result the client did not mean.
 */
export const CLEARLY_TRANSPARENT = 16;
export const CLEARLY_OPAQUE = 240;
/** 1 %: a product on a canvas leaves far more than this transparent; stray or antialiased pixels are far less. */
export const MEANINGFUL_SHARE = 0.01;

/** The shares of an alpha mask's pixels that are clearly transparent and clearly opaque. */
export interface TransparencyShares {
  transparent: number;
  opaque: number;
}

export function transparencyShares(alpha: AlphaMask): TransparencyShares {
  const { data } = alpha;
  let transparent = 0;
  let opaque = 0;
  for (let i = 0; i < data.length; i++) {
    const a = data[i];
    if (a <= CLEARLY_TRANSPARENT) transparent++;
    else if (a >= CLEARLY_OPAQUE) opaque++;
  }
  const pixels = Math.max(1, data.length);
  return { transparent: transparent / pixels, opaque: opaque / pixels };
}

export function hasMeaningfulTransparency(alpha: AlphaMask): boolean {
  const shares = transparencyShares(alpha);
  return shares.transparent >= MEANINGFUL_SHARE && shares.opaque >= MEANINGFUL_SHARE;
}

/** A source's own cut-out: its colours and its alpha as the mask. */
export interface ExistingCutout {
  photo: RawImage;
  mask: AlphaMask;
}

/**
 * The source's alpha channel as the subject's mask, and its colours: as they are wherever it has
 * any alpha (a PNG or WebP stores straight colour, so a soft edge's colour is already the
 * subject's own, with nothing of an old backdrop to clean), white where it is fully transparent
 * (what is stored there is arbitrary, often black, and would mislead the measurements of light
 * and colour; white is what the segmented path's flattened photo has there). Null when the source
 * has no alpha channel or no meaningful transparency.
 */
export function existingCutout(image: RawImage): ExistingCutout | null {
  if (image.channels !== 4) return null;
  const pixels = image.width * image.height;
  const mask = new Uint8Array(pixels);
  for (let i = 0; i < pixels; i++) mask[i] = image.data[i * 4 + 3];
  const alpha = { data: mask, width: image.width, height: image.height };
  if (!hasMeaningfulTransparency(alpha)) return null;
  const data = Buffer.alloc(pixels * 3);
  for (let i = 0; i < pixels; i++) {
    if (mask[i] === 0) data.fill(255, i * 3, i * 3 + 3);
    else image.data.copy(data, i * 3, i * 4, i * 4 + 3);
  }
  return { photo: { data, width: image.width, height: image.height, channels: 3 }, mask: alpha };
}
