import type { ProbabilityMap } from './probability-map';
import { labelComponents } from './connected-components';
import { distanceFromSeeds } from './distance-transform';
import { clippedToRegion, expectedCentre, keepPointIndices, type ExpectedCentre } from './hinted-mask';
import { cutoutUncertainty } from './cutout-uncertainty';
import { settleHoles } from './hole-policy';
import { separateProps } from './prop-separation';
import { seenThroughShare } from './seen-through';
import { NO_HINTS, type SubjectHints } from './subject-hints';

/**
 * Keeps the product and drops the rest of what the model found salient. ISNet marks salient
 * background objects (a vase beside the product, a shelf edge) as foreground, which measured
 * IoU 0.32-0.64 on cluttered backdrops; choosing one subject by its size, its centrality and
 * its connectivity fixes that (on 16 generated cluttered shots, mean IoU 0.953 -> 0.985 from
 * this step alone). The cues are about the product only, never about what clutter looks like.
 * Then holes the model was unsure about are filled, while holes it is sure of (a mug handle's
 * opening) stay open.
 */

/** The probability at which a pixel counts as subject when the components are cut. */
const THRESHOLD = 0.5;
/** Spread of the centre prior, as a share of the image's diagonal: products are framed near the centre. */
const CENTRE_SIGMA = 0.2;
/**
 * Parts joined to the kept subject through probability at least this high belong to it, however
 * far apart their confident cores are: the model saw something between them (a thin stem it
 * could not resolve holds a lamp's shade to its base).
 */
const LINK_THRESHOLD = 0.15;
/** Parts this close to the kept subject (share of the longer side) belong to it: a cap above its bottle. */
const NEAR_GAP = 0.015;
/** Parts smaller than this share of the best component are specks, not parts of the product. */
const MIN_PART_SHARE = 0.01;
/** Parts are joined through chains of close parts at most this many links long, which bounds the passes. */
const MAX_PART_ROUNDS = 4;
/** Probability between these is the model's doubt, for the cut-out's uncertainty. */
const SOFT_LOW = 0.2;
const SOFT_HIGH = 0.8;
/** Below-threshold probability is kept this far (share of the longer side) around the subject: its soft edge. */
const EDGE_MARGIN = 0.01;

interface ComponentStats {
  area: Float64Array;
  sumX: Float64Array;
  sumY: Float64Array;
  left: Int32Array;
  right: Int32Array;
  top: Int32Array;
  bottom: Int32Array;
  /** Pixels on the image's outermost ring. */
  border: Float64Array;
}

export interface Selection {
  map: ProbabilityMap;
  /** 0 sure .. 1 unsure, from the map, the photo and the selection's decisions (cutout-uncertainty.ts). */
  uncertainty: number;
}

/**
 * `photo` is the photo at the map's size (RGB), for telling the product from props fused to it;
 * without it (a map alone) components are all the selection goes on.
 */
