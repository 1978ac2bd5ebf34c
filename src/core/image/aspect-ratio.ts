import type { ProviderShape } from '../image-provider/image-provider';
import type { Size } from '../../engine/raw-image';

/** A requested aspect ratio, `W:H` with whole numbers (the DTOs allow 1..32 each). */
export interface AspectRatio {
  width: number;
  height: number;
}

/** `"16:9"` as a ratio, or null when absent or malformed (the DTOs have validated it already). */
export function parseAspectRatio(value: unknown): AspectRatio | null {
  if (typeof value !== 'string') return null;
  const match = /^(\d+):(\d+)$/.exec(value.trim());
  if (!match) return null;
  const width = Number(match[1]);
  const height = Number(match[2]);
  return width > 0 && height > 0 ? { width, height } : null;
}

/** The provider shape closest to a width/height ratio: within 10 % of square is square. */
export function shapeFor(size: Size | AspectRatio): ProviderShape {
  const ratio = size.width / size.height;
  if (ratio > 1.1) return 'landscape';
  if (ratio < 1 / 1.1) return 'portrait';
  return 'square';
}

/**
 * The smallest canvas of exactly `ratio` that holds `content` whole: a multiple of W x H, so
 * its width / height is the ratio exactly, not a rounding of it. The content is then extended
 * (never cropped) to fill it.
 */
export function canvasHolding(content: Size, ratio: AspectRatio): Size {
  const k = Math.max(1, Math.ceil(Math.max(content.width / ratio.width, content.height / ratio.height)));
  return { width: ratio.width * k, height: ratio.height * k };
}

/** The largest canvas of exactly `ratio` inside `content`: for cropping an image with no subject to keep. */
export function canvasWithin(content: Size, ratio: AspectRatio): Size {
  const k = Math.max(1, Math.floor(Math.min(content.width / ratio.width, content.height / ratio.height)));
  return { width: ratio.width * k, height: ratio.height * k };
}

/** `size` scaled so its longer side is `longSide`, keeping its ratio (rounded). */
export function withLongSide(size: Size | AspectRatio, longSide: number): Size {
  const factor = longSide / Math.max(size.width, size.height);
  return { width: Math.max(1, Math.round(size.width * factor)), height: Math.max(1, Math.round(size.height * factor)) };
}
