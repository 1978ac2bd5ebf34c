import type { Rgb } from '../image-fixtures';
import { smallestGap, type Clearance } from './distance';
import {
  boundaryOffsets,
  outlineArea,
  propColour,
  propOpacity,
  propOutline,
  type Outline,
  type Point,
  type Prop,
  type PropFamily,
  type PropMaterial,
} from './props';

/**
 * Where props go around the product: against it (a gap of 0-2 pixels), partly behind it, apart
 * from it, or beside it. Every prop is drawn behind the product, so the product's silhouette
 * stays the ground truth; what they change is how much of the backdrop looks like the product.
 */

/** The product as the props see it, and the shot's prop family and material. */
export interface Surroundings {
  width: number;
  height: number;
  field: Clearance;
  /** The silhouette's centroid, the row below its lowest pixel, and its farthest pixel from the centroid. */
  centroid: Point;
  base: number;
  reach: number;
  /**
   * The product's size in pixels, to size props by: the geometric mean of the square roots of
   * its silhouette's and its box's areas, so thin products (frames, lamps) still meet props of
   * a size that looks right next to them.
   */
  scale: number;
  body: Rgb;
  family: PropFamily;
  material: PropMaterial;
  next: () => number;
}

/** The product's silhouette measured from its mask: its area in pixels, and what Surroundings needs. */
export function silhouette(
  mask: Uint8Array,
  width: number,
  height: number,
): Pick<Surroundings, 'centroid' | 'base' | 'reach'> & { area: number } {
  let area = 0;
  let sx = 0;
  let sy = 0;
  let base = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (mask[y * width + x] < 128) continue;
      area++;
      sx += x + 0.5;
      sy += y + 0.5;
      base = y + 1;
    }
  }
  const centroid: Point = [sx / area, sy / area];
  let reach = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (mask[y * width + x] >= 128) reach = Math.max(reach, Math.hypot(x + 0.5 - centroid[0], y + 0.5 - centroid[1]));
    }
  }
  return { area, centroid, base, reach };
}

/** A prop being placed, with its outline sampled as offsets from its centre. */
interface Candidate {
  outline: Outline;
  size: number;
  angle: number;
  offsets: Point[];
}

function candidate(outline: Outline, size: number, angle: number): Candidate {
  return { outline, size, angle, offsets: boundaryOffsets(outline, size, angle) };
}

/** A candidate of the shot's family, `size` pixels in radius, turned at random. */
function randomCandidate(s: Surroundings, size: number): Candidate {
  return candidate(propOutline(s.family, s.next), size, s.next() * 2 * Math.PI);
}

function finish(c: Candidate, [x, y]: Point, s: Surroundings, material: PropMaterial = s.material): Prop {
  return {
    family: s.family,
    outline: c.outline,
    size: c.size,
    angle: c.angle,
    x,
    y,
    material,
    colour: propColour(material, s.body, s.next),
    opacity: propOpacity(material, s.next),
  };
}

const extent = (c: Candidate, [dx, dy]: Point) => {
  const along = c.offsets.map(([x, y]) => x * dx + y * dy);
  return Math.max(...along) - Math.min(...along);
};
const lowest = (c: Candidate) => Math.max(...c.offsets.map(([, y]) => y));
const highest = (c: Candidate) => Math.min(...c.offsets.map(([, y]) => y));

/** Share of the outline inside the frame. */
function framed(c: Candidate, [x, y]: Point, s: Surroundings): number {
  const inside = c.offsets.filter(([dx, dy]) => x + dx >= 0 && y + dy >= 0 && x + dx < s.width && y + dy < s.height);
  return inside.length / c.offsets.length;
}

/** Share of the outline hidden behind the product. */
function hidden(c: Candidate, [x, y]: Point, s: Surroundings): number {
  return c.offsets.filter(([dx, dy]) => s.field.inside(x + dx, y + dy)).length / c.offsets.length;
}

