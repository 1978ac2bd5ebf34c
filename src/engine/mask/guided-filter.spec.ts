import sharp from 'sharp';
import type { ProbabilityMap } from './probability-map';
import type { RawImage } from '../raw-image';
import type { AlphaMask } from './alpha-mask';
import { refineAlpha } from './guided-filter';

/** Bound once: Jest runs tests in a VM context, where a global lookup per pixel is slow. */
const { abs, hypot, max, min, round } = Math;

const MAP_SIDE = 768;

interface Disc {
  cx: number;
  cy: number;
  r: number;
}

/** Pixel-centre distance from the disc's centre. */
const distanceTo = (disc: Disc, x: number, y: number) => hypot(x + 0.5 - disc.cx, y + 0.5 - disc.cy);

/** A red disc on a green backdrop, its edge anti-aliased and both with a little deterministic noise, as a photo has. */
function discPhoto(width: number, height: number, disc: Disc): RawImage {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const noise = ((((x * 73856093) ^ (y * 19349663)) >>> 0) % 17) - 8;
      const cover = min(1, max(0, disc.r - distanceTo(disc, x, y) + 0.5));
      data[i] = 40 + 160 * cover + noise;
      data[i + 1] = 150 - 110 * cover + noise;
      data[i + 2] = 70 - 30 * cover + noise;
    }
  }
  return { data, width, height, channels: 3 };
}

/** The truth as an 8-bit mask at the photo's size. */
function discMask(width: number, height: number, disc: Disc): Buffer {
  const mask = Buffer.alloc(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) mask[y * width + x] = distanceTo(disc, x, y) <= disc.r ? 255 : 0;
  return mask;
}

/**
 * A model-like map: the true mask squashed to a coarse 96 x 96, brought back to 768 x 768 and
 * blurred, so its edge is soft, blocky and a few pixels off, as a network's output is.
 */
async function coarseMap(width: number, height: number, disc: Disc): Promise<ProbabilityMap> {
  const coarse = await sharp(discMask(width, height, disc), { raw: { width, height, channels: 1 } })
    .resize(96, 96, { fit: 'fill' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const map = await sharp(coarse, { raw: { width: 96, height: 96, channels: 1 } })
    .resize(MAP_SIDE, MAP_SIDE, { fit: 'fill', kernel: 'linear' })
    .blur(3)
    .extractChannel(0)
    .raw()
    .toBuffer();
  return { data: Float32Array.from(map, (v) => v / 255), width: MAP_SIDE, height: MAP_SIDE };
}

/** The baseline: the map bilinearly stretched to the photo. */
async function stretched(map: ProbabilityMap, width: number, height: number): Promise<AlphaMask> {
  const bytes = Buffer.from(Uint8Array.from(map.data, (p) => round(p * 255)));
  const data = await sharp(bytes, { raw: { width: map.width, height: map.height, channels: 1 } })
    .resize(width, height, { fit: 'fill', kernel: 'linear' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  return { data: new Uint8Array(data), width, height };
}

function iouWithDisc(alpha: AlphaMask, disc: Disc): number {
  let both = 0;
  let either = 0;
  for (let y = 0; y < alpha.height; y++) {
    for (let x = 0; x < alpha.width; x++) {
      const a = alpha.data[y * alpha.width + x] >= 128;
      const b = distanceTo(disc, x, y) <= disc.r;
      if (a && b) both++;
      if (a || b) either++;
    }
  }
  return both / either;
}

/** How far from the true outline the worst wrongly classified pixel lies. */
function worstEdgeError(alpha: AlphaMask, disc: Disc): number {
  let worst = 0;
  for (let y = 0; y < alpha.height; y++) {
    for (let x = 0; x < alpha.width; x++) {
      const d = distanceTo(disc, x, y);
      if (alpha.data[y * alpha.width + x] >= 128 !== d <= disc.r) worst = max(worst, abs(d - disc.r));
    }
  }
  return worst;
}

/** Alpha is exactly 0 beyond `margin` outside the disc and exactly 255 beyond it inside. */
function settledAwayFromEdge(alpha: AlphaMask, disc: Disc, margin: number): boolean {
  for (let y = 0; y < alpha.height; y++) {
    for (let x = 0; x < alpha.width; x++) {
      const d = distanceTo(disc, x, y);
      const value = alpha.data[y * alpha.width + x];
      if (d > disc.r + margin && value !== 0) return false;
      if (d < disc.r - margin && value !== 255) return false;
    }
  }
  return true;
}

describe(refineAlpha.name, () => {
  it.each([
    ['at full size (1200 x 900)', 1200, 900],
    ['through the fast guided filter (2400 x 1800)', 2400, 1800],
  ])('snaps a coarse map to the photo’s edge %s', async (_, width, height) => {
    const disc: Disc = { cx: width * 0.45, cy: height * 0.52, r: height * 0.3 };
    const map = await coarseMap(width, height, disc);
    const photo = discPhoto(width, height, disc);

    const plain = await stretched(map, width, height);
    const refined = await refineAlpha(map, photo);

    expect(refined.width).toBe(width);
    expect(refined.height).toBe(height);
    const plainIou = iouWithDisc(plain, disc);
    const refinedIou = iouWithDisc(refined, disc);
    expect(refinedIou).toBeGreaterThan(plainIou);
    expect(refinedIou).toBeGreaterThan(0.995);
    expect(worstEdgeError(refined, disc)).toBeLessThanOrEqual(1);
    expect(settledAwayFromEdge(refined, disc, 0.03 * max(width, height))).toBe(true);
  });

  it('refines a 12 MP, non-square photo with an RGBA guide to the photo’s size', async () => {
    const width = 4000;
    const height = 3000;
    const disc: Disc = { cx: 2000, cy: 1500, r: 1000 };
    const map = await coarseMap(width, height, disc);
    const rgb = discPhoto(width, height, disc);
    const rgba = await sharp(rgb.data, { raw: { width, height, channels: 3 } })
      .ensureAlpha()
      .raw()
      .toBuffer();

    const refined = await refineAlpha(map, { data: rgba, width, height, channels: 4 });

    expect(refined.width).toBe(width);
    expect(refined.height).toBe(height);
    expect(refined.data).toHaveLength(width * height);
    expect(refined.data[0]).toBe(0);
    expect(refined.data[1500 * width + 2000]).toBe(255);
  });
});
