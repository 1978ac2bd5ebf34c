import { subjectBounds } from './alpha-mask';
import { colourRegions } from './colour-regions';
import { distanceFromSeeds } from './distance-transform';
import type { ExpectedCentre } from './hinted-mask';
import { labDistance, labOf } from './lab-colour';

/**
 * Tells the product from props fused to it. The model marks a disc or box touching the product
 * as foreground too, and thresholding merges the two into one component that selection keeps
 * whole (IoU 0.46-0.93 on such shots). Inside that component the photo still shows two
 * objects: the kept component is split into regions of one colour (graph-based segmentation on
 * Lab), neighbours joined by a soft colour step merge (one surface under changing light),
 * regions mostly surrounded by another are folded into it (a label, a badge, a highlight), and
 * what is left are objects. The product grows from its core (the objects around the
 * component's deepest, most central point, plus any under a keep point) through every object
 * that belongs to it: a long seam with it, one of its colours, or too small to judge. The rest
 * hang on the product by a short seam in a colour of their own: props. These cues are about the
 * product (its colours, its outline, its core), never about what props look like; a cap on a
 * cap-coloured bottle stays, and so does a prop the product's own colour (the uncertainty says so).
 */

/** The kept component is analysed on a grid of at most this many cells along its longer side. */
const WORK_SIDE = 256;
/** Felzenszwalb-Huttenlocher scale in Lab units x cells: larger makes larger regions. */
const REGION_SCALE = 180;
/** Regions smaller than this share of the component join a neighbour (noise, anti-aliasing). */
const MIN_REGION_SHARE = 0.002;
/** A region with at least this share of its outline on one other object belongs to that object. */
const ENCLOSED_SHARE = 0.55;
/** Neighbouring regions whose mean colour step across their seam (CIE76 per cell) is below this are one surface. */
const SOFT_SEAM = 10;
/** An object whose seam with the product is at least this share of its outline is part of the product. */
const SEAM_SHARE = 0.4;
/** Objects smaller than this share of the component stay: too small to matter, too small to judge. */
const MIN_PROP_SHARE = 0.05;
/** An object within this colour distance (CIE76) of one of the product's colours is the same material. */
const SAME_COLOUR = 20;
/**
 * Lightness counts this much against hue and chroma when colours are compared: one material
 * under different light (a lamp's white shade and its grey stem, a lit and a shaded flank)
 * differs mostly in lightness, another material mostly in hue.
 */
const LIGHTNESS_WEIGHT = 0.25;
/**
 * A product region vouches for an object's colour only when it is at least this share of the
 * object's region: a thin red stripe on a label does not make a large red disc the product's.
 */
const SAME_MATERIAL_SHARE = 0.25;
/**
 * Never more than this share of the component is removed as props: a product may stand beside a
 * larger prop, but a decision to remove nearly everything is more likely wrong than right.
 */
const MAX_REMOVED_SHARE = 0.85;
/** Spread of the centre prior on the core, as a share of the diagonal (as subject selection's). */
const CENTRE_SIGMA = 0.2;
/** How strongly the detail inside an object weighs when the product's core is chosen (a power of its mean gradient). */
const DETAIL_POWER = 1;
/** Lightness gradient (per cell, L units) every surface shows from noise alone. */
const DETAIL_FLOOR = 1;
/** The product's core: a disc this share of the component's greatest depth around its deepest point. */
const CORE_SHARE = 0.6;

export interface PropSeparation {
  /** 1 where the component's pixels belong to a prop, at the map's size. */
  removed: Uint8Array;
  /** The share of the component removed as props. */
  removedShare: number;
  /**
   * How close the decisions came to going the other way, 0..1: an object kept or removed with
   * its seam or colour near the thresholds makes this high.
   */
  doubt: number;
}

interface Grid {
  width: number;
  height: number;
  block: number;
  left: number;
  top: number;
  inside: Uint8Array;
  lab: Float32Array;
}

/** The map's size, where the product is expected, and the pixels under the client's keep points. */
export interface SeparationFrame {
  width: number;
  height: number;
  centre: ExpectedCentre;
  keepPoints: readonly number[];
  /** Pixels where the subject crosses the edge of a region hint, or null without one. */
  crossing: Uint8Array | null;
}

