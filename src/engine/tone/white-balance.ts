import { LINEAR_OF_LEVEL } from './linear-light';

/**
 * White balance from the grey surfaces of a photo, constrained to the colours real light has.
 *
 * A grey (a grey card, a white backdrop, white print) reflects the light's own colour, so under a
 * cast every grey in the photo has one chromaticity: the cast. Lights are nearly all thermal or made
 * to look it (tungsten, daylight, shade, white LEDs), so that chromaticity lies on or near the
 * Planckian and daylight loci. Only pixels near those loci can be a grey under some light; of them,
 * the chromaticity most of them share is taken for the light, and von Kries gains in linear light
 * make it neutral. A red product has no such pixels (red is far from any light's colour), so a
 * photo with nothing grey is left as it is rather than turned cyan.
 *
 * Chromaticity is (ln R/G, ln B/G) in linear sRGB: a gain per channel moves every pixel by the same
 * vector there, so a cast is a shift and the greys under it one point.
 */

/** Rec. 709 luminance of linear RGB. */
const luminance = (r: number, g: number, b: number) => 0.2126 * r + 0.7152 * g + 0.0722 * b;

/** CIE 1931 xy of a light: Planckian (Kim et al. 2002) below 4000 K, the CIE daylight locus above. */
function lightXy(kelvin: number): [number, number] {
  if (kelvin < 4000) {
    const m = 1e3 / kelvin;
    const x = ((-0.2661239 * m - 0.2343589) * m + 0.8776956) * m + 0.17991;
    const y =
      kelvin <= 2222
        ? ((-1.1063814 * x - 1.3481102) * x + 2.18555832) * x - 0.20219683
        : ((-0.9549476 * x - 1.37418593) * x + 2.09137015) * x - 0.16748867;
    return [x, y];
  }
  const m = 1e3 / kelvin;
  const x =
    kelvin <= 7000
      ? ((-4.607 * m + 2.9678) * m + 0.09911) * m + 0.244063
      : ((-2.0064 * m + 1.9018) * m + 0.24748) * m + 0.23704;
  return [x, (-3 * x + 2.87) * x - 0.275];
}

/** The chromaticity of a grey lit by a light of this xy, in a photo balanced for D65 (sRGB's white). */
function castOfLight([x, y]: [number, number]): [number, number] {
  const X = x / y;
  const Z = (1 - x - y) / y;
  const r = 3.2404542 * X - 1.5371385 - 0.4985314 * Z;
  const g = -0.969266 * X + 1.8760108 + 0.041556 * Z;
  const b = 0.0556434 * X - 0.2040259 + 1.0572252 * Z;
  return [Math.log(r / g), Math.log(b / g)];
}

/**
 * The casts of lights from 455 mired (2200 K: candlelight is warmer, and nobody lights a product
 * with it) to 71 mired (14 000 K, blue-sky shade), every 8 mired: a polyline on which casts lie.
 */
const LOCUS: ReadonlyArray<[number, number]> = Array.from({ length: 49 }, (_, i) =>
  castOfLight(lightXy(1e6 / (455 - 8 * i))),
);

/**
 * How far from the loci a grey may lie: fluorescent and LED lights are greener or pinker than a
 * thermal light by up to about 10 % in G against R and B (0.13 in this plane), and a grey card or
 * paper is itself a few per cent off neutral.
 */
const TINT_TOLERANCE = 0.15;
/**
 * Pixels this far off the loci are kept beside the candidates: a light is found among those within
 * TINT_TOLERANCE, but its greys are gathered around it from all, so greys under a tinted light that
 * straddle the tolerance (noise, JPEG chroma) are not cut in half.
 */
const CANDIDATE_REACH = TINT_TOLERANCE + 0.15;
/** Greys of one light are one point up to noise and JPEG rounding: about 5 % in each ratio. */
const GREY_SPREAD = 0.05;
/** Positions along the locus are counted in steps this long. */
const LOCUS_STEP = 0.01;
/**
 * Pixels darker than this (linear luminance, sRGB level ~ 48) or with a channel this close to zero
 * are left out: an 8-bit step or a little noise changes their ratios by more than GREY_SPREAD.
 */