/** Clear of the props placed so far: their bounding circles overlap by at most 15% of the radii. */
const clearOf = (c: Candidate, [x, y]: Point, placed: readonly Prop[]) =>
  placed.every((p) => Math.hypot(p.x - x, p.y - y) >= 0.85 * (p.size + c.size));

/**
 * Moves the candidate from `start` along the unit `direction` until its outline is `gap` pixels
 * from the product, by steps no longer than the current gap (sphere tracing: the distance field
 * says how far it can move without touching). Null if it misses the product or starts too close.
 */
function slide(c: Candidate, start: Point, direction: Point, gap: number, s: Surroundings): Point | null {
  let [x, y] = start;
  const limit = 2 * (s.reach + c.size) + s.width + s.height;
  let travelled = 0;
  for (let i = 0; i < 500 && travelled < limit; i++) {
    const g = smallestGap(c.offsets, x, y, s.field);
    if (g <= gap + 0.25) return i === 0 ? null : [x, y];
    const step = Math.max(0.1, 0.9 * (g - gap));
    x += step * direction[0];
    y += step * direction[1];
    travelled += step;
  }
  return null;
}

/** Starts far from the product on the side `angle` points to, and slides in until the gap is `gap`. */
function againstProduct(c: Candidate, angle: number, gap: number, s: Surroundings): Point | null {
  const [cx, cy] = s.centroid;
  const u: Point = [Math.cos(angle), Math.sin(angle)];
  const far = s.reach + c.size + 8;
  return slide(c, [cx + far * u[0], cy + far * u[1]], [-u[0], -u[1]], gap, s);
}

/**
 * A candidate touching the product at (x, y), come in from the side `angle` points to, pushed on behind it by `share`
 * of its width that way.
 */
function behind(c: Candidate, [x, y]: Point, angle: number, share: number): Point {
  const u: Point = [Math.cos(angle), Math.sin(angle)];
  const depth = share * extent(c, u);
  return [x - depth * u[0], y - depth * u[1]];
}

const fail = (what: string, s: Surroundings): never => {
  throw new Error(`could not place ${what} (${s.family}, ${s.material})`);
};

/**
 * One or two props against the product from above or the sides (never from below, where they
 * would stand in front of it), none lower than its base. Touching: a gap of 0-1.5 pixels between
 * outlines (the drawn gap comes out up to about a pixel wider at a sharp tip, whose anti-aliased
 * point fades before the outline ends). Overlapping: pushed on behind it by 10-45% of the
 * prop's width along the way it came, at most half its outline hidden.
 */
export function propsAgainst(s: Surroundings, overlap: boolean): Prop[] {
  const count = s.next() < 0.5 ? 1 : 2;
  const props: Prop[] = [];
  for (let attempt = 0; props.length < count && attempt < 80; attempt++) {
    const shrink = attempt < 40 ? 1 : 0.7;
    const c = randomCandidate(s, (0.28 + 0.27 * s.next()) * s.scale * shrink);
    // From a little below the left horizontal, over the top, to a little below the right one.
    const angle = -Math.PI - 0.35 + (Math.PI + 0.7) * s.next();
    const touching = againstProduct(c, angle, overlap ? 0 : 1.5 * s.next(), s);
    if (!touching) continue;
    const at = overlap ? behind(c, touching, angle, 0.1 + 0.35 * s.next()) : touching;
    if (at[1] + lowest(c) > s.base) continue;
    if (framed(c, at, s) < 0.7 || !clearOf(c, at, props)) continue;
    // Overlapping props must still show more than half their outline.
    if (overlap && hidden(c, at, s) > 0.5) continue;
    props.push(finish(c, at, s));
  }
  return props.length > 0 ? props : fail(overlap ? 'an overlapping prop' : 'a touching prop', s);
}

