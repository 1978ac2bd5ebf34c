import sharp from 'sharp';
import { toRaw, type RawImage, type Size } from '../raw-image';

/**
 * Built-in studio backdrops for `ai_background` without an image provider: drawn, not generated,
 * and named as such in the catalog. Each is an SVG rendered by libvips, so a backdrop is the
 * same on every machine.
 */
export type StudioBackdropKind = 'seamless_paper' | 'soft_gradient' | 'floor_horizon';

export interface StudioBackdrop {
  kind: StudioBackdropKind;
  name: string;
  /** Where the subject stands, as a share of the canvas height from the top (its lowest row goes here). */
  floorLine: number;
  svg(size: Size): string;
}

/**
 * Seamless paper: one colour, a touch lighter where the light falls (top centre) and a touch
 * darker where the paper curves away at the bottom, as a lit sweep looks.
 */
function paper(name: string, colour: string, shade: string): StudioBackdrop {
  return {
    kind: 'seamless_paper',
    name,
    floorLine: 0.86,
    svg: ({ width, height }) => `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
      <defs>
        <radialGradient id="light" cx="50%" cy="30%" r="80%">
          <stop offset="0" stop-color="#ffffff" stop-opacity="0.35"/>
          <stop offset="1" stop-color="#ffffff" stop-opacity="0"/>
        </radialGradient>
        <linearGradient id="sweep" x1="0" y1="0" x2="0" y2="1">
          <stop offset="0.6" stop-color="${shade}" stop-opacity="0"/>
          <stop offset="1" stop-color="${shade}" stop-opacity="0.45"/>
        </linearGradient>
      </defs>
      <rect width="100%" height="100%" fill="${colour}"/>
      <rect width="100%" height="100%" fill="url(#light)"/>
      <rect width="100%" height="100%" fill="url(#sweep)"/>
    </svg>`,
  };
}

/** A soft two-colour gradient, diagonal, with a glow behind where the subject stands. */
function gradient(name: string, from: string, to: string): StudioBackdrop {
  return {
    kind: 'soft_gradient',
    name,
    floorLine: 0.84,
    svg: ({ width, height }) => `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
      <defs>
        <linearGradient id="wash" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stop-color="${from}"/>
          <stop offset="1" stop-color="${to}"/>
        </linearGradient>
        <radialGradient id="glow" cx="50%" cy="55%" r="45%">
          <stop offset="0" stop-color="#ffffff" stop-opacity="0.4"/>
          <stop offset="1" stop-color="#ffffff" stop-opacity="0"/>
        </radialGradient>
      </defs>
      <rect width="100%" height="100%" fill="url(#wash)"/>
      <rect width="100%" height="100%" fill="url(#glow)"/>
    </svg>`,
  };
}

/** A wall and a floor meeting at a soft horizon; the subject stands on the floor in front of it. */
function floor(name: string, wall: string, ground: string): StudioBackdrop {
  const horizon = 0.62;
  return {
    kind: 'floor_horizon',
    name,
    floorLine: 0.88,
    svg: ({ width, height }) => `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
      <defs>
        <linearGradient id="wall" x1="0" y1="0" x2="0" y2="1">
          <stop offset="0" stop-color="${wall}"/>
          <stop offset="1" stop-color="${wall}" stop-opacity="0.85"/>
        </linearGradient>
        <linearGradient id="ground" x1="0" y1="0" x2="0" y2="1">
          <stop offset="0" stop-color="${ground}" stop-opacity="0.8"/>
          <stop offset="1" stop-color="${ground}"/>
        </linearGradient>
        <linearGradient id="seam" x1="0" y1="0" x2="0" y2="1">
          <stop offset="0" stop-color="#000000" stop-opacity="0"/>
          <stop offset="0.5" stop-color="#000000" stop-opacity="0.12"/>
          <stop offset="1" stop-color="#000000" stop-opacity="0"/>
        </linearGradient>
      </defs>
      <rect width="100%" height="100%" fill="#ffffff"/>
      <rect width="100%" height="${Math.round(height * horizon)}" fill="url(#wall)"/>
      <rect y="${Math.round(height * horizon)}" width="100%" height="${height - Math.round(height * horizon)}" fill="url(#ground)"/>
      <rect y="${Math.round(height * (horizon - 0.03))}" width="100%" height="${Math.round(height * 0.06)}" fill="url(#seam)"/>
    </svg>`,
  };
}

/** In the order variants take them, so the `number_of_images` variants of a source each get another backdrop. */
export const STUDIO_BACKDROPS: readonly StudioBackdrop[] = [
  paper('warm grey seamless paper', '#d9d4cc', '#8d857a'),
  floor('sand wall on an oak floor', '#eee3d3', '#b98e5f'),
  gradient('sage to cream gradient', '#a9bfa8', '#f3ecdc'),
  paper('powder blue seamless paper', '#c9dbe8', '#6f8aa0'),
  floor('white wall on a concrete floor', '#f4f4f2', '#9d9c98'),
  gradient('blush to peach gradient', '#f0c9c4', '#f8e2c8'),
];

export function studioBackdropFor(variant: number): StudioBackdrop {
  return STUDIO_BACKDROPS[variant % STUDIO_BACKDROPS.length];
}

/** The backdrop drawn at `size`, as RGB pixels. */
export async function renderStudioBackdrop(backdrop: StudioBackdrop, size: Size): Promise<RawImage> {
  return toRaw(sharp(Buffer.from(backdrop.svg(size))).resize(size.width, size.height, { fit: 'fill' }).removeAlpha());
}