const MIN_LUMINANCE = 0.03;
const MIN_CHANNEL = LINEAR_OF_LEVEL[8];
/** A channel at 250 or more may be clipped, which bends its ratios towards white. */
const MAX_CHANNEL = LINEAR_OF_LEVEL[250];
/**
 * Photos reach us through a camera's automatic white balance, which leaves small casts far more
 * often than large ones; a beige or wooden surface is a large cast's grey too. So a grey counts by
 * a Gaussian prior on its cast, halving at 0.88 (three fifths of an uncorrected tungsten cast,
 * 1.5): a large cast wins only where nothing near neutral competes with it, as under a real one.
 */
const CAST_PRIOR_SPREAD = 0.75;
const castPrior = (u: number, v: number) => Math.exp(-(u * u + v * v) / (2 * CAST_PRIOR_SPREAD ** 2));

/**
 * The light found must be able to have lit the whole photo (a gamut constraint, as in Forsyth's
 * colour constancy): under it, every surface is the corrected colour, and no surface reflects more
 * of any channel than a white does. The brightest greys found are at least a dark grey card (18 %),
 * so a corrected channel may exceed their luminance by at most 1 / 0.18, with a margin: 6 times. A
 * saturated product under a real cast stays inside (the cast dimmed the channels the correction
 * raises); an orange product taken for a grey under tungsten, in a photo whose other surfaces are
 * a bright blue, would need that blue to reflect ten times more than the "grey", so the cast is cut
 * until no more than IMPOSSIBLE_SHARE of the photo would. A saturated product under a true cast
 * therefore does not pull against the correction: it counts neither way.
 */
const BRIGHTEST_OVER_GREY = 6;
const IMPOSSIBLE_SHARE = 0.02;

/**
 * A neutral surface has one chromaticity however bright it is (light changes its channels by one
 * factor); wood, skin or fabric, the colours that pass for a grey under a warm or cold light, vary
 * with their texture. Of the candidates within TEXTURE_SPREAD of the light found, the greys of a
 * photo keep 60 % or more within GREY_SPREAD even as JPEG sends it (chroma rounding in a dim channel
 * under a strong cast, and a wall a few per cent off neutral beside a grey card, spill the rest), and
 * a wood grain far less: the correction fades out from 60 % to 40 %.
 */
const TEXTURE_SPREAD = 3 * GREY_SPREAD;
const TIGHT_GREYS: readonly [number, number] = [0.4, 0.6];
/**
 * Enough grey to trust: a grey card or white print at 3 % of the frame is a reliable light; below
 * it the correction fades out with the evidence, to none.
 */
const TRUSTED_GREY_SHARE = 0.03;

/** The locus's segments: start, direction, squared length and distance along it to their start. */
const SEGMENTS = LOCUS.slice(1).map(([u, v], i) => {
  const [u0, v0] = LOCUS[i];
  return {
    u0,
    v0,
    du: u - u0,
    dv: v - v0,
    lengthSquared: (u - u0) ** 2 + (v - v0) ** 2,
    // The band of ln B/G within which a chromaticity can be near this segment.
    vLow: Math.min(v0, v) - CANDIDATE_REACH,
    vHigh: Math.max(v0, v) + CANDIDATE_REACH,
  };
});
const SEGMENT_STARTS = SEGMENTS.reduce<number[]>(
  (starts, segment, i) => [...starts, starts[i] + Math.sqrt(segment.lengthSquared)],
  [0],
);
const LOCUS_LENGTH = SEGMENT_STARTS[SEGMENTS.length];