/**
 * The product on a table among 3-5 props standing on it: one touching it from the side (and with
 * four or more, a second partly behind it), the rest apart, at least 3.5% of the frame's longer
 * side away. Props near the product stand further back than it (their base above its base), so
 * that being drawn behind it is what a camera would see. The near props have the shot's material;
 * the others are opaque or translucent at random.
 */
export function propsAround(s: Surroundings, horizon: number): Prop[] {
  const count = 3 + Math.floor(3 * s.next());
  const near = count >= 4 ? 2 : 1;
  const props: Prop[] = [];
  const floor = horizon + 0.03 * s.height;
  let side = s.next() < 0.5 ? -1 : 1;
  for (let attempt = 0; props.length < near && attempt < 80; attempt++) {
    const c = randomCandidate(s, (0.22 + 0.23 * s.next()) * s.scale * (attempt < 40 ? 1 : 0.7));
    const bottom = floor + (s.base - floor) * s.next();
    const y = bottom - lowest(c);
    const x = s.centroid[0] + side * (s.reach + c.size + 8);
    const overlap = props.length === 1;
    const touching = slide(c, [x, y], [-side, 0], overlap ? 0 : 1.5 * s.next(), s);
    if (!touching) continue;
    const at = overlap ? behind(c, touching, side > 0 ? 0 : Math.PI, 0.1 + 0.35 * s.next()) : touching;
    if (framed(c, at, s) < 0.7 || !clearOf(c, at, props) || hidden(c, at, s) > 0.5) continue;
    props.push(finish(c, at, s));
    side = -side;
  }
  if (props.length < near) fail('a prop near the product', s);
  const longer = Math.max(s.width, s.height);
  for (let attempt = 0; props.length < count && attempt < 400; attempt++) {
    const c = randomCandidate(s, (0.18 + 0.2 * s.next()) * s.scale * (attempt < 200 ? 1 : 0.6));
    const bottom = floor + 0.01 * s.height + (s.height - floor) * s.next();
    const at: Point = [s.width * (0.04 + 0.92 * s.next()), bottom - lowest(c)];
    if (framed(c, at, s) < 0.85 || !clearOf(c, at, props)) continue;
    if (smallestGap(c.offsets, at[0], at[1], s.field) < 0.035 * longer) continue;
    props.push(finish(c, at, s, s.next() < 0.65 ? 'opaque' : 'translucent'));
  }
  return props.length === count ? props : fail('props apart from the product', s);
}

/**
 * One prop 1.3-2 times the product's area beside it, on the side of the frame's centre (the
 * product stands off-centre), its base at or a little above the product's, touching it (0-1.5
 * pixels) or a small gap away (4-16 pixels). Its top may leave the frame a little. The product's
 * area is `scale` squared, so that next to a pair of frames the prop looks bigger too.
 */
export function propBeside(s: Surroundings): Prop[] {
  const towards = s.centroid[0] < s.width / 2 ? 1 : -1;
  const gap = s.next() < 0.6 ? 1.5 * s.next() : 4 + 12 * s.next();
  for (let attempt = 0; attempt < 60; attempt++) {
    const outline = propOutline(s.family, s.next);
    const size = s.scale * Math.sqrt((1.3 + 0.7 * s.next()) / outlineArea(outline));
    const c = candidate(outline, size, s.next() * 2 * Math.PI);
    const tall = lowest(c) - highest(c);
    const y = s.base - 0.12 * (s.base - s.centroid[1]) * s.next() - lowest(c);
    if (y + highest(c) < -(attempt < 30 ? 0.1 : 0.3) * tall) continue;
    const at = slide(c, [s.centroid[0] + towards * (s.reach + size + 8), y], [-towards, 0], gap, s);
    if (!at || framed(c, at, s) < 0.7) continue;
    if (Math.abs(at[0] - s.width / 2) >= Math.abs(s.centroid[0] - s.width / 2)) continue;
    return [finish(c, at, s)];
  }
  return fail('a prop beside the product', s);
}
