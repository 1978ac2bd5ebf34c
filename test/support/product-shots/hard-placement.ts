import type { ProductDrawing } from './products/product';
import type { Placement } from './render';

const clamp = (value: number, low: number, high: number) => Math.max(low, Math.min(high, value));

/**
 * The product's box covering `area` of the frame, centred on (cx, cy) in frame fractions, made
 * smaller where it would not fit: at most 84% of the height and 72% of the width (as for the
 * plain shots), and inside the frame with a 3% margin around that centre, so an off-centre product
 * stays off-centre instead of being pushed back.
 */
export function placeAt(
  drawing: ProductDrawing,
  width: number,
  height: number,
  area: number,
  cx: number,
  cy: number,
): Placement {
  const x = cx * width;
  const y = cy * height;
  const scale = Math.min(
    Math.sqrt((area * width * height) / (drawing.width * drawing.height)),
    (0.84 * height) / drawing.height,
    (0.72 * width) / drawing.width,
    (2 * Math.min(x, width - x) - 0.06 * width) / drawing.width,
  );
  const boxWidth = drawing.width * scale;
  const boxHeight = drawing.height * scale;
  return {
    scale,
    left: clamp(x - boxWidth / 2, 0.03 * width, 0.97 * width - boxWidth),
    top: clamp(y - boxHeight / 2, 0.03 * height, 0.97 * height - boxHeight),
    width: boxWidth,
    height: boxHeight,
  };
}

/**
 * The product filling 80-95% of the frame's width or height, whichever it meets first, centred
 * with a seeded offset that keeps it whole inside the frame.
 */
export function fillFrame(drawing: ProductDrawing, width: number, height: number, next: () => number): Placement {
  const scale = (0.8 + 0.15 * next()) * Math.min(width / drawing.width, height / drawing.height);
  const boxWidth = drawing.width * scale;
  const boxHeight = drawing.height * scale;
  const slackX = width - boxWidth;
  const slackY = height - boxHeight;
  return {
    scale,
    left: slackX * (0.5 + 0.3 * (next() - 0.5)),
    top: slackY * (0.5 + 0.3 * (next() - 0.5)),
    width: boxWidth,
    height: boxHeight,
  };
}
