import sharp from 'sharp';
import { BACKDROP_PAINTERS, type Backdrop } from './backdrops';
import { clearance } from './distance';
import { fillFrame, placeAt } from './hard-placement';
import { propBeside, propsAgainst, propsAround, silhouette, type Surroundings } from './prop-layout';
import { propSvg, type Prop, type PropFamily, type PropMaterial } from './props';
import type { Palette, ProductDrawing } from './products/product';
import { placeProduct, renderProduct, type Placement } from './render';
import type { BackdropLayer } from './stage';
import { svgDocument } from './svg';
import { horizonOf } from './tabletop';
import { whitePaper } from './white-paper';

/**
 * The hard cases for background removal, each a scene built around one product:
 * - 'touching': 1-2 props whose outlines meet the product's (0-2 pixels apart);
 * - 'overlapping': 1-2 props partly behind the product (10-45% of their width along the way in);
 * - 'among': the product on a table among 3-5 props, one or two against it, the rest apart;
 * - 'beside': the product off-centre, a prop 1.3-2 times its area nearer the frame's centre;
 * - 'filling': a product filling 80-95% of the frame's width or height, white and silver parts
 *   on a light backdrop;
 * - 'white': a white product, lit high-key, on white paper;
 * - 'thin': products with thin parts (frames, wires, bands, legs).
 * Props are always behind the product, so its mask is its silhouette alone.
 */
export type HardKind = 'touching' | 'overlapping' | 'among' | 'beside' | 'filling' | 'white' | 'thin';

export const HARD_KINDS: readonly HardKind[] = [
  'touching',
  'overlapping',
  'among',
  'beside',
  'filling',
  'white',
  'thin',
];

/** The kinds whose scenes have props; the others have none. */
export const PROP_KINDS: readonly HardKind[] = ['touching', 'overlapping', 'among', 'beside'];

/** The backdrops a kind is shot on. 'white' is drawn whiter than the plain shots' 'light'. */
export const KIND_BACKDROPS: Readonly<Record<HardKind, readonly Backdrop[]>> = {
  touching: ['studio', 'gradient', 'light'],
  overlapping: ['studio', 'gradient', 'light'],
  among: ['tabletop'],
  beside: ['studio', 'gradient', 'light', 'tabletop'],
  filling: ['studio', 'light'],
  white: ['light'],
  thin: ['studio', 'gradient', 'light', 'tabletop'],
};

type Place = (drawing: ProductDrawing, width: number, height: number, next: () => number) => Placement;

/** Smaller products where props must find room around them; off-centre for 'beside'. */
const PLACEMENTS: Readonly<Record<HardKind, Place>> = {
  touching: (d, w, h, next) =>
    placeAt(d, w, h, 0.17 + 0.09 * next(), 0.5 + 0.12 * (next() - 0.5), 0.56 + 0.06 * (next() - 0.5)),
  overlapping: (d, w, h, next) =>
    placeAt(d, w, h, 0.17 + 0.09 * next(), 0.5 + 0.12 * (next() - 0.5), 0.56 + 0.06 * (next() - 0.5)),
  among: (d, w, h, next) => placeAt(d, w, h, 0.15 + 0.07 * next(), 0.5 + 0.1 * (next() - 0.5), 0.56),
  beside: (d, w, h, next) => {
    const left = next() < 0.5;
    const centre = 0.22 + 0.13 * next();
    // The product and a prop twice its size must fit side by side: in a frame taller than 4:3, as
    // large as in a 4:3 frame of the same width.
    const room = Math.min(1, (0.75 * w) / h);
    return placeAt(d, w, h, (0.11 + 0.06 * next()) * room, left ? centre : 1 - centre, 0.52 + 0.06 * (next() - 0.5));
  },
  filling: fillFrame,
  white: placeProduct,
  thin: placeProduct,
};

export interface HardSceneRequest {
  kind: HardKind;
  drawing: ProductDrawing;
  backdrop: Backdrop;
  propFamily: PropFamily | null;
  propMaterial: PropMaterial | null;
  width: number;
  height: number;
  next: () => number;
  seed: number;
}

export interface HardScene {
  palette: Palette;
  placement: Placement;
  /** The product alone: straight RGBA and its mask. */
  product: { rgba: Buffer; mask: Uint8Array };
  /** Behind the product, for measuring how much of them a cut-out kept. */
  props: Prop[];
  scenery: BackdropLayer;
}

function propsFor(request: HardSceneRequest, surroundings: Surroundings, placement: Placement): Prop[] {
  switch (request.kind) {
    case 'touching':
      return propsAgainst(surroundings, false);
    case 'overlapping':
      return propsAgainst(surroundings, true);
    case 'among':
      return propsAround(surroundings, horizonOf(request.height, placement));
    case 'beside':
      return propBeside(surroundings);
    default:
      return [];
  }
}

/**
 * The backdrop's grain (wood) left off where opaque props cover it and thinned under translucent
 * ones, from the props' bodies rendered alone.
 */
async function grainAround(
  grain: (x: number, y: number) => number,
  bodies: string,
  width: number,
  height: number,
): Promise<(x: number, y: number) => number> {
  const rgba = await sharp(Buffer.from(svgDocument(width, height, bodies)))
    .ensureAlpha()
    .raw()
    .toBuffer();
  return (x: number, y: number) => 1 + (grain(x, y) - 1) * (1 - rgba[(y * width + x) * 4 + 3] / 255);
}

/**
 * High-key light, as white products are shot on white: flooded with fill light, the shading
 * keeps `depth` of its darkness, so that the product stays near white but for its details.
 */
function highKey(rgba: Buffer, depth: number): void {
  for (let i = 0; i < rgba.length; i += 4) {
    for (let c = i; c < i + 3; c++) rgba[c] = Math.round(255 - (255 - rgba[c]) * depth);
  }
}

export async function hardScene(request: HardSceneRequest): Promise<HardScene> {
  const { kind, drawing, width, height, next } = request;
  const palette = kind === 'white' ? drawing.light : drawing.colours;
  const placement = PLACEMENTS[kind](drawing, width, height, next);
  const product = await renderProduct(drawing, palette, placement, width, height);
  if (kind === 'white') highKey(product.rgba, 0.3);
  let props: Prop[] = [];
  if (request.propFamily && request.propMaterial) {
    const { area, ...shape } = silhouette(product.mask, width, height);
    const surroundings: Surroundings = {
      width,
      height,
      // Exact distances up to beyond the 3.5% of the longer side that 'among' keeps props apart by.
      field: clearance(product.mask, width, height, Math.ceil(0.06 * Math.max(width, height))),
      ...shape,
      scale: Math.sqrt(Math.sqrt(area * placement.width * placement.height)),
      body: palette.body,
      family: request.propFamily,
      material: request.propMaterial,
      next,
    };
    props = propsFor(request, surroundings, placement);
  }
  const side = Math.max(width, height);
  const drawn = props.map((prop, i) => propSvg(prop, `hard-prop${i}`, side));
  const bodies = drawn.map(({ body }) => body).join('');
  const paint = kind === 'white' ? whitePaper : BACKDROP_PAINTERS[request.backdrop];
  const stage = { width, height, drawing, palette, placement, mask: product.mask, next, seed: request.seed };
  const scenery = paint({ ...stage, props: drawn.map(({ shadow }) => shadow).join('') + bodies });
  if (scenery.grain && props.length > 0) scenery.grain = await grainAround(scenery.grain, bodies, width, height);
  return { palette, placement, product, props, scenery };
}
