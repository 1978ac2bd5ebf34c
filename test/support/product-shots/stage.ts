import type { Palette, ProductDrawing } from './products/product';
import type { Placement } from './render';

export type Backdrop = 'studio' | 'gradient' | 'tabletop' | 'clutter' | 'similar' | 'light';

/** What a backdrop knows of the shot it goes behind. */
export interface Stage {
  width: number;
  height: number;
  drawing: ProductDrawing;
  palette: Palette;
  placement: Placement;
  /** The product's mask (255 inside), for backdrops that must keep clear of it. */
  mask: Uint8Array;
  next: () => number;
  seed: number;
  /** SVG drawn over the backdrop, behind the product and under its contact shadow: the hard scenes' props. */
  props?: string;
}

/** A backdrop as SVG, and optionally a texture multiplying its pixels (wood grain). */
export interface BackdropLayer {
  svg: string;
  grain?: (x: number, y: number) => number;
}

export const pick = <T>(items: readonly T[], next: () => number): T => items[Math.floor(next() * items.length)];
