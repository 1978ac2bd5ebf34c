import sharp from 'sharp';
import { random } from './image-fixtures';
import { BACKDROP_PAINTERS, type Backdrop } from './product-shots/backdrops';
import { hardScene, KIND_BACKDROPS, PROP_KINDS, type HardKind } from './product-shots/hard-scenes';
import type { HardShotSpec } from './product-shots/hard-specs';
import { HARD_CASE_DRAWINGS, PRODUCT_DRAWINGS } from './product-shots/products';
import type { PropFamily, PropMaterial } from './product-shots/props';
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
export type { HardKind } from './product-shots/hard-scenes';
export type { HardShotSpec } from './product-shots/hard-specs';
export type { PropFamily, PropMaterial } from './product-shots/props';
export { HARD_KINDS } from './product-shots/hard-scenes';
export { HARD_SHOT_SPECS } from './product-shots/hard-specs';
export { HELD_OUT_PROP_FAMILIES, PROP_FAMILIES, TUNING_PROP_FAMILIES } from './product-shots/props';

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
  const jpeg = await sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
  return { name, product, backdrop, width, height, jpeg, mask: layer.mask };
}

/**
 * Hard cases for background removal (see product-shots/hard-scenes.ts): props touching the
 * product, partly behind it, around it on a table or beside an off-centre product; products that
 * fill the frame, white on white, or thin. Props are drawn from families, some held out from
 * tuning (HELD_OUT_PROP_FAMILIES); each shot has props of one family only, always behind the
 * product, so the mask stays the product's silhouette. HARD_SHOT_SPECS lists the measured set;
 * a hard shot's name is its spec's.
 */
export interface HardShot extends ProductShot {
  kind: HardKind;
  propFamily: PropFamily | null;
  propMaterial: PropMaterial | null;
}

/** Products drawn for the hard cases, besides PRODUCTS. */
export const HARD_PRODUCTS: readonly string[] = Object.keys(HARD_CASE_DRAWINGS);

/** The shot a spec describes, the same bytes on every run; default 1200 x 900. */
export async function hardShot(
  spec: HardShotSpec,
  options: { width?: number; height?: number } = {},
): Promise<HardShot> {
  const { name, kind, product, backdrop, propFamily, propMaterial, seed } = spec;
  const drawing = PRODUCT_DRAWINGS[product] ?? HARD_CASE_DRAWINGS[product];
  if (!drawing)
    throw new Error(`unknown product '${product}', expected one of ${[...PRODUCTS, ...HARD_PRODUCTS].join(', ')}`);
  if (!KIND_BACKDROPS[kind].includes(backdrop))
    throw new Error(`'${kind}' shots are on ${KIND_BACKDROPS[kind].join(', ')}, not '${backdrop}'`);
  const withProps = PROP_KINDS.includes(kind);
  if (withProps !== (propFamily !== null) || withProps !== (propMaterial !== null)) {
    throw new Error(`'${kind}' shots ${withProps ? 'need' : 'have no'} a prop family and material`);
  }
  const { width = 1200, height = 900 } = options;
  const shotSeed = hashSeed(`${name}/${seed}`);
  const next = random(shotSeed);
  const scene = await hardScene({
    kind,
    drawing,
    backdrop,
    propFamily,
    propMaterial,
    width,
    height,
    next,
    seed: shotSeed,
  });
  const pixels = composeShot({
    backdrop: await renderBackdrop(scene.scenery.svg),
    backdropGrain: scene.scenery.grain,
    product: scene.product.rgba,
    drawing,
    light: scene.palette === drawing.light,
    placement: scene.placement,
    width,
    height,
    seed: shotSeed,
  });
  const jpeg = await sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
  return { name, product, backdrop, width, height, jpeg, mask: scene.product.mask, kind, propFamily, propMaterial };
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
