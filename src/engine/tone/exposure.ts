/**
 * Exposure: one smooth tone curve on each pixel's brightness, chosen from the photo's histogram.
 *
 * Brightness is a pixel's largest channel (HSV's value) in sRGB's encoded levels, 0..255. tone.ts
 * applies the curve as one gain on all three channels in linear light, which is what a change of
 * exposure is: hue and saturation are kept, and since the largest channel lands exactly on the
 * curve, no colour clips. The encoded scale is nearly perceptual (a level is about 0.4 ΔL* in the
 * midtones) and it is the scale that noise and 8-bit steps come in, so the gain limit is stated in it.
 *
 * Three levels are measured on the photo's content: black (0.5 % of it is darker), key (the median)
 * and white (0.5 % is brighter). Each has a normal range. A photo whose levels are all in range is
 * left exactly as it is, and a level outside is moved to the nearest edge of its range, no further:
 * the least correction that makes the photo plausible, so a nearly right photo changes by little.
 */

/** Black, key and white of a photo's content, and how much of it is a white background. */
export interface ExposureLevels {
  black: number;
  key: number;
  white: number;
  /** Share of the whole photo that is near-white (every channel at NEAR_WHITE or more). */
  whiteBackground: number;
  /**
   * The photo's floor: its smallest channel that 1 % of it is darker in, white left out. Flare and
   * overexposure lift every channel; a saturated colour keeps one low, so a red product on a light
   * wall has a dark floor however bright its largest channel is.
   */
  floor: number;
  /** Share of the whole photo with a channel clipped (at CLIPPED_WHITE or more). */
  clipped: number;
  /** Key (median brightness) of what is neither near-white nor clipped: the subject of a packshot. */
  subjectKey: number;
  /** Share of the photo's outermost pixels that are white (every channel at CLEAN_WHITE or more). */
  whiteBorder: number;
}

/**
 * Levels at 0-1 and 254-255 are clipped and say nothing about exposure: a pure white studio
 * background is left out of the measurement (and, at 255, mapped to itself by every curve).
 */
const CLIPPED_BLACK = 1;
const CLIPPED_WHITE = 254;
/** The tails left out of black and white: a few specular or dead pixels do not decide them. */
const TAIL = 0.005;
/** Too little content (a small logo on white) to measure an exposure from. */
const MIN_CONTENT_SHARE = 0.01;

/**
 * The steepest the curve may be: one source level becomes at most four. A midtone level is about
 * 0.4 ΔL*, so a step stays under 2 ΔL*, about where a step in a smooth gradient starts to show, and
 * the noise of a dark JPEG (1-2 levels) grows to the grain of a high-ISO phone photo. More gain
 * would trade a dark photo for a noisy, banded one.
 */
const MAX_GAIN = 4;
/**
 * White's normal range starts at L* 80, a light grey: a correctly exposed photo has something at
 * least this bright in its brightest 0.5 % (a lit edge, a label, the backdrop). A photo whose
 * brightest tones stay darker is underexposed, and is lifted until they reach it.
 */
const WHITE_LEVEL = 200;
/**
 * Where a photo that is clearly underexposed has its white put: L* 92, the brightest detail of a
 * correctly exposed product shot below a white backdrop, with the shoulder above it left for the
 * highlights. A white just under WHITE_LEVEL goes to WHITE_LEVEL, one at DARK_WHITE's end or
 * darker to LIFTED_WHITE, and one between in proportion, so the correction has no jump.
 */
const LIFTED_WHITE = 235;
const DARK_WHITE: Ramp = [WHITE_LEVEL, 120];
/**
 * How much of an exposure's rise black takes on an underexposed photo: half. All of it would lift
 * the mean most but spread the tones least (the stretch from a raised black to white is smaller);
 * none would keep black and leave a dark photo's content crowded just above it. Half keeps most of
 * both: a photo with every tone between 10 and 60 rises by over 30 levels in mean luma and keeps a
 * tonal range over three times its own.
 */
const EXPOSURE_LIFT_SHARE = 0.5;
/**
 * A washed-out photo has lost its shadows and crowds its midtones at the top. A shadow or a dark
 * print sits at L* 20 or below in a correctly exposed photo, and two stops of overexposure lift it
 * to about L* 41: black lighter than L* 36 (85) starts to count as lifted, at L* 50 (119, middle
 * grey) fully.
 */
const LIFTED_BLACK: Ramp = [85, 119];
/** A key above L* 80 (200) leaves the midtones the top fifth of the range; at L* 90 (228), none. */
const CROWDED_KEY: Ramp = [200, 228];
/**
 * A white studio background is not overexposure, whatever the product on it looks like: a photo
 * that is 10 % near-white starts to count as one, at 30 % fully. Near-white is every channel at L*
 * 86 (215) or more, so it is also near neutral.
 */