export function separateProps(
  subject: Uint8Array,
  photo: Buffer,
  { width, height, centre, keepPoints, crossing }: SeparationFrame,
): PropSeparation {
  const removed = new Uint8Array(width * height);
  const grid = workGrid(subject, photo, width, height);
  if (!grid) return { removed, removedShare: 0, doubt: 0 };
  const area = grid.inside.reduce((sum, value) => sum + value, 0);
  const { labels, count } = colourRegions(grid.lab, grid.inside, grid.width, grid.height, {
    scale: REGION_SCALE,
    minSize: Math.max(6, Math.round(MIN_REGION_SHARE * area)),
  });
  if (count < 2) return { removed, removedShare: 0, doubt: 0 };
  const objects = new ObjectGraph(labels, count, grid);
  objects.mergeSoftSeams();
  objects.foldEnclosed();

  const pointed = new Set<number>();
  for (const index of keepPoints) {
    const label = regionAt(grid, labels, index, width);
    if (label >= 0) pointed.add(objects.find(label));
  }
  // Keep points add to the core, never replace it: a point on a label must not make the rest of the product a prop.
  const product = [...new Set([...coreObjects(grid, labels, objects, centre), ...pointed])];
  const crossed = crossing ? crossingObjects(crossing, grid, labels, objects, width) : [];
  const { props, doubt } = objects.propsBeside(product, area, crossed);
  let removedCells = 0;
  for (const label of props) removedCells += objects.area[label];
  if (removedCells === 0 || removedCells > MAX_REMOVED_SHARE * area) return { removed, removedShare: 0, doubt };

  const isProp = new Uint8Array(count);
  for (let region = 0; region < count; region++) isProp[region] = props.has(objects.find(region)) ? 1 : 0;
  for (let y = 0; y < height; y++) {
    const gy = Math.floor((y - grid.top) / grid.block);
    if (gy < 0 || gy >= grid.height) continue;
    for (let x = 0; x < width; x++) {
      const gx = Math.floor((x - grid.left) / grid.block);
      if (gx < 0 || gx >= grid.width) continue;
      const label = labels[gy * grid.width + gx];
      const i = y * width + x;
      if (label >= 0 && isProp[label] && subject[i]) removed[i] = 1;
    }
  }
  return { removed, removedShare: removedCells / area, doubt };
}

/**
 * The object under the product's core: the component's deepest point, weighted towards the
 * frame's centre, where products are framed. A prop fused to the product's side holds that
 * point only when it is the larger and more central shape.
 */
function coreObjects(grid: Grid, labels: Int32Array, objects: ObjectGraph, centre: ExpectedCentre): number[] {
  const { width: gw, height: gh, block, left, top, inside } = grid;
  const outside = new Uint8Array(gw * gh);
  for (let i = 0; i < outside.length; i++) outside[i] = inside[i] ? 0 : 1;
  const depth = distanceFromSeeds(outside, gw, gh);
  let best = -1;
  let bestScore = -1;
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      const i = gy * gw + gx;
      if (!inside[i]) continue;
      // Cells on the grid's own edge have no outside neighbour there: bound their depth by the edge.
      const d = Math.min(depth[i], gx + 1, gy + 1, gw - gx, gh - gy);
      const off =
        Math.hypot(left + (gx + 0.5) * block - centre.x, top + (gy + 0.5) * block - centre.y) / centre.diagonal;
      const score =
        d *
        Math.exp(-(off * off) / (2 * CENTRE_SIGMA * CENTRE_SIGMA)) *
        objects.detail(objects.find(labels[i])) ** DETAIL_POWER;
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    }
  }
  const cx = best % gw;
  const cy = Math.floor(best / gw);
  const radius = CORE_SHARE * depth[best];
  const seeds = new Set<number>();
  for (let gy = Math.max(0, Math.floor(cy - radius)); gy <= Math.min(gh - 1, Math.ceil(cy + radius)); gy++) {
    for (let gx = Math.max(0, Math.floor(cx - radius)); gx <= Math.min(gw - 1, Math.ceil(cx + radius)); gx++) {
      const label = labels[gy * gw + gx];
      if (label >= 0 && Math.hypot(gx - cx, gy - cy) <= radius) seeds.add(objects.find(label));
    }
  }
  return [...seeds];
}

