import sharp from 'sharp';

/**
 * Source images made by the tests themselves, with sharp: every fixture's origin is its code.
 * Pixel helpers read decoded images back, so tests measure what a client would download.
 */

export type Rgb = [number, number, number];

/** A deterministic pseudo-random generator (mulberry32), so fixtures are the same on every run. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Normally distributed values (Box-Muller) from a uniform generator. */
export function gaussian(next: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
}

export interface RawFixture {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** An RGB image whose pixel at (x, y) is `colour(x, y)`, clamped to 0..255. */
export function paint(width: number, height: number, colour: (x: number, y: number) => Rgb): RawFixture {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r, g, b] = colour(x, y);
      const i = (y * width + x) * 3;
      data[i] = Math.max(0, Math.min(255, Math.round(r)));
      data[i + 1] = Math.max(0, Math.min(255, Math.round(g)));
      data[i + 2] = Math.max(0, Math.min(255, Math.round(b)));
    }
  }
  return { data, width, height, channels: 3 };
}

export const fromFixture = (raw: RawFixture) =>
  sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels } });

/**
 * Something like a product photo: a lit backdrop gradient, a shaded object with hard edges and
 * a printed pattern, and sensor noise, so encoders and filters see real texture, not flat colour.
 */
export function productPhoto(width: number, height: number, seed = 1): RawFixture {
  const noise = gaussian(random(seed));
  const cx = width * 0.5;
  const cy = height * 0.55;
  const rx = width * 0.22;
  const ry = height * 0.3;
  return paint(width, height, (x, y) => {
    const backdrop = 200 + 40 * (1 - y / height);
    const dx = (x - cx) / rx;
    const dy = (y - cy) / ry;
    const inside = dx * dx + dy * dy <= 1;
    const shade = inside ? 0.55 + 0.45 * Math.max(0, 1 - Math.hypot(dx + 0.4, dy + 0.4)) : 1;
    const stripe = inside && Math.floor((x + y) / Math.max(4, width / 100)) % 2 === 0 ? 40 : 0;
    const n = noise() * 6;
    if (!inside) return [backdrop + n, backdrop + n, backdrop - 4 + n];
    return [170 * shade + stripe + n, 60 * shade + n, 50 * shade + stripe / 2 + n];
  });
}

/** Every pixel of an encoded image, decoded to 8-bit RGBA (sRGB). */
export async function decodeRgba(image: Buffer): Promise<RawFixture & { pixel(x: number, y: number): number[] }> {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    data,
    width: info.width,
    height: info.height,
    channels: 4,
    pixel: (x, y) => Array.from(data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)),
  };
}

/** Mean and standard deviation of luma over a rectangle of a decoded RGBA image. */
export function lumaStats(
  image: { data: Buffer; width: number },
  area: { left: number; top: number; width: number; height: number },
): { mean: number; std: number; values: number[] } {
  const values: number[] = [];
  for (let y = area.top; y < area.top + area.height; y++) {
    for (let x = area.left; x < area.left + area.width; x++) {
      const i = (y * image.width + x) * 4;
      values.push(0.2126 * image.data[i] + 0.7152 * image.data[i + 1] + 0.0722 * image.data[i + 2]);
    }
  }
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const std = Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
  return { mean, std, values };
}

/** The value below which `fraction` of `values` lie. */
export function percentileOf(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}
