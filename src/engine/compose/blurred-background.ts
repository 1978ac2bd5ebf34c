import sharp from 'sharp';
import type { RawImage, Size } from '../raw-image';
import type { AlphaMask } from '../mask/alpha-mask';

export type BlurMode = 'gaussian' | 'bokeh';

/** A blur of the photo's own background: `strength` 1 (barely) to 100 (a wide aperture). */
export interface BackgroundBlur {
  mode: BlurMode;
  strength: number;
}

/** At strength 100 the blur reaches this share of the photo's longer side (its disc radius, twice its sigma). */
const FULL_STRENGTH_RADIUS = 0.04;
/** Any alpha at or above this is the subject's, soft edge included: none of it may reach the background. */
const SUBJECT_ALPHA = 8;
/** A bokeh disc is drawn at most this many working pixels wide each side; wider ones at a reduced scale. */
const BOKEH_WORKING_RADIUS = 6;
/** The most pixels a bokeh is drawn on (its cost is its pixels times the disc's), whatever the radius. */
const BOKEH_PIXELS = 1_500_000;
/** The hole is filled from a pyramid at most this large: a fill is an average, detail there is never seen. */
const FILL_PIXELS = 1_000_000;
/** Linear light above this blooms into bright discs, as highlights do through a wide-open lens. */
const HIGHLIGHT_KNEE = 0.75;
const HIGHLIGHT_GAIN = 3;

/** The blur's radius in pixels for a photo of `size`. */
export function blurRadius(size: Size, strength: number): number {
  return Math.max(0.5, (strength / 100) * FULL_STRENGTH_RADIUS * Math.max(size.width, size.height));
}

/**
 * The photo's own background, blurred, with the subject taken out first: the subject (its soft
 * edge and a guard band around it included) is removed and the hole filled from the background
 * around it (push-pull: averaged down until every pixel has background, then spread back up), so
 * the blur smears background into background and no halo of the product. RGB out, the photo's size.
 */
export async function blurredBackground(photo: RawImage, alpha: AlphaMask, blur: BackgroundBlur): Promise<RawImage> {
  const radius = blurRadius(photo, blur.strength);
  const guard = Math.max(2, Math.round(Math.max(photo.width, photo.height) * 0.004));
  const filled = filledHole(photo, holeOf(alpha, guard));
  return blur.mode === 'bokeh' ? bokeh(filled, radius) : gaussian(filled, radius);
}

/** 1 on the subject and within `guard` pixels of it: what the background is made without. */
function holeOf(alpha: AlphaMask, guard: number): Uint8Array {
  const { width, height, data } = alpha;
  const subject = new Uint8Array(width * height);
  for (let i = 0; i < subject.length; i++) subject[i] = data[i] >= SUBJECT_ALPHA ? 1 : 0;
  return dilated(subject, width, height, guard);
}

/** A square dilation by `radius`, as two running-window passes (rows, then columns). */
function dilated(mask: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  const rows = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    // Distance to the nearest set pixel on either side, in two sweeps.
    let previous = -Infinity;
    for (let x = 0; x < width; x++) {
      if (mask[y * width + x]) previous = x;
      if (x - previous <= radius) rows[y * width + x] = 1;
    }
    let next = Infinity;
    for (let x = width - 1; x >= 0; x--) {
      if (mask[y * width + x]) next = x;
      if (next - x <= radius) rows[y * width + x] = 1;
    }
  }
  const out = new Uint8Array(mask.length);
  for (let x = 0; x < width; x++) {
    let previous = -Infinity;
    for (let y = 0; y < height; y++) {
      if (rows[y * width + x]) previous = y;
      if (y - previous <= radius) out[y * width + x] = 1;
    }
    let next = Infinity;
    for (let y = height - 1; y >= 0; y--) {
      if (rows[y * width + x]) next = y;
      if (next - y <= radius) out[y * width + x] = 1;
    }
  }
  return out;
}