const WHITE_BACKGROUND: Ramp = [0.1, 0.3];
export const NEAR_WHITE = 215;
/**
 * A photo with nothing dark anywhere is washed out, whatever is white in it: a correctly exposed
 * photo of real surfaces has a shadow, a print or a saturated colour whose smallest channel is at L*
 * 46 (115) or below. A floor above it starts to count, at L* 60 (150) fully: a studio packshot on
 * white has a product with its own darks, a washed-out photo of a light wall has none.
 */
const LIFTED_FLOOR: Ramp = [115, 150];
/**
 * Overexposed with clipped highlights: 5 % of the photo clipped starts to count, 20 % fully, when the
 * rest has no true blacks (LIFTED_BLACK) and is not the well-exposed subject of a packshot on white.
 */
const CLIPPED_SHARE: Ramp = [0.05, 0.2];
/**
 * The subject of a packshot is exposed for itself, its key in the midtones; the subject of an
 * overexposed photo crowds at the top. A subject key above 170 starts to count as overexposed, above
 * 210 (L* 83) fully.
 */
const SUBJECT_KEY: Ramp = [170, 210];
/** Or the subject has no darks at all: its black at L* 42 (100) or above starts to count, 120 fully. */
const SUBJECT_BLACK: Ramp = [100, 120];
/**
 * Clipped areas lift nothing below them, so an overexposed photo's black is less lifted than a
 * flared one's: from L* 29 (70), at L* 45 (110) fully. A packshot's product has darks below it.
 */
const CLIPPED_BLACK_RAMP: Ramp = [70, 110];
/**
 * How far an overexposed photo's key is pulled below where the stretch to a lowered black puts it:
 * its clipped areas keep the mean high, so its midtones are taken a little further down.
 */
const OVEREXPOSED_KEY_DROP = 35;
/**
 * A packshot's backdrop is clean white all round the product, so nearly all of the photo's border is
 * white; an overexposed photo's clipped wall leaves its table, floor or sides below white. A white
 * border of 60 % starts to count as a packshot, 90 % fully.
 */
const WHITE_BORDER: Ramp = [0.6, 0.9];
export const CLEAN_WHITE = 250;
/** The floor's tail: 1 % of the photo. */
const FLOOR_TAIL = 0.01;

/** Where a quantity starts to count, and where it counts fully. */
type Ramp = readonly [number, number];
const ramp = (value: number, [from, to]: Ramp) => Math.min(1, Math.max(0, (value - from) / (to - from)));

/** Value below which `fraction` of the histogram's mass lies. */
function percentile(histogram: Uint32Array, total: number, fraction: number): number {
  const wanted = fraction * total;
  let seen = 0;
  for (let value = 0; value < histogram.length; value++) {
    seen += histogram[value];
    if (seen > wanted) return value;
  }
  return histogram.length - 1;
}

/** The levels of 8-bit RGB samples (`count` pixels), or null with too little content. */
export function measureExposure(rgb: Uint8Array, count: number, whiteBorder = 0): ExposureLevels | null {
  const histogram = new Uint32Array(256);
  const floors = new Uint32Array(256);
  const subject = new Uint32Array(256);
  let content = 0;
  let nearWhite = 0;
  let clipped = 0;
  let coloured = 0;
  let subjectCount = 0;
  for (let i = 0; i < count; i++) {
    const r = rgb[i * 3];
    const g = rgb[i * 3 + 1];
    const b = rgb[i * 3 + 2];
    const smallest = Math.min(r, g, b);
    const brightness = Math.max(r, g, b);
    if (smallest >= NEAR_WHITE) nearWhite++;
    if (brightness >= CLIPPED_WHITE) clipped++;
    if (smallest < CLIPPED_WHITE) {
      floors[smallest]++;
      coloured++;
    }
    if (brightness <= CLIPPED_BLACK || brightness >= CLIPPED_WHITE) continue;
    histogram[brightness]++;
    content++;
    if (smallest < NEAR_WHITE) {
      subject[brightness]++;
      subjectCount++;
    }
  }
  if (content === 0 || content < MIN_CONTENT_SHARE * count) return null;
  return {
    black: percentile(histogram, content, TAIL),
    key: percentile(histogram, content, 0.5),
    white: percentile(histogram, content, 1 - TAIL),
    whiteBackground: nearWhite / count,
    floor: percentile(floors, coloured, FLOOR_TAIL),
    clipped: clipped / count,
    subjectKey: subjectCount === 0 ? 255 : percentile(subject, subjectCount, 0.5),
    whiteBorder,
  };
}

/**
 * How washed out or overexposed a photo is, 0..1, in three ways: a lifted black with a crowded key
 * on a photo that is not a white studio background; nothing dark anywhere (a lifted floor) with a
 * crowded key; or large clipped areas over a subject without blacks that is crowded at the top
 * (not a packshot on white, whose subject is exposed for itself and whose white runs all round the
 * border). The second part is the share of
 * the last way, which pulls the key further down.
 */