/** The region under the map's pixel `index`, or -1 outside the grid or the component. */
function regionAt(grid: Grid, labels: Int32Array, index: number, width: number): number {
  const gx = Math.floor(((index % width) - grid.left) / grid.block);
  const gy = Math.floor((Math.floor(index / width) - grid.top) / grid.block);
  if (gx < 0 || gy < 0 || gx >= grid.width || gy >= grid.height) return -1;
  return labels[gy * grid.width + gx];
}

/**
 * The objects under the pixels where the subject crosses a region hint's edge (two cells at least, not a stray one).
 */
function crossingObjects(
  crossing: Uint8Array,
  grid: Grid,
  labels: Int32Array,
  objects: ObjectGraph,
  width: number,
): number[] {
  const cells = new Map<number, number>();
  for (let i = 0; i < crossing.length; i++) {
    if (!crossing[i]) continue;
    const label = regionAt(grid, labels, i, width);
    if (label < 0) continue;
    const object = objects.find(label);
    cells.set(object, (cells.get(object) ?? 0) + 1);
  }
  return [...cells].filter(([, count]) => count >= 2 * grid.block).map(([object]) => object);
}

/** The component's bounding box, averaged down to at most WORK_SIDE cells a side, in Lab. */
function workGrid(subject: Uint8Array, photo: Buffer, width: number, height: number): Grid | null {
  const bounds = subjectBounds({ data: subject, width, height }, 1);
  if (!bounds) return null;
  const { left, top } = bounds;
  const right = left + bounds.width - 1;
  const bottom = top + bounds.height - 1;
  const block = Math.max(1, Math.ceil(Math.max(right - left + 1, bottom - top + 1) / WORK_SIDE));
  const gw = Math.ceil((right - left + 1) / block);
  const gh = Math.ceil((bottom - top + 1) / block);
  const inside = new Uint8Array(gw * gh);
  const lab = new Float32Array(gw * gh * 3);
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      let cells = 0;
      let kept = 0;
      let r = 0;
      let g = 0;
      let b = 0;
      for (let y = top + gy * block; y < Math.min(height, top + (gy + 1) * block); y++) {
        for (let x = left + gx * block; x < Math.min(width, left + (gx + 1) * block); x++) {
          const i = y * width + x;
          cells++;
          kept += subject[i];
          r += photo[i * 3];
          g += photo[i * 3 + 1];
          b += photo[i * 3 + 2];
        }
      }
      const cell = gy * gw + gx;
      inside[cell] = kept * 2 > cells ? 1 : 0;
      labOf(Math.round(r / cells), Math.round(g / cells), Math.round(b / cells), lab, cell * 3);
    }
  }
  return { width: gw, height: gh, block, left, top, inside, lab };
}

/** Regions grouped into objects, with each object's area, outline on the backdrop, seams and colours. */
class ObjectGraph {
  private readonly parent: Int32Array;
  readonly area: Float64Array;
  private readonly outline: Float64Array;
  private readonly sumX: Float64Array;
  private readonly sumY: Float64Array;
  /** seams[a] maps each neighbouring object to the length of their shared outline. */
  private seams: Array<Map<number, number>>;
  /** contrast[a] maps each neighbouring object to the summed colour step across their shared outline. */
  private contrast: Array<Map<number, number>>;
  /** Summed lightness gradient over each object's cells away from the component's outline, and those cells. */
  private readonly gradient: Float64Array;
  private readonly gradientCells: Float64Array;
  /** Each region's mean colour, and its area, for colour comparisons between objects. */
  private readonly regionLab: Float64Array;
  private readonly regionArea: Float64Array;

