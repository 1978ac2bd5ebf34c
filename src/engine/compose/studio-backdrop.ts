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

/** A gradient stop: where (0 to 1), its colour, and how opaque (1 unless given). */
type Stop = [offset: number, colour: string, opacity?: number];

const stops = (list: Stop[]) =>
  list
    .map(
      ([offset, colour, opacity = 1]) => `<stop offset="${offset}" stop-color="${colour}" stop-opacity="${opacity}"/>`,
    )
    .join('');

/** A linear gradient from top to bottom, or from the top-left to the bottom-right corner. */
const linear = (id: string, direction: 'down' | 'diagonal', list: Stop[]) =>
  `<linearGradient id="${id}" x1="0" y1="0" x2="${direction === 'diagonal' ? 1 : 0}" ` +
  `y2="1">${stops(list)}</linearGradient>`;

/** A radial gradient centred at (cx, cy) with radius r, each a share of the canvas. */
const radial = (id: string, cx: number, cy: number, r: number, list: Stop[]) =>
  `<radialGradient id="${id}" cx="${cx * 100}%" cy="${cy * 100}%" r="${r * 100}%">${stops(list)}</radialGradient>`;

/** A band of the canvas's full width from `top` down `height` pixels (the whole canvas by default). */
const band = (fill: string, top?: number, height?: number) =>
  `<rect${top === undefined ? '' : ` y="${top}"`} width="100%" height="${height ?? '100%'}" fill="${fill}"/>`;

const svg = ({ width, height }: Size, gradients: string[], bands: string[]) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" ` +
  `height="${height}"><defs>${gradients.join('')}</defs>${bands.join('')}</svg>`;

/**
 * Seamless paper: one colour, a touch lighter where the light falls (top centre) and a touch
 * darker where the paper curves away at the bottom, as a lit sweep looks.
 */
function paper(name: string, colour: string, shade: string): StudioBackdrop {
  const gradients = [
    radial('light', 0.5, 0.3, 0.8, [
      [0, '#ffffff', 0.35],
      [1, '#ffffff', 0],
    ]),
    linear('sweep', 'down', [
      [0.6, shade, 0],
      [1, shade, 0.45],
    ]),
  ];
  return {
    kind: 'seamless_paper',
    name,
    floorLine: 0.86,
    svg: (size) => svg(size, gradients, [band(colour), band('url(#light)'), band('url(#sweep)')]),
  };
}

/** A soft two-colour gradient, diagonal, with a glow behind where the subject stands. */
function gradient(name: string, from: string, to: string): StudioBackdrop {
  const gradients = [
    linear('wash', 'diagonal', [
      [0, from],
      [1, to],
    ]),
    radial('glow', 0.5, 0.55, 0.45, [
      [0, '#ffffff', 0.4],
      [1, '#ffffff', 0],
    ]),
  ];
  return {
    kind: 'soft_gradient',
    name,
    floorLine: 0.84,
    svg: (size) => svg(size, gradients, [band('url(#wash)'), band('url(#glow)')]),
  };
}

/** A wall and a floor meeting at a soft horizon; the subject stands on the floor in front of it. */
function floor(name: string, wall: string, ground: string): StudioBackdrop {
  const horizon = 0.62;
  const gradients = [
    linear('wall', 'down', [
      [0, wall],
      [1, wall, 0.85],
    ]),
    linear('ground', 'down', [
      [0, ground, 0.8],
      [1, ground],
    ]),
    linear('seam', 'down', [
      [0, '#000000', 0],
      [0.5, '#000000', 0.12],
      [1, '#000000', 0],
    ]),
  ];
  return {
    kind: 'floor_horizon',
    name,
    floorLine: 0.88,
    svg: (size) => {
      const wallHeight = Math.round(size.height * horizon);
      return svg(size, gradients, [
        band('#ffffff'),
        band('url(#wall)', 0, wallHeight),
        band('url(#ground)', wallHeight, size.height - wallHeight),
        band('url(#seam)', Math.round(size.height * (horizon - 0.03)), Math.round(size.height * 0.06)),
      ]);
    },
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
  return toRaw(
    sharp(Buffer.from(backdrop.svg(size)))
      .resize(size.width, size.height, { fit: 'fill' })
      .removeAlpha(),
  );
}
