import sharp from 'sharp';
import { gaussian, random } from '../image-fixtures';
import type { Palette, ProductDrawing } from './products/product';
import { svgDocument, valueNoise } from './svg';

/** Where the product's box lands in the shot, in pixels. */
export interface Placement {
  scale: number;
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * The product's box covers 30-42% of the frame (less for tall or wide products, which must stay
 * inside it with a margin), centred with a small seeded offset.
 */
export function placeProduct(drawing: ProductDrawing, width: number, height: number, next: () => number): Placement {
  const area = (0.3 + 0.12 * next()) * width * height;
  const scale = Math.min(
    Math.sqrt(area / (drawing.width * drawing.height)),
    (0.84 * height) / drawing.height,
    (0.72 * width) / drawing.width,
  );
  const boxWidth = drawing.width * scale;
  const boxHeight = drawing.height * scale;
  const clamp = (value: number, low: number, high: number) => Math.max(low, Math.min(high, value));
  const left = clamp(width / 2 + (next() - 0.5) * 0.1 * width - boxWidth / 2, 0.04 * width, 0.96 * width - boxWidth);
  const top = clamp(
    height / 2 + (next() - 0.5) * 0.06 * height - boxHeight / 2,
    0.04 * height,
    0.96 * height - boxHeight,
  );
  return { scale, left, top, width: boxWidth, height: boxHeight };
}

/** The product alone on transparency: straight (not premultiplied) RGBA, and its mask. */
export async function renderProduct(
  drawing: ProductDrawing,
  palette: Palette,
  placement: Placement,
  width: number,
  height: number,
): Promise<{ rgba: Buffer; mask: Uint8Array }> {
  const { left, top, scale } = placement;
  const svg = svgDocument(
    width,
    height,
    `<g transform="translate(${left.toFixed(2)} ${top.toFixed(2)}) ` +
      `scale(${scale.toFixed(5)})">${drawing.draw(palette)}</g>`,
  );
  const rgba = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer();
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i++) mask[i] = rgba[i * 4 + 3] >= 128 ? 255 : 0;
  return { rgba, mask };
}

export async function renderBackdrop(svg: string): Promise<Buffer> {
  return sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
}

/**
 * A multiplier of the product's pixels at (u, v) in drawing units, from its `grain`; `muted` for
 * a white or cream finish, where the same relative grain would look like streaks.
 */
function productGrain(
  drawing: ProductDrawing,
  seed: number,
  muted: boolean,
): ((u: number, v: number) => number) | undefined {
  if (!drawing.grain) return undefined;
  const noise = valueNoise(seed);
  const [su, sv] = drawing.grain.size;
  const strength = drawing.grain.strength * (muted ? 0.4 : 1);
  return (u, v) =>
    1 +
    strength * (1.4 * (noise(u / su, v / sv) - 0.5) + 0.8 * (noise((u / su) * 2.3 + 91, (v / sv) * 2.3 + 17) - 0.5));
}

/**
 * The product over the backdrop, with surface grain, sensor noise (luma and a little chroma,
 * sigma about 2.5 levels) and rounding, as 8-bit RGB.
 */
export function composeShot(options: {
  backdrop: Buffer;
  backdropGrain?: (x: number, y: number) => number;
  product: Buffer;
  drawing: ProductDrawing;
  /** The product is in its light palette. */
  light: boolean;
  placement: Placement;
  width: number;
  height: number;
  seed: number;
}): Buffer {
  const { backdrop, backdropGrain, product, placement, width, height } = options;
  const grain = productGrain(options.drawing, options.seed ^ 0x5bd1e995, options.light);
  const normals = new Float32Array(8192);
  const normal = gaussian(random(options.seed));
  for (let i = 0; i < normals.length; i++) normals[i] = normal();
  let state = options.seed | 1;
  const nextNormal = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return normals[state & 8191];
  };
  const out = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      const b = backdropGrain ? backdropGrain(x, y) : 1;
      let r = backdrop[p * 3] * b;
      let g = backdrop[p * 3 + 1] * b;
      let bl = backdrop[p * 3 + 2] * b;
      const alpha = product[p * 4 + 3];
      if (alpha > 0) {
        const t = grain ? grain((x - placement.left) / placement.scale, (y - placement.top) / placement.scale) : 1;
        const a = alpha / 255;
        r += (product[p * 4] * t - r) * a;
        g += (product[p * 4 + 1] * t - g) * a;
        bl += (product[p * 4 + 2] * t - bl) * a;
      }
      const luma = 2.2 * nextNormal();
      out[p * 3] = clampByte(r + luma + 0.9 * nextNormal());
      out[p * 3 + 1] = clampByte(g + luma + 0.7 * nextNormal());
      out[p * 3 + 2] = clampByte(bl + luma + 1.1 * nextNormal());
    }
  }
  return out;
}

const clampByte = (value: number) => (value <= 0 ? 0 : value >= 255 ? 255 : Math.round(value));