  constructor(
    labels: Int32Array,
    private readonly count: number,
    private readonly grid: Grid,
  ) {
    const { width, height, lab, block, left, top } = grid;
    this.parent = Int32Array.from({ length: count }, (_, i) => i);
    this.area = new Float64Array(count);
    this.outline = new Float64Array(count);
    this.sumX = new Float64Array(count);
    this.sumY = new Float64Array(count);
    this.regionLab = new Float64Array(count * 3);
    this.regionArea = new Float64Array(count);
    this.gradient = new Float64Array(count);
    this.gradientCells = new Float64Array(count);
    this.seams = Array.from({ length: count }, () => new Map<number, number>());
    this.contrast = Array.from({ length: count }, () => new Map<number, number>());
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        const label = labels[i];
        if (label < 0) continue;
        this.area[label]++;
        this.sumX[label] += left + (x + 0.5) * block;
        this.sumY[label] += top + (y + 0.5) * block;
        for (let c = 0; c < 3; c++) this.regionLab[label * 3 + c] += lab[i * 3 + c];
        const neighbours = [
          x > 0 ? i - 1 : -1,
          x + 1 < width ? i + 1 : -1,
          y > 0 ? i - width : -1,
          y + 1 < height ? i + width : -1,
        ];
        if (neighbours.every((j) => j >= 0 && labels[j] >= 0)) {
          this.gradient[label] +=
            Math.abs(lab[neighbours[1] * 3] - lab[neighbours[0] * 3]) +
            Math.abs(lab[neighbours[3] * 3] - lab[neighbours[2] * 3]);
          this.gradientCells[label]++;
        }
        for (const j of neighbours) {
          const other = j < 0 ? -1 : labels[j];
          if (other < 0) this.outline[label]++;
          else if (other !== label) {
            this.seams[label].set(other, (this.seams[label].get(other) ?? 0) + 1);
            this.contrast[label].set(
              other,
              (this.contrast[label].get(other) ?? 0) + labDistance(lab, i * 3, lab, j * 3),
            );
          }
        }
      }
    }
    for (let r = 0; r < count; r++) {
      this.regionArea[r] = this.area[r];
      for (let c = 0; c < 3; c++) this.regionLab[r * 3 + c] /= Math.max(1, this.area[r]);
    }
  }

  /**
   * How much is drawn inside an object: its mean lightness gradient away from the outline, with
   * a floor for the camera's noise. A product carries labels, seams, print and highlights; a
   * plain surface beside it carries little, which is what tells an off-centre product from the
   * larger, plainer shape it stands beside.
   */
  detail(object: number): number {
    return DETAIL_FLOOR + this.gradient[object] / Math.max(1, this.gradientCells[object]);
  }

  find(region: number): number {
    let r = region;
    while (this.parent[r] !== r) r = this.parent[r] = this.parent[this.parent[r]];
    return r;
  }

  private perimeter(object: number): number {
    let total = this.outline[object];
    for (const length of this.seams[object].values()) total += length;
    return total;
  }

  private merge(into: number, from: number): void {
    this.parent[from] = into;
    this.area[into] += this.area[from];
    this.gradient[into] += this.gradient[from];
    this.gradientCells[into] += this.gradientCells[from];
    this.outline[into] += this.outline[from];
    this.sumX[into] += this.sumX[from];
    this.sumY[into] += this.sumY[from];
    for (const [other, length] of this.seams[from]) {
      const step = this.contrast[from].get(other) ?? 0;
      this.seams[other].delete(from);
      this.contrast[other].delete(from);
      if (other === into) continue;
      this.seams[into].set(other, (this.seams[into].get(other) ?? 0) + length);
      this.seams[other].set(into, (this.seams[other].get(into) ?? 0) + length);
      this.contrast[into].set(other, (this.contrast[into].get(other) ?? 0) + step);
      this.contrast[other].set(into, (this.contrast[other].get(into) ?? 0) + step);
    }
    this.seams[into].delete(from);
    this.contrast[into].delete(from);
    this.seams[from] = new Map();
    this.contrast[from] = new Map();
  }

  private objects(): number[] {
    const roots: number[] = [];
    for (let r = 0; r < this.count; r++) if (this.parent[r] === r) roots.push(r);
    return roots;
  }

  /**
   * Merges neighbours whose shared outline is a soft colour step (the light across a cylinder, a
   * gradient across a disc): one surface. Weakest seam first, so a chain of shades merges
   * before any real edge is considered.
   */
  mergeSoftSeams(): void {
    for (;;) {
      let weakest = SOFT_SEAM;
      let pair: [number, number] | null = null;
      for (const object of this.objects()) {
        for (const [other, length] of this.seams[object]) {
          if (other < object || length < 2) continue;
          const step = (this.contrast[object].get(other) ?? 0) / length;
          if (step < weakest) {
            weakest = step;
            pair = [object, other];
          }
        }
      }
      if (!pair) return;
      const [a, b] = this.area[pair[0]] >= this.area[pair[1]] ? pair : [pair[1], pair[0]];
      this.merge(a, b);
    }
  }

  /** Folds each object mostly surrounded by one other into it, smallest first, until none is. */
  foldEnclosed(): void {
    for (let changed = true; changed;) {
      changed = false;
      for (const object of this.objects().sort((a, b) => this.area[a] - this.area[b])) {
        if (this.parent[object] !== object) continue;
        const perimeter = this.perimeter(object);
        let best = -1;
        let bestLength = 0;
        for (const [other, length] of this.seams[object]) {
          if (length > bestLength) {
            bestLength = length;
            best = other;
          }
        }
        if (best >= 0 && bestLength >= ENCLOSED_SHARE * perimeter) {
          this.merge(best, object);
          changed = true;
        }
      }
    }
  }

  /** Colour distance from an object to the nearest colour of another object's regions. */
  private colourDistance(object: number, to: ReadonlySet<number>): number {
    let nearest = Infinity;
    for (let a = 0; a < this.count; a++) {
      if (this.find(a) !== object || this.regionArea[a] < 0.2 * this.area[object]) continue;
      for (let b = 0; b < this.count; b++) {
        if (!to.has(this.find(b)) || this.regionArea[b] < SAME_MATERIAL_SHARE * this.regionArea[a]) continue;
        const dl = LIGHTNESS_WEIGHT * (this.regionLab[a * 3] - this.regionLab[b * 3]);
        const da = this.regionLab[a * 3 + 1] - this.regionLab[b * 3 + 1];
        const db = this.regionLab[a * 3 + 2] - this.regionLab[b * 3 + 2];
        nearest = Math.min(nearest, Math.sqrt(dl * dl + da * da + db * db));
      }
    }
    return nearest;
  }

  /**
   * Grows the product from `product` through the objects that belong to it (a long seam, the
   * product's colour, or too small to judge); the rest are props. Objects reachable only through
   * props are props too.
   */
  propsBeside(product: number[], area: number, crossed: readonly number[]): { props: Set<number>; doubt: number } {
    const kept = new Set(product);
    // What runs on past a region hint's edge is not the product, however it looks.
    const props = new Set(crossed.filter((object) => !kept.has(object)));
    let doubt = 0;
    const decide = (object: number, seamShare: number) => {
      const verdict = this.judge(object, seamShare, kept, area);
      (verdict.belongs ? kept : props).add(object);
      doubt += (this.area[object] / area) * verdict.ambiguity;
    };
    for (let grown = true; grown;) {
      grown = false;
      for (const object of this.objects()) {
        if (kept.has(object) || props.has(object)) continue;
        let seam = 0;
        for (const [other, length] of this.seams[object]) if (kept.has(other)) seam += length;
        if (seam === 0) continue;
        decide(object, seam / this.perimeter(object));
        grown = true;
      }
    }
    // What hangs only on props is props too.
    for (let spread = true; spread;) {
      spread = false;
      for (const object of this.objects()) {
        if (kept.has(object) || props.has(object)) continue;
        if (![...this.seams[object].keys()].some((other) => props.has(other))) continue;
        props.add(object);
        spread = true;
      }
    }
    // Parts apart from the product (joined by selection for being near, or by a stem too thin
    // for this grid) share no seam with it: their colour and size decide.
    for (const object of this.objects()) if (!kept.has(object) && !props.has(object)) decide(object, 0);
    return { props, doubt: Math.min(1, doubt) };
  }

  /**
   * Whether an object belongs to the product: too small to judge, a long seam with it, or one of
   * its colours. `ambiguity` is 1 when the cues disagree (a shape hanging on a short seam in the
   * product's own colour: a handle, or a look-alike prop), lower when they agree.
   */
  private judge(
    object: number,
    seamShare: number,
    kept: ReadonlySet<number>,
    area: number,
  ): { belongs: boolean; ambiguity: number } {
    if (this.area[object] < MIN_PROP_SHARE * area) return { belongs: true, ambiguity: 0 };
    const colour = this.colourDistance(object, kept);
    const longSeam = seamShare >= SEAM_SHARE;
    const sameColour = colour <= SAME_COLOUR;
    if (longSeam !== sameColour) return { belongs: true, ambiguity: 1 };
    if (longSeam) return { belongs: true, ambiguity: 0 };
    // Both say prop; how firmly is how far the colour is from the product's.
    return { belongs: false, ambiguity: Math.max(0, 1 - (colour - SAME_COLOUR) / SAME_COLOUR) * 0.5 };
  }
}
