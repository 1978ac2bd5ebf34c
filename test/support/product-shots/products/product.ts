import type { Rgb } from '../../image-fixtures';

/** A product's colours: `body` is the dominant one, which the 'similar' backdrop imitates. */
export interface Palette {
  body: Rgb;
  trim: Rgb;
  accent: Rgb;
  detail: Rgb;
}

/**
 * A product drawn in its own units, in a box `width` x `height` that it fills edge to edge.
 * Every mark of `draw` is opaque or lies inside an opaque shape, so the rendered alpha is the
 * product's silhouette and nothing else.
 */
export interface ProductDrawing {
  width: number;
  height: number;
  /**
   * Where it stands on the floor, for contact shadows: from left to right as fractions of the
   * width, and how far up from the bottom the floor contact reaches as a fraction of the height
   * (a carton's base, seen from above, is a parallelogram).
   */
  footprint: readonly [number, number, number];
  /** Its own colours, and a white or cream version for the 'light' backdrop. */
  colours: Palette;
  light: Palette;
  /** Surface texture (fabric, wood, board): feature size in drawing units along x and y, and strength. */
  grain?: { size: readonly [number, number]; strength: number };
  draw(palette: Palette): string;
}