function overexposure(levels: ExposureLevels): { washed: number; clipping: number } {
  const { black, key, whiteBackground, floor, clipped, subjectKey, whiteBorder } = levels;
  const crowded = ramp(key, CROWDED_KEY);
  const liftedBlack = crowded * ramp(black, LIFTED_BLACK) * (1 - ramp(whiteBackground, WHITE_BACKGROUND));
  const liftedFloor = crowded * ramp(floor, LIFTED_FLOOR);
  // A packshot's product has darks of its own (black below LIFTED_BLACK) or is exposed for itself
  // (its key in the midtones); an overexposed photo's content has neither.
  const clipping =
    ramp(clipped, CLIPPED_SHARE) *
    ramp(black, CLIPPED_BLACK_RAMP) *
    Math.max(ramp(subjectKey, SUBJECT_KEY), ramp(black, SUBJECT_BLACK)) *
    (1 - ramp(whiteBorder, WHITE_BORDER));
  return { washed: Math.max(liftedBlack, liftedFloor, clipping), clipping };
}

/**
 * The rational curve through (0, 0) and (1, 1) with slope 1 + bend at 0 and 1 / (1 + bend) at 1:
 * concave for a positive bend, convex for a negative one, a straight line at 0. Its slope is
 * bounded by those two, so a gain limit on its ends holds everywhere.
 */
const bent = (t: number, bend: number) => (t * (1 + bend)) / (1 + bend * t);

/** The bend whose curve takes `t` to `to` (both strictly between 0 and 1). */
const bendThrough = (t: number, to: number) => (to - t) / (t * (1 - to));

/** Keeps a fraction of the range strictly inside it, where a bend through it exists. */
const inside = (fraction: number) => Math.min(0.98, Math.max(0.02, fraction));

/**
 * The exposure curve on brightness 0..255, or null when it changes nothing. Between black and white
 * it is a stretch bent at the key; below black a toe and above white a shoulder, each a bent curve
 * meeting the middle with the same slope, so shadows are compressed smoothly into what is left
 * below and highlights into what is left above: nothing is clipped, 0 and 255 stay where they are,
 * and distinct levels stay distinct. `brightnessOffset` (0..1 of the range) moves the key further,
 * for variants: a deliberate choice, so it is not held to the gain limit.
 */
export function exposureCurve(levels: ExposureLevels, brightnessOffset = 0): ((brightness: number) => number) | null {
  const { black, key, white } = levels;
  const span = white - black;
  if (span < 1) return null;

  const { washed: washedOut, clipping } = overexposure(levels);
  // Underexposed: white lifted to its range.
  const whiteGoal = WHITE_LEVEL + (LIFTED_WHITE - WHITE_LEVEL) * ramp(white, DARK_WHITE);
  const whiteTarget = white >= WHITE_LEVEL ? white : Math.min(whiteGoal, black + MAX_GAIN * span);
  const t = (key - black) / span;
  // Washed out: black pulled down towards its range, white kept. Underexposed: black lifted as far
  // as a gain from 0 (a change of exposure) would lift it, weighted by how close the key sits to
  // black: the content of a dark photo crowds just above its black, and a stretch pivoting on black
  // alone would leave it there however far white is lifted.
  const exposureLift = white < whiteTarget ? EXPOSURE_LIFT_SHARE * (1 - t) ** 2 * black * (whiteTarget / white - 1) : 0;
  const blackTarget = Math.max(
    whiteTarget - MAX_GAIN * span,
    black + exposureLift - washedOut * Math.max(0, black - LIFTED_BLACK[0]),
  );
  const stretch = (whiteTarget - blackTarget) / span;
  const range = whiteTarget - blackTarget;

  // Washed out: the key pulled down towards its range too, which steepens the crowded top.
  const levelledKey = blackTarget + t * range;
  const keyTarget =
    levelledKey - washedOut * Math.max(0, levelledKey - CROWDED_KEY[0]) - clipping * OVEREXPOSED_KEY_DROP;
  const keyInside = t > 0.02 && t < 0.98;
  let bend = keyInside ? bendThrough(t, inside((keyTarget - blackTarget) / range)) : 0;
  bend = Math.min(MAX_GAIN / stretch - 1, Math.max(stretch / MAX_GAIN - 1, bend));
  if (keyInside && brightnessOffset !== 0) {
    bend = bendThrough(t, inside(bent(t, bend) + (255 * brightnessOffset) / range));
  }
  if (whiteTarget === white && blackTarget === black && Math.abs(bend) < 1e-6) return null;

  const slopeAtBlack = stretch * (1 + bend);
  const slopeAtWhite = stretch / (1 + bend);
  // The toe's slope at black is 1 / (1 + toeBend) in its own units; the shoulder's at white 1 + shoulderBend.
  const toeBend = blackTarget / (slopeAtBlack * black) - 1;
  const shoulderBend = (slopeAtWhite * (255 - white)) / (255 - whiteTarget) - 1;
  return (brightness) => {
    if (brightness <= black) return black === 0 ? 0 : blackTarget * bent(brightness / black, toeBend);
    if (brightness >= white) {
      return whiteTarget + (255 - whiteTarget) * bent((brightness - white) / (255 - white), shoulderBend);
    }
    return blackTarget + range * bent((brightness - black) / span, bend);
  };
}
