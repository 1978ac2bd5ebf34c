import type { Size } from '../../engine/raw-image';

/** No output side is ever larger than this (spec 4.2: resize values are 1 to 8192). */
export const MAX_OUTPUT_SIDE = 8192;

export type ResizeFit = 'contain' | 'cover' | 'crop';

export interface ResizeRequest {
  width?: number;
  height?: number;
  /** Used when both sides are given; `contain` when absent. */
  fit?: ResizeFit;
  /** At least double the source's size (within MAX_OUTPUT_SIDE) where the size is the source's own. */
  upscale: boolean;
}

/**
 * What happens to the source's shape, decided from its size alone before any pixel is decoded:
 * the size it is resampled to (one resample, straight from the source, whatever the options), an
 * optional window cut out of that at the most interesting place, and an optional canvas it is
 * centred on.
 */
export interface GeometryPlan {
  scaled: Size;
  /**
   * `scale` resamples to `scaled` (the aspect ratio is kept by construction); `cover` fills it, cutting the overflow
   * centred.
   */
  mode: 'scale' | 'cover';
  /** The `crop` fit: cut this window out of the scaled image. */
  window: Size | null;
  /** The `contain` fit: pad the scaled image to this size, centred. */
  canvas: Size | null;
}

const side = (value: number) => Math.min(MAX_OUTPUT_SIDE, Math.max(1, Math.round(value)));

/** The source scaled by `factor`, no side above the maximum. */
function scaledBy(source: Size, factor: number): Size {
  const capped = Math.min(factor, MAX_OUTPUT_SIDE / Math.max(source.width, source.height));
  return { width: side(source.width * capped), height: side(source.height * capped) };
}

/** What a request without a box (no size, or one side) scales the source by: that side's ratio, or the own scale. */
function unboxedFactor(source: Size, { width, height, upscale }: ResizeRequest): number {
  if (width !== undefined) return width / source.width;
  if (height !== undefined) return height / source.height;
  return upscale ? 2 : 1;
}

/**
 * The size a request without a box asks for, before planGeometry caps it at MAX_OUTPUT_SIDE, so a
 * caller can refuse what the cap would shrink; null when both sides are given (each is within the
 * maximum by validation).
 */
export function uncappedSize(source: Size, request: ResizeRequest): Size | null {
  if (request.width !== undefined && request.height !== undefined) return null;
  const factor = unboxedFactor(source, request);
  return { width: Math.round(source.width * factor), height: Math.round(source.height * factor) };
}

/**
 * Plans the resize of spec 4.2. Width or height alone keeps the aspect ratio; both use `fit`:
 * `contain` fits inside and pads to exactly width x height, `cover` fills and cuts the overflow
 * centred, `crop` cuts exactly width x height at the source's own scale, scaling up only when the
 * source is smaller than the box. `upscale` doubles the source's own scale (no resize, or `crop`);
 * with an explicit size the size decides.
 */
export function planGeometry(source: Size, request: ResizeRequest): GeometryPlan {
  const ownScale = request.upscale ? 2 : 1;
  const { width, height } = request;
  const plan = (scaled: Size, extra: Partial<GeometryPlan> = {}): GeometryPlan => ({
    scaled,
    mode: 'scale',
    window: null,
    canvas: null,
    ...extra,
  });
  if (width === undefined || height === undefined) return plan(scaledBy(source, unboxedFactor(source, request)));
  const box = { width: side(width), height: side(height) };
  switch (request.fit ?? 'contain') {
    case 'contain': {
      const factor = Math.min(box.width / source.width, box.height / source.height);
      const inner = {
        width: Math.min(box.width, side(source.width * factor)),
        height: Math.min(box.height, side(source.height * factor)),
      };
      return plan(inner, { canvas: inner.width === box.width && inner.height === box.height ? null : box });
    }
    case 'cover':
      return plan(box, { mode: 'cover' });
    case 'crop': {
      // The own scale, unless the source is smaller than the box: then just enough to cover it.
      const own = Math.min(ownScale, Math.max(1, MAX_OUTPUT_SIDE / Math.max(source.width, source.height)));
      const factor = Math.max(own, box.width / source.width, box.height / source.height);
      const scaled = {
        width: Math.max(box.width, Math.round(source.width * factor)),
        height: Math.max(box.height, Math.round(source.height * factor)),
      };
      return plan(scaled, { window: box });
    }
  }
}
