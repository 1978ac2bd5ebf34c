import type { Size } from '../raw-image';
import type { Frame } from './cutout-layers';

/** One side's padding: pixels, or a percent of the canvas side in its direction (width for left and right). */
export type PaddingLength = { px: number } | { percent: number };

export interface LayoutPadding {
  top: PaddingLength;
  right: PaddingLength;
  bottom: PaddingLength;
  left: PaddingLength;
}

/** The product's box within the padded box: fitted inside, covering it, or a percent of the fitted size. */
export type LayoutScale = { kind: 'fit' } | { kind: 'fill' } | { kind: 'percent'; percent: number };

/** A client's placement on a canvas (the `placement` request member), its defaults applied. */
export interface CanvasLayout {
  kind: 'layout';
  /** The canvas; null takes the photo's size as the cut-out decodes it. */
  size: Size | null;
  padding: LayoutPadding;
  horizontal: 'left' | 'center' | 'right';
  vertical: 'top' | 'center' | 'bottom';
  scale: LayoutScale;
  /** Whether the product's box takes in its shadow (its bounds where at least SHADOW_FRAME_THRESHOLD opaque). */
  shadowInBox: boolean;
}

/** Where a cut-out is placed in its result. */
export type Placement =
  /** The photo's own frame and size. */
  | { kind: 'source' }
  /** The subject (and its shadow) with `marginPercent` of its longer side on every side, at the source's scale. */
  | { kind: 'crop'; marginPercent: number }
  /** Centred on a `width` x `height` canvas, its bounding box filling `fill` of the canvas along the tighter side. */
  | { kind: 'canvas'; width: number; height: number; fill: number }
  /** The product's box scaled into the padded box of a canvas and aligned there (see planLayout). */
  | CanvasLayout;

export interface FramePlan {
  /** The part of the source (possibly reaching past its edges) that becomes the result. */
  frame: Frame;
  /** The result's size in pixels. */
  size: Size;
}

/**
 * Plans the result's frame from the subject's bounds (`subject`, null when nothing was found:
 * then the whole photo is kept). Margins are even on every side: a crop reaching past the photo
 * pads it with the background rather than cutting a margin short.
 */
export function planFrame(source: Size, subject: Frame | null, placement: Placement): FramePlan {
  const whole = { frame: { left: 0, top: 0, ...source }, size: source };
  if (placement.kind === 'layout') return planLayout(source, subject ?? whole.frame, placement);
  if (placement.kind === 'source' || !subject) {
    if (placement.kind !== 'canvas') return whole;
    return planFrame(source, { left: 0, top: 0, ...source }, placement);
  }
  if (placement.kind === 'crop') {
    const margin = Math.round((Math.max(subject.width, subject.height) * placement.marginPercent) / 100);
    const frame = {
      left: subject.left - margin,
      top: subject.top - margin,
      width: subject.width + 2 * margin,
      height: subject.height + 2 * margin,
    };
    return { frame, size: { width: frame.width, height: frame.height } };
  }
  // Source pixels per canvas pixel, so the subject's box fills `fill` of the canvas where it is tighter.
  const perPixel = Math.max(subject.width / placement.width, subject.height / placement.height) / placement.fill;
  const width = Math.max(1, Math.round(placement.width * perPixel));
  const height = Math.max(1, Math.round(placement.height * perPixel));
  const centreX = subject.left + subject.width / 2;
  const centreY = subject.top + subject.height / 2;
  return {
    frame: { left: Math.round(centreX - width / 2), top: Math.round(centreY - height / 2), width, height },
    size: { width: placement.width, height: placement.height },
  };
}

/** The smallest frame holding both (either may be null). */
export function union(a: Frame | null, b: Frame | null): Frame | null {
  if (!a || !b) return a ?? b;
  const left = Math.min(a.left, b.left);
  const top = Math.min(a.top, b.top);
  return {
    left,
    top,
    width: Math.max(a.left + a.width, b.left + b.width) - left,
    height: Math.max(a.top + a.height, b.top + b.height) - top,
  };
}

/** The canvas of a layout and the box its padding leaves, in canvas pixels; null when the padding leaves no room. */
export function paddedBox(source: Size, layout: CanvasLayout): { canvas: Size; box: Frame } | null {
  // Only the sides: `source` may be the photo itself, whose pixels must not travel with a size.
  const canvas = layout.size ?? { width: source.width, height: source.height };
  const { padding } = layout;
  const left = paddingPixels(padding.left, canvas.width);
  const right = paddingPixels(padding.right, canvas.width);
  const top = paddingPixels(padding.top, canvas.height);
  const bottom = paddingPixels(padding.bottom, canvas.height);
  const box = { left, top, width: canvas.width - left - right, height: canvas.height - top - bottom };
  return box.width > 0 && box.height > 0 ? { canvas, box } : null;
}

/** A percent of a canvas side is rounded to the nearest pixel (half up). */
function paddingPixels(length: PaddingLength, side: number): number {
  return 'px' in length ? length.px : Math.round((length.percent * side) / 100);
}

/** Where the product's box lands on a layout's canvas, in whole canvas pixels. */
export interface LayoutPlan extends FramePlan {
  /** The product's box on the canvas (it may reach past the canvas with `fill`). */
  placed: Frame;
}

/**
 * The frame that puts the product's box (`subject`: its alpha bounds, with its shadow's when the
 * layout says so) on the canvas, to the pixel:
 *
 * - the padded box is the canvas less its padding (a percent of a side rounded half up);
 * - the scale `s` is `fit` min(padded width / box width, padded height / box height), `fill` the
 *   max of the two, `N%` N/100 of `fit`;
 * - the placed box is round(box width x s) by round(box height x s) (at least 1), so each side is
 *   a whole number of pixels and the aspect ratio moves by less than half a pixel;
 * - left and top alignment put it at the padded box's left or top, right and bottom flush with its
 *   far side, center at floor((padded - placed) / 2) in from the near side: an odd pixel goes to the
 *   right and bottom.
 *
 * The frame is in source pixels and need not be whole: the box's edges map onto the placed box's.
 */
export function planLayout(source: Size, subject: Frame, layout: CanvasLayout): LayoutPlan {
  const padded = paddedBox(source, layout);
  if (!padded) throw new Error('the padding leaves no room on the canvas');
  const { canvas, box } = padded;
  const fit = Math.min(box.width / subject.width, box.height / subject.height);
  const scale =
    layout.scale.kind === 'fit'
      ? fit
      : layout.scale.kind === 'fill'
        ? Math.max(box.width / subject.width, box.height / subject.height)
        : (fit * layout.scale.percent) / 100;
  const width = Math.max(1, Math.round(subject.width * scale));
  const height = Math.max(1, Math.round(subject.height * scale));
  const placed = {
    left: aligned(box.left, box.width, width, layout.horizontal),
    top: aligned(box.top, box.height, height, layout.vertical),
    width,
    height,
  };
  const perPixelX = subject.width / width;
  const perPixelY = subject.height / height;
  return {
    frame: {
      left: subject.left - placed.left * perPixelX,
      top: subject.top - placed.top * perPixelY,
      width: canvas.width * perPixelX,
      height: canvas.height * perPixelY,
    },
    size: canvas,
    placed,
  };
}

function aligned(
  start: number,
  room: number,
  length: number,
  alignment: CanvasLayout['horizontal'] | CanvasLayout['vertical'],
): number {
  if (alignment === 'left' || alignment === 'top') return start;
  if (alignment === 'right' || alignment === 'bottom') return start + room - length;
  return start + Math.floor((room - length) / 2);
}