export function selectSubject(
  model: ProbabilityMap,
  photo: Buffer | null = null,
  hints: SubjectHints = NO_HINTS,
): Selection {
  const { width, height } = model;
  // A region hint clears the map outside it before anything is chosen, so nothing outside can be kept.
  const clipped = hints.region ? clippedToRegion(model, hints.region, THRESHOLD) : null;
  const data = clipped?.data ?? model.data;
  const n = width * height;
  const inside = new Uint8Array(n);
  for (let i = 0; i < n; i++) inside[i] = data[i] >= THRESHOLD ? 1 : 0;
  const { labels, count } = labelComponents(inside, width, height, 8);
  if (count === 0) return { map: { data: new Float32Array(n), width, height }, uncertainty: 1 };

  const stats = componentStats(labels, count, width, height);
  const keepPoints = keepPointIndices(hints, width, height);
  const centre = expectedCentre(hints, width, height);
  const groups = linkedGroups(data, labels, count, width, height);
  const kept = keptComponents(labels, stats, groups, { width, height, centre, keepPoints });
  const subject = new Uint8Array(n);
  for (let i = 0; i < n; i++) subject[i] = kept[labels[i]];
  const separation = photo
    ? separateProps(subject, photo, { width, height, centre, keepPoints, crossing: clipped?.crossing ?? null })
    : null;
  if (separation) for (let i = 0; i < n; i++) if (separation.removed[i]) subject[i] = 0;
  const distance = distanceFromSeeds(subject, width, height);

  const margin = EDGE_MARGIN * Math.max(width, height);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    // Dropped components lose their soft edges too: only the subject's own margin survives.
    if (subject[i] || (labels[i] === 0 && distance[i] <= margin)) out[i] = data[i];
  }
  const holeDoubt = settleHoles({ out, probability: data, subject, distance, photo, width, height });
  // The cut-out as chosen: the subject with the holes it filled.
  const chosen = new Uint8Array(n);
  for (let i = 0; i < n; i++) chosen[i] = out[i] >= THRESHOLD ? 1 : 0;
  const uncertainty = cutoutUncertainty({
    softEdges: softShare(data, subject, distance, margin),
    seenThrough: photo ? seenThroughShare(chosen, photo, width, height) : 0,
    filledHoles: filledShare(chosen, subject),
    propDoubt: separation?.doubt ?? 0,
    holeDoubt,
  });
  return { map: { data: out, width, height }, uncertainty };
}

/** The share of the chosen cut-out that is not the subject the model found: the holes filled in it. */
function filledShare(chosen: Uint8Array, subject: Uint8Array): number {
  let area = 0;
  let filled = 0;
  for (let i = 0; i < chosen.length; i++) {
    area += chosen[i];
    if (chosen[i] && !subject[i]) filled++;
  }
  return area === 0 ? 0 : filled / area;
}

/** Pixels of the subject and its margin where the model is unsure (0.2-0.8), as a share of the subject's area. */
function softShare(probability: Float32Array, subject: Uint8Array, distance: Float32Array, margin: number): number {
  let area = 0;
  let soft = 0;
  for (let i = 0; i < probability.length; i++) {
    area += subject[i];
    if ((subject[i] || distance[i] <= margin) && probability[i] > SOFT_LOW && probability[i] < SOFT_HIGH) soft++;
  }
  return area === 0 ? 1 : soft / area;
}

function componentStats(labels: Int32Array, count: number, width: number, height: number): ComponentStats {
  const stats: ComponentStats = {
    area: new Float64Array(count + 1),
    sumX: new Float64Array(count + 1),
    sumY: new Float64Array(count + 1),
    left: new Int32Array(count + 1).fill(width),
    right: new Int32Array(count + 1).fill(-1),
    top: new Int32Array(count + 1).fill(height),
    bottom: new Int32Array(count + 1).fill(-1),
    border: new Float64Array(count + 1),
  };
  for (let y = 0; y < height; y++) {
    const edgeRow = y === 0 || y === height - 1;
    for (let x = 0; x < width; x++) {
      const label = labels[y * width + x];
      if (label === 0) continue;
      stats.area[label]++;
      stats.sumX[label] += x;
      stats.sumY[label] += y;
      if (x < stats.left[label]) stats.left[label] = x;
      if (x > stats.right[label]) stats.right[label] = x;
      if (y < stats.top[label]) stats.top[label] = y;
      if (y > stats.bottom[label]) stats.bottom[label] = y;
      if (edgeRow || x === 0 || x === width - 1) stats.border[label]++;
    }
  }
  return stats;
}

/**
 * Area x a Gaussian centre prior x a border penalty. The penalty compares the component's
 * contact with the frame to its extent: a strip along an edge (a table's edge, a shelf) is all
 * contact, while a product cut by the frame touches it along its base only and keeps most of its score.
 */
function subjectScore(
  stats: ComponentStats,
  label: number,
  width: number,
  height: number,
  centre: ExpectedCentre,
): number {
  const area = stats.area[label];
  const { diagonal } = centre;
  const dx = stats.sumX[label] / area - (centre.x - 0.5);
  const dy = stats.sumY[label] / area - (centre.y - 0.5);
  const offCentre = Math.hypot(dx, dy) / diagonal;
  const centrality = Math.exp(-(offCentre * offCentre) / (2 * CENTRE_SIGMA * CENTRE_SIGMA));
  const extent = stats.right[label] - stats.left[label] + 1 + (stats.bottom[label] - stats.top[label] + 1);
  const alongBorder = Math.min(1, stats.border[label] / extent);
  return area * centrality * (1 - alongBorder) * (1 - alongBorder);
}

