import { distanceFromSeeds } from './distance-transform';

/**
 * How much of a cut-out's inside is backdrop seen through the product: the lenses inside a pair
 * of glasses, the space inside a headphone band, which the model often fills with confidence. A
 * pixel deep inside the subject counts when, looking out along a row or a column, its colour
 * matches the backdrop just beyond the outline while the subject's own band at that outline does
 * not (a frame around it), in at least two of the four directions. A white product on a white
 * backdrop matches the backdrop too, but so does its own outline band, so it does not count. On
 * the generated shots this alone marks every filled-in pair of glasses (IoU about 0.2), which
 * every other cue saw as a clean, sure cut-out. Four scans of the map: O(N).
 */

/** Largest channel difference (0..255) at which two colours are the same backdrop: JPEG noise and a gentle gradient. */
const SAME_COLOUR = 16;
/** Smallest channel difference between the subject's outline band and the backdrop for the band to be a frame. */
const FRAME_CONTRAST = 40;
/** Pixels beyond the outline where the backdrop is read, and inside it where the band is: past the blended edge. */
const BEYOND_OUTLINE = 2;
const BAND_DEPTH = 3;
/** Only pixels deeper than this inside the subject are judged: the outline's own band is the frame. */
const MIN_DEPTH = 4;
/** Directions (of four) that must agree. */
const MIN_VOTES = 2;

/** The share, 0..1, of the subject's inside (deeper than MIN_DEPTH) that is backdrop seen through; `photo` is RGB. */
export function seenThroughShare(subject: Uint8Array, photo: Buffer, width: number, height: number): number {
  const n = width * height;
  const outside = new Uint8Array(n);
  for (let i = 0; i < n; i++) outside[i] = subject[i] ? 0 : 1;
  const depth = distanceFromSeeds(outside, width, height);
  const votes = new Uint8Array(n);
  const difference = (a: number, b: number) =>
    Math.max(
      Math.abs(photo[a * 3] - photo[b * 3]),
      Math.abs(photo[a * 3 + 1] - photo[b * 3 + 1]),
      Math.abs(photo[a * 3 + 2] - photo[b * 3 + 2]),
    );
  /** One line of pixels from `start`, `count` of them `step` apart, voting for the pixels that look through. */
  const scan = (start: number, step: number, count: number) => {
    let backdrop = -1;
    let band = -1;
    let run = 0;
    for (let s = 0; s < count; s++) {
      const i = start + s * step;
      if (!subject[i]) {
        backdrop = s >= BEYOND_OUTLINE ? i - BEYOND_OUTLINE * step : i;
        band = -1;
        run = 0;
        continue;
      }
      if (++run === BAND_DEPTH) band = i;
      if (backdrop < 0 || band < 0 || depth[i] <= MIN_DEPTH) continue;
      if (difference(i, backdrop) <= SAME_COLOUR && difference(band, backdrop) >= FRAME_CONTRAST) votes[i]++;
    }
  };
  for (let y = 0; y < height; y++) {
    scan(y * width, 1, width);
    scan(y * width + width - 1, -1, width);
  }
  for (let x = 0; x < width; x++) {
    scan(x, width, height);
    scan((height - 1) * width + x, -width, height);
  }
  let inside = 0;
  let through = 0;
  for (let i = 0; i < n; i++) {
    if (!subject[i] || depth[i] <= MIN_DEPTH) continue;
    inside++;
    if (votes[i] >= MIN_VOTES) through++;
  }
  return inside === 0 ? 0 : through / inside;
}