/**
 * Where a chromaticity lies along the locus (arc length), or -1 when it is further than
 * CANDIDATE_REACH off it; `off` receives its squared distance. Segments whose ln B/G range is
 * further than that from `v` are skipped before any arithmetic: most are, for any pixel.
 */
function placeOnLocus(u: number, v: number, off: { squared: number }): number {
  let nearest = CANDIDATE_REACH * CANDIDATE_REACH;
  let along = -1;
  for (let i = 0; i < SEGMENTS.length; i++) {
    const { u0, v0, du, dv, lengthSquared, vLow, vHigh } = SEGMENTS[i];
    if (v < vLow || v > vHigh) continue;
    const t = Math.min(1, Math.max(0, ((u - u0) * du + (v - v0) * dv) / lengthSquared));
    const offU = u - u0 - t * du;
    const offV = v - v0 - t * dv;
    const distance = offU * offU + offV * offV;
    if (distance <= nearest) {
      nearest = distance;
      along = SEGMENT_STARTS[i] + t * Math.sqrt(lengthSquared);
    }
  }
  off.squared = nearest;
  return along;
}

/**
 * The likeliest lights' positions along the locus, likeliest first: where the most greys lie within
 * GREY_SPREAD, each grey counted by the prior on its cast (castPrior). Each next one lies further
 * than twice GREY_SPREAD from those before it, so it is another light, not the same one again.
 */
function likeliestPositions(candidates: Candidates, wanted: number): number[] {
  const bins = new Float64Array(Math.ceil(LOCUS_LENGTH / LOCUS_STEP) + 1);
  for (let i = 0; i < candidates.count; i++) {
    if (candidates.onLocus[i] === 0) continue;
    const bin = Math.min(bins.length - 1, Math.floor(candidates.along[i] / LOCUS_STEP));
    bins[bin] += castPrior(candidates.u[i], candidates.v[i]);
  }
  const reach = Math.round(GREY_SPREAD / LOCUS_STEP);
  const around = bins.map((_, bin) => {
    let sum = 0;
    for (let other = Math.max(0, bin - reach); other <= Math.min(bins.length - 1, bin + reach); other++) {
      sum += bins[other];
    }
    return sum;
  });
  const positions: number[] = [];
  while (positions.length < wanted) {
    let best = -1;
    for (let bin = 0; bin < bins.length; bin++) {
      if (around[bin] > 0 && (best < 0 || around[bin] > around[best])) best = bin;
    }
    if (best < 0) break;
    positions.push((best + 0.5) * LOCUS_STEP);
    for (let bin = Math.max(0, best - 2 * reach); bin <= Math.min(bins.length - 1, best + 2 * reach); bin++) {
      around[bin] = 0;
    }
  }
  return positions;
}

/**
 * Pixels that may be a grey under some light: their linear RGB, chromaticity, place on the locus,
 * and whether they lie within TINT_TOLERANCE of it (1) or only within CANDIDATE_REACH (0).
 */
interface Candidates {
  rgb: Float32Array;
  u: Float32Array;
  v: Float32Array;
  along: Float32Array;
  onLocus: Uint8Array;
  count: number;
}

function candidatesOf(rgb: Float32Array, count: number): Candidates {
  const candidates: Candidates = {
    rgb: new Float32Array(count * 3),
    u: new Float32Array(count),
    v: new Float32Array(count),
    along: new Float32Array(count),
    onLocus: new Uint8Array(count),
    count: 0,
  };
  const off = { squared: 0 };
  for (let i = 0; i < count; i++) {
    const r = rgb[i * 3];
    const g = rgb[i * 3 + 1];
    const b = rgb[i * 3 + 2];
    if (luminance(r, g, b) < MIN_LUMINANCE || Math.min(r, g, b) < MIN_CHANNEL || Math.max(r, g, b) >= MAX_CHANNEL) {
      continue;
    }
    const u = Math.log(r / g);
    const v = Math.log(b / g);
    const along = placeOnLocus(u, v, off);
    if (along < 0) continue;
    const n = candidates.count++;
    candidates.rgb[n * 3] = r;
    candidates.rgb[n * 3 + 1] = g;
    candidates.rgb[n * 3 + 2] = b;
    candidates.u[n] = u;
    candidates.v[n] = v;
    candidates.along[n] = along;
    candidates.onLocus[n] = off.squared <= TINT_TOLERANCE * TINT_TOLERANCE ? 1 : 0;
  }
  return candidates;
}

