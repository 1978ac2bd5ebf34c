import type { GeometryPlan } from '../../../core/image/geometry';
import type { WindowPosition } from '../../../engine/interesting-region';
import type { SubjectHints } from '../../../engine/mask/subject-hints';
import type { Size } from '../../../engine/raw-image';

/** A part of the source image, in fractions of its width and height. */
export interface SourcePart {
  left: number;
  top: number;
  width: number;
  height: number;
}

const clamp = (value: number) => Math.min(1, Math.max(0, value));

/**
 * Which part of the source the edit's working pixels show: all of it, unless `cover` cut the
 * overflow off centred while resampling, or `crop` cut `window` out of the resampled image.
 */
export function visiblePart(source: Size, plan: GeometryPlan, window: WindowPosition | null): SourcePart {
  const { scaled } = plan;
  if (plan.mode === 'cover') {
    const factor = Math.max(scaled.width / source.width, scaled.height / source.height);
    const width = Math.min(1, scaled.width / (source.width * factor));
    const height = Math.min(1, scaled.height / (source.height * factor));
    return { left: (1 - width) / 2, top: (1 - height) / 2, width, height };
  }
  if (window && plan.window) {
    return {
      left: window.left / scaled.width,
      top: window.top / scaled.height,
      width: plan.window.width / scaled.width,
      height: plan.window.height / scaled.height,
    };
  }
  return { left: 0, top: 0, width: 1, height: 1 };
}

/**
 * The client's hints, given in fractions of the whole source, in fractions of `part` instead,
 * since that is what the segmenter sees. The region is clipped to the part (one that misses it
 * entirely shrinks to its edge: the product is not in the picture); keep points outside the part
 * are dropped, their piece of the product having been cut away.
 */
export function hintsInPart(hints: SubjectHints, part: SourcePart): SubjectHints {
  const x = (value: number) => (value - part.left) / part.width;
  const y = (value: number) => (value - part.top) / part.height;
  const { region } = hints;
  return {
    region: region && {
      left: clamp(x(region.left)),
      top: clamp(y(region.top)),
      right: clamp(x(region.right)),
      bottom: clamp(y(region.bottom)),
    },
    keepPoints: hints.keepPoints
      .map((point) => ({ x: x(point.x), y: y(point.y) }))
      .filter((point) => point.x >= 0 && point.x <= 1 && point.y >= 0 && point.y <= 1),
  };
}
