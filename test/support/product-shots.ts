import sharp from 'sharp';
import { random } from './image-fixtures';
import { BACKDROP_PAINTERS, type Backdrop } from './product-shots/backdrops';
import { PRODUCT_DRAWINGS } from './product-shots/products';
import { composeShot, placeProduct, renderBackdrop, renderProduct } from './product-shots/render';
import { hashSeed } from './product-shots/svg';

/**
 * Product photos with known masks, for measuring background removal on pixels: a product drawn in
 * SVG (shading, highlights, a label or texture) over one of several backdrops, rasterised by
 * sharp (librsvg), with sensor noise and JPEG compression; about 0.15-0.3 s for 1200 x 900.
 * The mask is the product rendered alone, its coverage thresholded at half, so a contact shadow,
 * a prop or the backdrop seen through a handle is never part of it.
 *
 * Backdrops: 'studio' seamless grey paper with a vignette and a contact shadow; 'gradient' two
 * colours at a seeded angle; 'tabletop' a wall and a wooden table in perspective, the product
 * standing on it; 'clutter' salient props (discs, boxes, polygons, some translucent) kept at least
 * 4.5% of the frame's longer side away from the product; 'similar' within about 35 RGB levels of
 * the product's body colour; 'light' the product in white or cream on off-white.
 */

export type { Backdrop } from './product-shots/backdrops';

export interface ProductShot {
  /** `<product>-on-<backdrop>`, e.g. 'bottle-on-clutter'. */
  name: string;
  product: string;
  backdrop: Backdrop;
  width: number;
  height: number;
  /** The shot, JPEG quality 92. */
  jpeg: Buffer;
  /** width x height, 255 inside the product and 0 outside. */
  mask: Uint8Array;
}

export const PRODUCTS: readonly string[] = Object.keys(PRODUCT_DRAWINGS);

export const BACKDROPS: readonly Backdrop[] = ['studio', 'gradient', 'tabletop', 'clutter', 'similar', 'light'];

/** One shot, the same on every run for the same arguments; default 1200 x 900. */
export async function productShot(
  product: string,
  backdrop: Backdrop,
  options: { width?: number; height?: number; seed?: number } = {},
): Promise<ProductShot> {
  const drawing = PRODUCT_DRAWINGS[product];
  if (!drawing) throw new Error(`unknown product '${product}', expected one of ${PRODUCTS.join(', ')}`);
  const paintBackdrop = BACKDROP_PAINTERS[backdrop];
  if (!paintBackdrop) throw new Error(`unknown backdrop '${backdrop}', expected one of ${BACKDROPS.join(', ')}`);
  const { width = 1200, height = 900, seed = 1 } = options;
  const name = `${product}-on-${backdrop}`;
  const shotSeed = hashSeed(`${name}/${seed}`);
  const next = random(shotSeed);
  const palette = backdrop === 'light' ? drawing.light : drawing.colours;
  const placement = placeProduct(drawing, width, height, next);
  const layer = await renderProduct(drawing, palette, placement, width, height);
  const scenery = paintBackdrop({ width, height, drawing, palette, placement, mask: layer.mask, next, seed: shotSeed });
  const pixels = composeShot({
    backdrop: await renderBackdrop(scenery.svg),
    backdropGrain: scenery.grain,
    product: layer.rgba,
    drawing,
    light: backdrop === 'light',
    placement,
    width,
    height,
    seed: shotSeed,
  });
  const jpeg = await sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
  return { name, product, backdrop, width, height, jpeg, mask: layer.mask };
}

/** Intersection over union of `alpha >= threshold` and the mask's 255s; 1 when both are empty. */
export function alphaIoU(alpha: Uint8Array, mask: Uint8Array, threshold = 128): number {
  if (alpha.length !== mask.length) throw new Error(`alpha has ${alpha.length} values, the mask ${mask.length}`);
  let intersection = 0;
  let union = 0;
  for (let i = 0; i < mask.length; i++) {
    const predicted = alpha[i] >= threshold;
    const actual = mask[i] >= 128;
    if (predicted && actual) intersection++;
    if (predicted || actual) union++;
  }
  return union === 0 ? 1 : intersection / union;
}