/** Which component of the map at LINK_THRESHOLD holds each confident component. */
interface LinkedGroups {
  /** Indexed by confident component, 1..count; index 0 unused. */
  groupOf: Int32Array;
  count: number;
}

function linkedGroups(
  probability: Float32Array,
  labels: Int32Array,
  count: number,
  width: number,
  height: number,
): LinkedGroups {
  const weak = new Uint8Array(width * height);
  for (let i = 0; i < weak.length; i++) weak[i] = probability[i] >= LINK_THRESHOLD ? 1 : 0;
  const groups = labelComponents(weak, width, height, 8);
  // Every confident component lies inside exactly one weak one, so any of its pixels tells which.
  const groupOf = new Int32Array(count + 1);
  for (let i = 0; i < labels.length; i++) if (labels[i] !== 0) groupOf[labels[i]] = groups.labels[i];
  return { groupOf, count: groups.count };
}

/**
 * 1 for the best-scoring component and the parts that belong with it, else 0 (index 0 is the
 * background): parts not tiny and either close to the subject so far, so chains of close parts
 * join, or linked to it by the model's weaker probability.
 */
function keptComponents(
  labels: Int32Array,
  stats: ComponentStats,
  groups: LinkedGroups,
  {
    width,
    height,
    centre,
    keepPoints,
  }: { width: number; height: number; centre: ExpectedCentre; keepPoints: readonly number[] },
): Uint8Array {
  const count = groups.groupOf.length - 1;
  const kept = new Uint8Array(count + 1);
  for (const index of keepPoints) kept[labels[index]] = 1;
  kept[0] = 0;
  const scores = new Float64Array(count + 1);
  let best = 1;
  for (let label = 1; label <= count; label++) {
    scores[label] = subjectScore(stats, label, width, height, centre);
    if (scores[label] > scores[best]) best = label;
  }
  // Keep points name the subject (its largest pointed part stands for it); otherwise it is the best-scoring component.
  const pointed = kept.some((value) => value === 1);
  if (pointed) {
    best = kept.indexOf(1);
    for (let label = best; label <= count; label++)
      if (kept[label] && stats.area[label] > stats.area[best]) best = label;
  }
  kept[best] = 1;
  const minArea = MIN_PART_SHARE * stats.area[best];
  const maxGap = NEAR_GAP * Math.max(width, height);
  const n = width * height;
  const seeds = new Uint8Array(n);
  const gap = new Float32Array(count + 1);

  const keptGroups = new Uint8Array(groups.count + 1);
  for (let round = 0; round < MAX_PART_ROUNDS; round++) {
    // Only parts not kept and not specks can join: without one (a lone product, the usual case)
    // the distance transform below would decide nothing.
    let candidates = false;
    for (let label = 1; label <= count && !candidates; label++)
      candidates = !kept[label] && stats.area[label] >= minArea;
    if (!candidates) break;
    for (let label = 1; label <= count; label++) if (kept[label]) keptGroups[groups.groupOf[label]] = 1;
    for (let i = 0; i < n; i++) seeds[i] = kept[labels[i]];
    const distance = distanceFromSeeds(seeds, width, height);
    // A part's gap is the distance from its nearest pixel to the subject so far.
    gap.fill(Infinity);
    for (let i = 0; i < n; i++) {
      const label = labels[i];
      if (label !== 0 && !kept[label] && distance[i] < gap[label]) gap[label] = distance[i];
    }
    let joined = false;
    for (let label = 1; label <= count; label++) {
      if (kept[label] || stats.area[label] < minArea) continue;
      if (gap[label] > maxGap && !keptGroups[groups.groupOf[label]]) continue;
      kept[label] = 1;
      joined = true;
    }
    if (!joined) break;
  }
  return kept;
}
