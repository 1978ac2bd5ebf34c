import type { Size } from '../../core/image/raw-image';
import type { Frame } from './cutout-layers';

/** Where a cut-out is placed in its result. */
export type Placement =
  /** The photo's own frame and size. */
  | { kind: 'source' }
  /** The subject (and its shadow) with `marginPercent` of its longer side on every side, at the source's scale. */
  | { kind: 'crop'; marginPercent: number }
  /** Centred on a `width` x `height` canvas, its bounding box filling `fill` of the canvas along the tighter side. */
  | { kind: 'canvas'; width: number; height: number; fill: number };

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
