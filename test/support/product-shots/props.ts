import type { Rgb } from '../image-fixtures';
import { PROP_COLOURS } from './clutter';
import { linear, tone } from './svg';

/**
 * Props for the hard scenes: flat shapes of several families, drawn at any size and rotation,
 * opaque (shaded, with a soft drop shadow), translucent, or close to the product's own colour.
 */

export type PropFamily = 'disc' | 'box' | 'polygon' | 'blob' | 'ring' | 'star' | 'capsule' | 'crescent';

/** The shapes of the 'clutter' backdrop, which refinements have been tuned on so far. */
export const TUNING_PROP_FAMILIES: readonly PropFamily[] = ['disc', 'box', 'polygon'];
/** Shapes nobody tuned on: scores on them tell whether a refinement learnt the product or the props. */
export const HELD_OUT_PROP_FAMILIES: readonly PropFamily[] = ['blob', 'ring', 'star', 'capsule', 'crescent'];
export const PROP_FAMILIES: readonly PropFamily[] = [...TUNING_PROP_FAMILIES, ...HELD_OUT_PROP_FAMILIES];

/** 'look-alike': within about 40 RGB levels of the product's body colour, shading included. */
export type PropMaterial = 'opaque' | 'translucent' | 'look-alike';
export const PROP_MATERIALS: readonly PropMaterial[] = ['opaque', 'translucent', 'look-alike'];

export type Point = readonly [number, number];

/**
 * A shape around the origin, inside the unit circle: its outline, then any holes in it (a ring
 * has one), each a closed list of points dense enough to draw curves as straight segments.
 */
export type Outline = readonly (readonly Point[])[];

/** Points on a circle from angle `from` to `to` (radians), `count` segments, both ends included. */
function arc(cx: number, cy: number, r: number, from: number, to: number, count: number): Point[] {
  return Array.from({ length: count + 1 }, (_, i) => {
    const a = from + ((to - from) * i) / count;
    return [cx + r * Math.cos(a), cy + r * Math.sin(a)] as const;
  });
}

const circle = (r: number): Point[] => arc(0, 0, r, 0, 2 * Math.PI, 180).slice(0, -1);

function roundedBox(w: number, h: number, r: number): Point[] {
  const x = w / 2 - r;
  const y = h / 2 - r;
  const q = Math.PI / 2;
  return [
    ...arc(x, -y, r, -q, 0, 12),
    ...arc(x, y, r, 0, q, 12),
    ...arc(-x, y, r, q, 2 * q, 12),
    ...arc(-x, -y, r, 2 * q, 3 * q, 12),
  ];
}

/** A closed smooth curve: a radius varying with the angle by a few low harmonics. */
function blob(next: () => number): Point[] {
  const harmonics = [0.15, 0.1, 0.05].map((amplitude, i) => ({
    k: i + 2,
    a: amplitude * next(),
    phase: 2 * Math.PI * next(),
  }));
  return Array.from({ length: 180 }, (_, i) => {
    const t = (i / 180) * 2 * Math.PI;
    const r = 0.7 + harmonics.reduce((sum, { k, a, phase }) => sum + a * Math.cos(k * t + phase), 0);
    return [r * Math.cos(t), r * Math.sin(t)] as const;
  });
}

/** The unit disc less a smaller disc shifted right, which cuts it into a crescent opening to the right. */
function crescent(next: () => number): Point[] {
  const cut = 0.75 + 0.2 * next();
  const shift = 0.35 + 0.35 * next();
  const x = (shift * shift + 1 - cut * cut) / (2 * shift);
  const y = Math.sqrt(1 - x * x);
  const outer = Math.atan2(y, x);
  const inner = Math.atan2(y, x - shift);
  return [
    ...arc(0, 0, 1, outer, 2 * Math.PI - outer, 120).slice(0, -1),
    ...arc(shift, 0, cut, 2 * Math.PI - inner, inner, 120).slice(0, -1),
  ];
}

const OUTLINES: Record<PropFamily, (next: () => number) => Outline> = {
  disc: (next) => [circle(0.85 + 0.15 * next())],
  box: (next) => {
    const angle = 0.35 + 0.85 * next();
    const w = 2 * Math.cos(angle);
    const h = 2 * Math.sin(angle);
    return [roundedBox(w, h, (0.04 + 0.14 * next()) * Math.min(w, h))];
  },
  polygon: (next) => {
    const count = 5 + Math.floor(next() * 4);
    return [
      Array.from({ length: count }, (_, i) => {
        const a = ((i + 0.3 * (next() - 0.5)) / count) * 2 * Math.PI;
        const r = 0.5 + 0.5 * next();
        return [r * Math.cos(a), r * Math.sin(a)] as const;
      }),
    ];
  },
  blob: (next) => [blob(next)],
  ring: (next) => {
    const outer = 0.85 + 0.15 * next();
    return [circle(outer), circle(outer * (0.45 + 0.25 * next()))];
  },
  star: (next) => {
    const points = 5 + Math.floor(next() * 3);
    const inner = 0.4 + 0.2 * next();
    return [
      Array.from({ length: 2 * points }, (_, i) => {
        const a = (i / (2 * points)) * 2 * Math.PI - Math.PI / 2;
        const r = i % 2 === 0 ? 1 : inner;
        return [r * Math.cos(a), r * Math.sin(a)] as const;
      }),
    ];
  },
  capsule: (next) => {
    const half = 0.22 + 0.2 * next();
    const length = 1 - half;
    const q = Math.PI / 2;
    return [[...arc(length, 0, half, -q, q, 24), ...arc(-length, 0, half, q, 3 * q, 24)]];
  },
  crescent: (next) => [crescent(next)],
};

