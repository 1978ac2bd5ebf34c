import { labelComponents } from './connected-components';
import { labDistance, labOf } from './lab-colour';

/**
 * Which openings enclosed by the subject are real (a mug's handle, a ring's centre, the gaps in
 * a chair's back) and which are the product's own light parts that the model doubted (a white
 * connector on a circuit board, a silver label on a light backdrop). An enclosed region is made
 * transparent only on evidence that it is backdrop: the model is sure there, and its colour and
 * texture match the backdrop seen around the product. Anything else is filled: a hole punched
 * through an opaque product is the worse mistake.
 */

/** The probability at which a pixel counts as subject when the components are cut. */
const HOLE_FILL_MEAN = 0.15;
/** A hole's mean is taken this many pixels in from the subject, so the subject's own soft edge does not decide it. */
const HOLE_CORE_DEPTH = 2;
/** The backdrop is sampled in this ring around the subject (pixels at the map's size). */
const RING_NEAR = 3;
const RING_FAR = 24;
/** A hole matches the backdrop when at least this share of the ring is within BACKDROP_MATCH of its colour. */
const BACKDROP_SHARE = 0.03;
const BACKDROP_MATCH = 10;
/** A hole is smooth like the backdrop when its lightness varies at most this much more than the ring's. */
const TEXTURE_SLACK = 5;
/** At most this many ring pixels are compared, spread evenly round the subject. */
const RING_SAMPLES = 2048;

export interface HoleInputs {
  /** The cut-out's probabilities so far; holes to fill are set to 1 in place. */
  out: Float32Array;
  probability: Float32Array;
  subject: Uint8Array;
  /** Distance of every pixel from the subject. */
  distance: Float32Array;
  /** The photo at the map's size (RGB), or null when only the map is known. */
  photo: Buffer | null;
  width: number;
  height: number;
}

/** Settles every enclosed hole in place; answers how close the decisions were, weighted by the holes' area, 0..1. */
export function settleHoles({ out, probability, subject, distance, photo, width, height }: HoleInputs): number {
  const n = width * height;
  const background = new Uint8Array(n);
  for (let i = 0; i < n; i++) background[i] = subject[i] ? 0 : 1;
  const { labels, count } = labelComponents(background, width, height, 4);

  const open = new Uint8Array(count + 1);
  for (let x = 0; x < width; x++) open[labels[x]] = open[labels[(height - 1) * width + x]] = 1;
  for (let y = 0; y < height; y++) open[labels[y * width]] = open[labels[y * width + width - 1]] = 1;
  // Nothing enclosed (most products): no hole to settle, so none of the statistics below is needed.
  let enclosed = false;
  for (let label = 1; label <= count && !enclosed; label++) enclosed = !open[label];
  if (!enclosed) return 0;

  const stats = holeStats(labels, count, open, probability, distance, photo, n);
  const ring = photo ? backdropRing(labels, open, distance, photo, n) : null;
  let subjectArea = 0;
  for (let i = 0; i < n; i++) subjectArea += subject[i];
  const fill = new Uint8Array(count + 1);
  let doubt = 0;
  for (let label = 1; label <= count; label++) {
    if (open[label]) continue;
    const mean =
      stats.corePixels[label] > 0
        ? stats.coreSum[label] / stats.corePixels[label]
        : stats.sum[label] / stats.pixels[label];
    let opening = mean <= HOLE_FILL_MEAN;
    let closeness = 1 - Math.min(1, Math.abs(mean - HOLE_FILL_MEAN) / HOLE_FILL_MEAN);
    if (opening && ring) {
      const match = backdropMatch(stats, label, ring);
      opening = match >= BACKDROP_SHARE && stats.lightnessSpread(label) <= ring.lightnessSpread + TEXTURE_SLACK;
      closeness = Math.max(closeness, 1 - Math.min(1, Math.abs(match - BACKDROP_SHARE) / BACKDROP_SHARE));
    }
    fill[label] = opening ? 0 : 1;
    doubt += closeness * stats.pixels[label];
  }
  for (let i = 0; i < n; i++) if (fill[labels[i]]) out[i] = 1;
  return subjectArea === 0 ? 0 : Math.min(1, doubt / subjectArea);
}

