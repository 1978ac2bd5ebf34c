import type { Rgba } from '../raw-image';

export const WHITE: Rgba = { r: 255, g: 255, b: 255, alpha: 1 };

/** A validated `#RRGGBB` (the DTOs check the form) as an opaque colour. */
export function opaqueColour(hex: string): Rgba {
  const value = Number.parseInt(hex.slice(1), 16);
  return { r: (value >> 16) & 255, g: (value >> 8) & 255, b: value & 255, alpha: 1 };
}
