import { random, type Rgb } from '../image-fixtures';

/** SVG and colour helpers shared by the product drawings and the backdrops. */

export const WHITE: Rgb = [255, 255, 255];
export const BLACK: Rgb = [0, 0, 0];

export function hex([r, g, b]: Rgb): string {
  const byte = (value: number) =>
    Math.max(0, Math.min(255, Math.round(value)))
      .toString(16)
      .padStart(2, '0');
  return `#${byte(r)}${byte(g)}${byte(b)}`;
}

export function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

/** `colour` lit (k > 0, towards white) or shaded (k < 0, towards black) by |k|. */
export function tone(colour: Rgb, k: number): Rgb {
  return k >= 0 ? mix(colour, WHITE, k) : mix(colour, BLACK, -k);
}

/** A gradient stop: offset 0..1, colour, opacity. */
export type Stop = [number, Rgb, number?];

const stopsOf = (stops: Stop[]) =>
  stops
    .map(
      ([offset, colour, opacity = 1]) =>
        `<stop offset="${offset}" stop-color="${hex(colour)}" stop-opacity="${opacity}"/>`,
    )
    .join('');

/** A linear gradient along (x1, y1) -> (x2, y2), in the painted shape's bounding box unless `user`. */
export function linear(id: string, [x1, y1, x2, y2]: number[], stops: Stop[], user = false): string {
  const units = user ? ' gradientUnits="userSpaceOnUse"' : '';
  return (
    `<linearGradient id="${id}" x1="${x1}" y1="${y1}" x2="${x2}" ` +
    `y2="${y2}"${units}>${stopsOf(stops)}</linearGradient>`
  );
}

/** A radial gradient of centre (cx, cy), radius r and focus (fx, fy), in bounding-box units unless `user`. */
export function radial(id: string, [cx, cy, r, fx = cx, fy = cy]: number[], stops: Stop[], user = false): string {
  const units = user ? ' gradientUnits="userSpaceOnUse"' : '';
  return (
    `<radialGradient id="${id}" cx="${cx}" cy="${cy}" r="${r}" fx="${fx}" ` +
    `fy="${fy}"${units}>${stopsOf(stops)}</radialGradient>`
  );
}

/**
 * The light across a vertical cylinder lit from the upper left, as a black and white overlay:
 * dark flanks, a bright band left of the middle, a faint rim light on the right.
 */
export function cylinderShade(id: string, depth = 1): string {
  return linear(
    id,
    [0, 0, 1, 0],
    [
      [0, BLACK, 0.62 * depth],
      [0.1, BLACK, 0.3 * depth],
      [0.24, WHITE, 0.2 * depth],
      [0.34, WHITE, 0.04 * depth],
      [0.55, BLACK, 0.08 * depth],
      [0.84, BLACK, 0.42 * depth],
      [0.95, BLACK, 0.55 * depth],
      [1, WHITE, 0.12 * depth],
    ],
  );
}

export function svgDocument(width: number, height: number, body: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}">${body}</svg>`
  );
}

/** Smooth value noise in 0..1, one lattice cell per unit, repeating every 256 units. */
export function valueNoise(seed: number): (x: number, y: number) => number {
  const next = random(seed);
  const lattice = new Float32Array(256 * 256);
  for (let i = 0; i < lattice.length; i++) lattice[i] = next();
  return (x, y) => {
    const xf = Math.floor(x);
    const yf = Math.floor(y);
    const tx = x - xf;
    const ty = y - yf;
    const sx = tx * tx * (3 - 2 * tx);
    const sy = ty * ty * (3 - 2 * ty);
    const x0 = xf & 255;
    const x1 = (x0 + 1) & 255;
    const y0 = (yf & 255) << 8;
    const y1 = ((yf + 1) & 255) << 8;
    const a = lattice[y0 + x0];
    const b = lattice[y0 + x1];
    const c = lattice[y1 + x0];
    const d = lattice[y1 + x1];
    return a + (b - a) * sx + (c - a) * sy + (a - b - c + d) * sx * sy;
  };
}

/** A 32-bit FNV-1a hash, to turn a shot's name and seed into a generator seed. */
export function hashSeed(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * A soft white highlight fading from its centre, the look of a blurred ellipse without the cost
 * of a blur filter (tens of milliseconds each in librsvg). Needs `glow()` in the document's defs.
 */
export function highlight(cx: number, cy: number, rx: number, ry: number, opacity: number, rotation = 0): string {
  const turn = rotation ? ` transform="rotate(${rotation} ${cx} ${cy})"` : '';
  return `<ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}" fill="url(#glow)" fill-opacity="${opacity}"${turn}/>`;
}

export const glow = () =>
  radial(
    'glow',
    [0.5, 0.5, 0.5],
    [
      [0, WHITE, 1],
      [0.45, WHITE, 0.65],
      [1, WHITE, 0],
    ],
  );
