import { paddedBox, type CanvasLayout, type PaddingLength, type Placement } from '../../../engine/compose/framing';
import type { Size } from '../../../engine/raw-image';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import type { StoredPaddingLength, StoredPlacement } from '../tool-options';

/** A stored padding length: whole pixels, or "N%" (validated at create). */
function paddingLength(value: StoredPaddingLength): PaddingLength {
  return typeof value === 'number' ? { px: value } : { percent: Number(value.replace('%', '')) };
}

/** A placement as the job stores it, as the image engine plans it (see planLayout). */
export function canvasLayoutOf(placement: StoredPlacement): CanvasLayout {
  const { padding, scale } = placement;
  return {
    kind: 'layout',
    size:
      placement.width !== undefined && placement.height !== undefined
        ? { width: placement.width, height: placement.height }
        : null,
    padding: {
      top: paddingLength(padding.top),
      right: paddingLength(padding.right),
      bottom: paddingLength(padding.bottom),
      left: paddingLength(padding.left),
    },
    horizontal: placement.horizontal_alignment,
    vertical: placement.vertical_alignment,
    scale:
      scale === 'fit' || scale === 'fill' ? { kind: scale } : { kind: 'percent', percent: Number(scale.slice(0, -1)) },
    shadowInBox: placement.shadow_in_box,
  };
}

/**
 * Refuses, before any pixel work, a layout whose padding leaves no room on a canvas of the photo's
 * own size (only the source shows that; a canvas of a given size is checked at create).
 */
export function checkRoomOnCanvas(layout: CanvasLayout, photo: Size): void {
  if (paddedBox(photo, layout)) return;
  throw new ResultFailure(
    ResultErrorCode.ProcessingFailed,
    `The placement's padding leaves no room on this ${photo.width} x ${photo.height} canvas (the source's size). ` +
      'Give a smaller padding, or a canvas width and height.',
  );
}

/**
 * A canvas holds the placed layers (colour, alpha, shadow) and the composite beside the photo's
 * own layers, so it takes this many shares of the pixel budget per canvas pixel.
 */
const CANVAS_LAYERS = 2;

/**
 * The pixel budget a placement's canvas adds to its result's (none without one); a background
 * photo, decoded to cover the canvas, is one canvas layer more.
 */
export function canvasPixels(placement: Placement | null, photo: Size, backdrop: boolean): number {
  if (placement?.kind !== 'layout') return 0;
  const canvas = placement.size ?? photo;
  return canvas.width * canvas.height * (CANVAS_LAYERS + (backdrop ? 1 : 0));
}