interface HoleStats {
  sum: Float64Array;
  pixels: Float64Array;
  coreSum: Float64Array;
  corePixels: Float64Array;
  /** Mean L, a, b per hole. */
  lab: Float64Array;
  lightnessSquares: Float64Array;
  lightnessSpread(label: number): number;
}

function holeStats(
  labels: Int32Array,
  count: number,
  open: Uint8Array,
  probability: Float32Array,
  distance: Float32Array,
  photo: Buffer | null,
  n: number,
): HoleStats {
  const sum = new Float64Array(count + 1);
  const pixels = new Float64Array(count + 1);
  const coreSum = new Float64Array(count + 1);
  const corePixels = new Float64Array(count + 1);
  const lab = new Float64Array((count + 1) * 3);
  const lightnessSquares = new Float64Array(count + 1);
  const colour = new Float32Array(3);
  for (let i = 0; i < n; i++) {
    const label = labels[i];
    if (label === 0 || open[label]) continue;
    sum[label] += probability[i];
    pixels[label]++;
    if (distance[i] < HOLE_CORE_DEPTH) continue;
    coreSum[label] += probability[i];
    corePixels[label]++;
    if (!photo) continue;
    labOf(photo[i * 3], photo[i * 3 + 1], photo[i * 3 + 2], colour, 0);
    lab[label * 3] += colour[0];
    lab[label * 3 + 1] += colour[1];
    lab[label * 3 + 2] += colour[2];
    lightnessSquares[label] += colour[0] * colour[0];
  }
  for (let label = 1; label <= count; label++) {
    const k = Math.max(1, corePixels[label]);
    for (let c = 0; c < 3; c++) lab[label * 3 + c] /= k;
  }
  return {
    sum,
    pixels,
    coreSum,
    corePixels,
    lab,
    lightnessSquares,
    lightnessSpread(label: number): number {
      const k = Math.max(1, corePixels[label]);
      return Math.sqrt(Math.max(0, lightnessSquares[label] / k - lab[label * 3] ** 2));
    },
  };
}

interface BackdropRing {
  lab: Float32Array;
  count: number;
  lightnessSpread: number;
}

/** Colours of the backdrop just around the subject (the outside, never a hole), evenly sampled. */
function backdropRing(
  labels: Int32Array,
  open: Uint8Array,
  distance: Float32Array,
  photo: Buffer,
  n: number,
): BackdropRing {
  let total = 0;
  for (let i = 0; i < n; i++)
    if (open[labels[i]] && labels[i] !== 0 && distance[i] >= RING_NEAR && distance[i] <= RING_FAR) total++;
  const stride = Math.max(1, Math.floor(total / RING_SAMPLES));
  const lab = new Float32Array(Math.ceil(total / stride) * 3 + 3);
  let count = 0;
  let seen = 0;
  let l = 0;
  let ll = 0;
  for (let i = 0; i < n; i++) {
    if (!(open[labels[i]] && labels[i] !== 0 && distance[i] >= RING_NEAR && distance[i] <= RING_FAR)) continue;
    if (seen++ % stride !== 0) continue;
    labOf(photo[i * 3], photo[i * 3 + 1], photo[i * 3 + 2], lab, count * 3);
    l += lab[count * 3];
    ll += lab[count * 3] ** 2;
    count++;
  }
  const mean = count > 0 ? l / count : 0;
  return { lab, count, lightnessSpread: count > 0 ? Math.sqrt(Math.max(0, ll / count - mean * mean)) : 0 };
}

/** The share of the ring's samples within BACKDROP_MATCH of the hole's mean colour. */
function backdropMatch(stats: HoleStats, label: number, ring: BackdropRing): number {
  if (ring.count === 0) return 1;
  let near = 0;
  for (let k = 0; k < ring.count; k++) if (labDistance(stats.lab, label * 3, ring.lab, k * 3) <= BACKDROP_MATCH) near++;
  return near / ring.count;
}
