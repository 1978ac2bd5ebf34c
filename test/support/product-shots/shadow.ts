import type { Stage } from './stage';
import { BLACK, radial } from './svg';

/**
 * A soft shadow where the product meets the floor (the mask does not include it): ellipses
 * filled with radial gradients, which look like blurred ellipses at a fraction of a blur's cost.
 */
export function contactShadow(stage: Stage, strength: number, cast = 0): string {
  const { placement: box, drawing, height } = stage;
  const base = box.top + box.height;
  const footLeft = box.left + drawing.footprint[0] * box.width;
  const footRight = box.left + drawing.footprint[1] * box.width;
  const centre = (footLeft + footRight) / 2;
  const half = Math.max((footRight - footLeft) / 2, 0.16 * box.width);
  const depth = drawing.footprint[2] * box.height;
  const middle = base - depth / 2;
  const ellipse = (id: string, cx: number, cy: number, rx: number, ry: number, opacity: number, core: number) =>
    `<defs>${radial(
      id,
      [0.5, 0.5, 0.5],
      [
        [0, BLACK, opacity],
        [core, BLACK, opacity * 0.75],
        [1, BLACK, 0],
      ],
    )}</defs><ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}" fill="url(#${id})"/>`;
  const blurred = 0.02 * height;
  return (
    ellipse('shadow-soft', centre, middle, half * 1.15 + blurred, depth * 0.6 + 0.03 * height, 0.36 * strength, 0.35) +
    ellipse('shadow-contact', centre, middle, half + 0.008 * height, depth / 2 + 0.014 * height, 0.72 * strength, 0.8) +
    (cast > 0
      ? ellipse(
          'shadow-cast',
          centre + 0.22 * box.width,
          middle - 0.01 * height,
          half * 1.3 + 0.12 * box.width + blurred,
          depth / 2 + 0.03 * height + blurred,
          0.22 * cast,
          0.3,
        )
      : '')
  );
}