interface Level {
  width: number;
  height: number;
  /** Colour premultiplied by the weight, three floats a pixel. */
  colour: Float32Array;
  /** How much of the pixel is known background, 0..1. */
  weight: Float32Array;
}

/**
 * The photo with its hole filled from the background around it (push-pull, Gortler et al.
 * 1996): each coarser level sums 2x2 children and clamps the weight to 1; going back up, a pixel
 * keeps its own share and takes the rest from its parent level, read bilinearly so the fill has
 * no blocks. The fill is smooth by nature, so the pyramid starts at a reduced scale on a large
 * photo (at most FILL_PIXELS) and only the hole's pixels take from it; the rest are the photo's
 * own. Hand-written: no image library fills a hole by weight.
 */
function filledHole(photo: RawImage, hole: Uint8Array): RawImage {
  const { width, height, channels } = photo;
  const data = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    for (let c = 0; c < 3; c++) data[i * 3 + c] = photo.data[i * channels + c];
  }
  const factor = Math.max(1, Math.ceil(Math.sqrt((width * height) / FILL_PIXELS)));
  const base = reducedBackground(photo, hole, factor);
  // Nothing but subject: there is no background to keep, so the photo itself is blurred.
  if (!base.weight.some((weight) => weight > 0)) return { data, width, height, channels: 3 };
  const levels = [base];
  while (levels[levels.length - 1].width > 1 || levels[levels.length - 1].height > 1) {
    levels.push(coarser(levels[levels.length - 1]));
  }
  for (let k = levels.length - 2; k >= 0; k--) pushDown(levels[k], levels[k + 1]);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!hole[i]) continue;
      const fill = bilinear(base, (x + 0.5) / factor - 0.5, (y + 0.5) / factor - 0.5);
      for (let c = 0; c < 3; c++) data[i * 3 + c] = Math.round(Math.min(255, Math.max(0, fill[c])));
    }
  }
  return { data, width, height, channels: 3 };
}

/**
 * The photo's background (the hole left out) averaged over `factor` x `factor` boxes, weighted by
 * how much of each box it covers.
 */
function reducedBackground(photo: RawImage, hole: Uint8Array, factor: number): Level {
  const { width: fullWidth, height: fullHeight, channels } = photo;
  const width = Math.ceil(fullWidth / factor);
  const height = Math.ceil(fullHeight / factor);
  const colour = new Float32Array(width * height * 3);
  const weight = new Float32Array(width * height);
  const area = new Float32Array(width * height);
  for (let y = 0; y < fullHeight; y++) {
    const row = Math.floor(y / factor) * width;
    for (let x = 0; x < fullWidth; x++) {
      const o = row + Math.floor(x / factor);
      const i = y * fullWidth + x;
      area[o]++;
      if (hole[i]) continue;
      weight[o]++;
      for (let c = 0; c < 3; c++) colour[o * 3 + c] += photo.data[i * channels + c];
    }
  }
  for (let o = 0; o < width * height; o++) {
    for (let c = 0; c < 3; c++) colour[o * 3 + c] /= area[o];
    weight[o] /= area[o];
  }
  return { width, height, colour, weight };
}

/** A complete level's colour at fractional coordinates, clamped to its edges. */
function bilinear(level: Level, fx: number, fy: number): [number, number, number] {
  const cx = Math.min(level.width - 1, Math.max(0, fx));
  const cy = Math.min(level.height - 1, Math.max(0, fy));
  const x0 = Math.floor(cx);
  const y0 = Math.floor(cy);
  const x1 = Math.min(level.width - 1, x0 + 1);
  const y1 = Math.min(level.height - 1, y0 + 1);
  const ax = cx - x0;
  const ay = cy - y0;
  const out: [number, number, number] = [0, 0, 0];
  for (let c = 0; c < 3; c++) {
    const top =
      level.colour[(y0 * level.width + x0) * 3 + c] * (1 - ax) + level.colour[(y0 * level.width + x1) * 3 + c] * ax;
    const bottom =
      level.colour[(y1 * level.width + x0) * 3 + c] * (1 - ax) + level.colour[(y1 * level.width + x1) * 3 + c] * ax;
    out[c] = top * (1 - ay) + bottom * ay;
  }
  return out;
}