/** Mean chromaticity of the candidates on the locus within GREY_SPREAD of a position along it. */
function chromaticityAt(candidates: Candidates, position: number): [number, number] | null {
  let u = 0;
  let v = 0;
  let count = 0;
  for (let i = 0; i < candidates.count; i++) {
    if (candidates.onLocus[i] === 0 || Math.abs(candidates.along[i] - position) > GREY_SPREAD) continue;
    u += candidates.u[i];
    v += candidates.v[i];
    count++;
  }
  return count === 0 ? null : [u / count, v / count];
}

/**
 * Mean linear RGB and number of the candidates within GREY_SPREAD of the chromaticity (u, v), and
 * the number within TEXTURE_SPREAD.
 */
function greysAround(
  candidates: Candidates,
  [u, v]: [number, number],
): { mean: number[]; count: number; around: number } {
  const sum = [0, 0, 0];
  let count = 0;
  let around = 0;
  for (let i = 0; i < candidates.count; i++) {
    const distance = (candidates.u[i] - u) ** 2 + (candidates.v[i] - v) ** 2;
    if (distance <= TEXTURE_SPREAD ** 2) around++;
    if (distance > GREY_SPREAD ** 2) continue;
    for (let c = 0; c < 3; c++) sum[c] += candidates.rgb[i * 3 + c];
    count++;
  }
  return { mean: sum.map((total) => total / count), count, around };
}

/** The chromaticity of a linear RGB colour. */
const chromaticity = ([r, g, b]: readonly number[]): [number, number] => [Math.log(r / g), Math.log(b / g)];

/** How much of a cast found on `greys` to undo, 0..1, by the evidence: the grey share and tightness. */
function trustIn(greys: { count: number; around: number }, count: number) {
  const tightness = (greys.count / greys.around - TIGHT_GREYS[0]) / (TIGHT_GREYS[1] - TIGHT_GREYS[0]);
  return Math.max(0, Math.min(1, greys.count / (TRUSTED_GREY_SHARE * count), tightness));
}

/** Gains that undo `share` of the cast (a shift in chromaticity), keeping a grey's luminance. */
function gainsFor(cast: [number, number], share: number): [number, number, number] {
  const r = Math.exp(share * cast[0]);
  const b = Math.exp(share * cast[1]);
  // The grey (r, 1, b) becomes (k, k, k), keeping its luminance k.
  const k = luminance(r, 1, b);
  return [k / r, k, k / b];
}

/** Luminance of the brightest greys (95th percentile) within GREY_SPREAD of the chromaticity (u, v). */
function brightGreyLuminance(candidates: Candidates, [u, v]: [number, number]): number {
  const luminances = new Float32Array(candidates.count);
  let count = 0;
  for (let i = 0; i < candidates.count; i++) {
    if ((candidates.u[i] - u) ** 2 + (candidates.v[i] - v) ** 2 > GREY_SPREAD ** 2) continue;
    const { rgb } = candidates;
    luminances[count++] = luminance(rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2]);
  }
  const sorted = luminances.subarray(0, count).sort();
  return sorted[Math.floor(0.95 * (count - 1))];
}

/**
 * Share of the photo that would reflect more than BRIGHTEST_OVER_GREY times the bright greys'
 * luminance; clipped pixels, whose colour is unknown, are left out.
 */