export const propOutline = (family: PropFamily, next: () => number): Outline => OUTLINES[family](next);

/** Area of the unit outline: the outline's own less its holes'. */
export function outlineArea(outline: Outline): number {
  const shoelace = (points: readonly Point[]) =>
    Math.abs(
      points.reduce((sum, [x, y], i) => {
        const [nx, ny] = points[(i + 1) % points.length];
        return sum + x * ny - nx * y;
      }, 0),
    ) / 2;
  return outline.reduce((area, contour, i) => area + (i === 0 ? 1 : -1) * shoelace(contour), 0);
}

/** A prop in the shot: its unit outline scaled to `size` pixels, turned by `angle` radians, centred on (x, y). */
export interface Prop {
  family: PropFamily;
  outline: Outline;
  size: number;
  angle: number;
  x: number;
  y: number;
  material: PropMaterial;
  colour: Rgb;
  opacity: number;
}

/** The outline's points scaled and turned, as offsets from the prop's centre; no two more than `spacing` apart. */
export function boundaryOffsets(outline: Outline, size: number, angle: number, spacing = 1.5): Point[] {
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  const offsets: Point[] = [];
  for (const contour of outline) {
    for (const [i, [x0, y0]] of contour.entries()) {
      const [x1, y1] = contour[(i + 1) % contour.length];
      const steps = Math.max(1, Math.ceil((Math.hypot(x1 - x0, y1 - y0) * size) / spacing));
      for (let s = 0; s < steps; s++) {
        const x = (x0 + ((x1 - x0) * s) / steps) * size;
        const y = (y0 + ((y1 - y0) * s) / steps) * size;
        offsets.push([x * cos - y * sin, x * sin + y * cos]);
      }
    }
  }
  return offsets;
}

/** The clutter's colours and a wood brown. */
const STRONG_COLOURS: readonly Rgb[] = [...PROP_COLOURS, [120, 72, 40]];

/** A colour for a prop of `material` near a product whose body is `body`. */
export function propColour(material: PropMaterial, body: Rgb, next: () => number): Rgb {
  if (material === 'look-alike') {
    const jitter = () => (next() - 0.5) * 48;
    return [body[0] + jitter(), body[1] + jitter(), body[2] + jitter()];
  }
  // Clearly unlike the body, so that 'look-alike' is the only material that tests colour confusion.
  const unlike = STRONG_COLOURS.filter((c) => Math.max(...c.map((v, i) => Math.abs(v - body[i]))) > 90);
  return unlike[Math.floor(next() * unlike.length)];
}

/** Opacity of a prop of `material`: translucent ones 0.4-0.7. */
export const propOpacity = (material: PropMaterial, next: () => number): number =>
  material === 'translucent' ? 0.4 + 0.3 * next() : 1;

function pathData(prop: Prop): string {
  const cos = Math.cos(prop.angle);
  const sin = Math.sin(prop.angle);
  return prop.outline
    .map(
      (contour) =>
        'M' +
        contour
          .map(([u, v]) => {
            const x = u * prop.size;
            const y = v * prop.size;
            return `${(prop.x + x * cos - y * sin).toFixed(1)},${(prop.y + x * sin + y * cos).toFixed(1)}`;
          })
          .join(' L') +
        ' Z',
    )
    .join(' ');
}

/**
 * The prop as SVG: its body, shaded from the upper left, and for solid props a soft drop shadow,
 * layers of the shape widened by round-joined strokes (a blur filter would cost tens of milliseconds).
 * `id` must be unique in the document; `side` is the frame's longer side, which the shadow scales with.
 */
export function propSvg(prop: Prop, id: string, side: number): { shadow: string; body: string } {
  const d = pathData(prop);
  const depth = prop.material === 'look-alike' ? 0.05 : prop.material === 'translucent' ? 0.12 : 0.2;
  const fill = linear(
    id,
    [0, 0, 0.7, 1],
    [
      [0, tone(prop.colour, depth)],
      [1, tone(prop.colour, -1.2 * depth)],
    ],
  );
  const body =
    `<defs>${fill}</defs><path d="${d}" fill="url(#${id})" fill-rule="evenodd" ` +
    `opacity="${prop.opacity.toFixed(2)}"/>`;
  if (prop.material === 'translucent') return { shadow: '', body };
  const layers = [0, 0.004, 0.008, 0.013, 0.019, 0.026]
    .map(
      (width) =>
        `<path d="${d}" fill="#000" fill-rule="evenodd" stroke="#000" stroke-width="${(width * side).toFixed(1)}" ` +
        `stroke-linejoin="round" opacity="0.04"/>`,
    )
    .join('');
  return {
    shadow: `<g transform="translate(${(0.005 * side).toFixed(1)} ${(0.008 * side).toFixed(1)})">${layers}</g>`,
    body,
  };
}