function coarser(fine: Level): Level {
  const width = Math.ceil(fine.width / 2);
  const height = Math.ceil(fine.height / 2);
  const colour = new Float32Array(width * height * 3);
  const weight = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let w = 0;
      let r = 0;
      let g = 0;
      let b = 0;
      for (let dy = 0; dy < 2; dy++) {
        const fy = 2 * y + dy;
        if (fy >= fine.height) continue;
        for (let dx = 0; dx < 2; dx++) {
          const fx = 2 * x + dx;
          if (fx >= fine.width) continue;
          const i = fy * fine.width + fx;
          w += fine.weight[i];
          r += fine.colour[i * 3];
          g += fine.colour[i * 3 + 1];
          b += fine.colour[i * 3 + 2];
        }
      }
      const o = y * width + x;
      const clamped = Math.min(1, w);
      const scale = w > 0 ? clamped / w : 0;
      weight[o] = clamped;
      colour[o * 3] = r * scale;
      colour[o * 3 + 1] = g * scale;
      colour[o * 3 + 2] = b * scale;
    }
  }
  return { width, height, colour, weight };
}

/** `fine` completed from `coarse` (already complete): its own premultiplied colour plus the rest from the parent. */
function pushDown(fine: Level, coarse: Level): void {
  for (let y = 0; y < fine.height; y++) {
    for (let x = 0; x < fine.width; x++) {
      const i = y * fine.width + x;
      const rest = 1 - fine.weight[i];
      if (rest <= 0) continue;
      const parent = bilinear(coarse, (x + 0.5) / 2 - 0.5, (y + 0.5) / 2 - 0.5);
      for (let c = 0; c < 3; c++) fine.colour[i * 3 + c] += rest * parent[c];
      fine.weight[i] = 1;
    }
  }
}

/** A gaussian is drawn at most this wide in working pixels; a wider one at a reduced scale. */
const GAUSSIAN_WORKING_SIGMA = 3;

/**
 * A gaussian of sigma radius / 2, by libvips; a wide one is drawn at a reduced scale and enlarged
 * back (a blur has no detail to lose), which keeps its cost flat in the radius.
 */
async function gaussian(image: RawImage, radius: number): Promise<RawImage> {
  const sigma = Math.max(0.3, radius / 2);
  const scale = Math.max(1, sigma / GAUSSIAN_WORKING_SIGMA);
  const raw = { raw: { width: image.width, height: image.height, channels: 3 as const } };
  if (scale === 1)
    return { ...image, data: await sharp(image.data, raw).blur(sigma).raw({ depth: 'uchar' }).toBuffer() };
  const working = {
    width: Math.max(1, Math.round(image.width / scale)),
    height: Math.max(1, Math.round(image.height / scale)),
  };
  const small = await sharp(image.data, raw)
    .resize(working.width, working.height, { fit: 'fill', kernel: 'lanczos3' })
    .blur(sigma / scale)
    .raw({ depth: 'uchar' })
    .toBuffer();
  const data = await sharp(small, { raw: { ...working, channels: 3 } })
    .resize(image.width, image.height, { fit: 'fill', kernel: 'cubic' })
    .raw({ depth: 'uchar' })
    .toBuffer();
  return { ...image, data };
}

/**
 * A lens's blur: a disc of `radius` in linear light, highlights boosted first so they open into
 * bright discs. A wide disc is drawn at a reduced scale (its radius at most BOKEH_WORKING_RADIUS
 * working pixels) and the result enlarged back, which keeps the cost flat in the radius.
 */