function impossibleShare(rgb: Float32Array, count: number, gains: readonly number[], greyLuminance: number) {
  const limit = BRIGHTEST_OVER_GREY * greyLuminance;
  let impossible = 0;
  for (let i = 0; i < count; i++) {
    if (rgb[i * 3] >= MAX_CHANNEL || rgb[i * 3 + 1] >= MAX_CHANNEL || rgb[i * 3 + 2] >= MAX_CHANNEL) continue;
    const r = rgb[i * 3] * gains[0];
    const g = rgb[i * 3 + 1] * gains[1];
    const b = rgb[i * 3 + 2] * gains[2];
    if (r > limit || g > limit || b > limit) impossible++;
  }
  return impossible / count;
}

/**
 * The light of the greys around a position along the locus: its cast, and the share of it to undo
 * (the evidence, cut until the light could have lit every surface); or null with no greys there.
 */
function lightAt(
  rgb: Float32Array,
  count: number,
  candidates: Candidates,
  position: number,
): { cast: [number, number]; share: number; trust: number } | null {
  // The greys around the position in the plane, so their tint counts too; then again around their
  // mean (a mean shift), until it settles: greys under a tinted light lie off the locus, and a
  // first mean still leans towards it.
  let centre = chromaticityAt(candidates, position);
  if (!centre) return null;
  let greys = greysAround(candidates, centre);
  for (let step = 0; step < MEAN_SHIFT_STEPS && greys.count > 0; step++) {
    const next = chromaticity(greys.mean);
    const moved = Math.hypot(next[0] - centre[0], next[1] - centre[1]);
    centre = next;
    greys = greysAround(candidates, centre);
    if (moved < 0.002) break;
  }
  if (greys.count === 0) return null;

  // A cast is a shift in chromaticity, so undoing part of it is a fraction of that shift; the
  // share is cut (halving the gap each time) until the light found could have lit every surface.
  const cast = chromaticity(greys.mean);
  const greyLuminance = brightGreyLuminance(candidates, cast);
  const trust = trustIn(greys, count);
  let share = trust;
  if (impossibleShare(rgb, count, gainsFor(cast, share), greyLuminance) > IMPOSSIBLE_SHARE) {
    let possible = 0;
    for (let step = 0; step < 6; step++) {
      const middle = (possible + share) / 2;
      if (impossibleShare(rgb, count, gainsFor(cast, middle), greyLuminance) > IMPOSSIBLE_SHARE) share = middle;
      else possible = middle;
    }
    share = possible;
  }
  return { cast, share, trust };
}

/** At most this many re-centrings of the greys on their mean. */
const MEAN_SHIFT_STEPS = 6;

/** The likeliest lights tried in turn, when one could not have lit the photo. */
const LIGHTS_TRIED = 3;

/**
 * Linear gains (R, G, B) that make the photo's greys neutral, or [1, 1, 1] when it has none. A grey
 * keeps its luminance: the gains move colour, not exposure. `rgb` holds `count` pixels of linear RGB.
 * The likeliest light is taken unless it could not have lit the photo (its correction cut by the
 * gamut constraint): a saturated product that passes for a grey under some light (a blue box under
 * tungsten looks like a grey in blue shade) then gives way to the next likeliest, the walls and
 * cards around it; if none could, the one whose correction goes furthest.
 */
export function whiteBalanceGains(rgb: Float32Array, count: number): [number, number, number] {
  const candidates = candidatesOf(rgb, count);
  let chosen: { cast: [number, number]; share: number } | null = null;
  for (const position of likeliestPositions(candidates, LIGHTS_TRIED)) {
    const light = lightAt(rgb, count, candidates, position);
    if (!light) continue;
    if (light.trust > 0 && light.share >= light.trust - 1e-9) {
      chosen = light;
      break;
    }
    const size = (found: { cast: [number, number]; share: number }) => found.share * Math.hypot(...found.cast);
    if (!chosen || size(light) > size(chosen)) chosen = light;
  }
  return chosen ? gainsFor(chosen.cast, chosen.share) : [1, 1, 1];
}