async function bokeh(image: RawImage, radius: number): Promise<RawImage> {
  const scale = Math.max(1, radius / BOKEH_WORKING_RADIUS, Math.sqrt((image.width * image.height) / BOKEH_PIXELS));
  const working = {
    width: Math.max(1, Math.round(image.width / scale)),
    height: Math.max(1, Math.round(image.height / scale)),
  };
  const small =
    scale > 1
      ? await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
          .resize(working.width, working.height, { fit: 'fill', kernel: 'lanczos3' })
          .raw({ depth: 'uchar' })
          .toBuffer()
      : image.data;
  const blurred = discBlur(small, working, radius / scale);
  if (scale === 1) return { ...image, data: blurred };
  const data = await sharp(blurred, { raw: { ...working, channels: 3 } })
    .resize(image.width, image.height, { fit: 'fill', kernel: 'cubic' })
    .raw({ depth: 'uchar' })
    .toBuffer();
  return { ...image, data };
}

/** The factor a pixel of linear `luminance` is boosted by: 1 up to the knee, rising linearly above it. */
function boosted(luminance: number): number {
  return 1 + HIGHLIGHT_GAIN * Math.max(0, (luminance - HIGHLIGHT_KNEE) / (1 - HIGHLIGHT_KNEE));
}

/**
 * The factor that takes a boosted luminance back: the inverse of L -> L * boosted(L), a quadratic
 * above the knee, so a flat area comes out at its own level and only spread highlights stay bright.
 */
function unboosted(boostedLuminance: number): number {
  if (boostedLuminance <= HIGHLIGHT_KNEE) return 1;
  const a = HIGHLIGHT_GAIN / (1 - HIGHLIGHT_KNEE);
  const b = 1 - a * HIGHLIGHT_KNEE;
  const luminance = (-b + Math.sqrt(b * b + 4 * a * boostedLuminance)) / (2 * a);
  return luminance / boostedLuminance;
}

const TO_LINEAR = Float32Array.from({ length: 256 }, (_, v) => {
  const s = v / 255;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
});

function toSrgb(linear: number): number {
  const v = Math.min(1, Math.max(0, linear));
  const s = v <= 0.0031308 ? v * 12.92 : 1.055 * v ** (1 / 2.4) - 0.055;
  return Math.round(s * 255);
}

/**
 * An antialiased disc of `radius` over RGB pixels, in linear light with highlights boosted and
 * the boost taken back after. Hand-written: libvips convolves in the values it is given, and a
 * lens blurs light, not sRGB codes.
 */
function discBlur(pixels: Buffer, size: Size, radius: number): Buffer {
  const { width, height } = size;
  const reach = Math.ceil(radius);
  const taps: Array<{ dx: number; dy: number; w: number }> = [];
  for (let dy = -reach; dy <= reach; dy++) {
    for (let dx = -reach; dx <= reach; dx++) {
      const w = Math.min(1, Math.max(0, radius + 0.5 - Math.hypot(dx, dy)));
      if (w > 0) taps.push({ dx, dy, w });
    }
  }
  const total = taps.reduce((sum, tap) => sum + tap.w, 0);
  const light = new Float32Array(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    const r = TO_LINEAR[pixels[i * 3]];
    const g = TO_LINEAR[pixels[i * 3 + 1]];
    const b = TO_LINEAR[pixels[i * 3 + 2]];
    const boost = boosted(0.2126 * r + 0.7152 * g + 0.0722 * b);
    light[i * 3] = r * boost;
    light[i * 3 + 1] = g * boost;
    light[i * 3 + 2] = b * boost;
  }
  const out = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (const { dx, dy, w } of taps) {
        const sx = Math.min(width - 1, Math.max(0, x + dx));
        const sy = Math.min(height - 1, Math.max(0, y + dy));
        const j = (sy * width + sx) * 3;
        r += light[j] * w;
        g += light[j + 1] * w;
        b += light[j + 2] * w;
      }
      const blurredLuminance = (0.2126 * r + 0.7152 * g + 0.0722 * b) / total;
      const unboost = unboosted(blurredLuminance) / total;
      const o = (y * width + x) * 3;
      out[o] = toSrgb(r * unboost);
      out[o + 1] = toSrgb(g * unboost);
      out[o + 2] = toSrgb(b * unboost);
    }
  }
  return out;
}
