import { exposureCurve, measureExposure, type ExposureLevels } from './exposure';

/** Samples of one grey per level, `from` to `to`. */
function greys(from: number, to: number): { rgb: Uint8Array; count: number } {
  const rgb = new Uint8Array((to - from + 1) * 3);
  for (let level = from; level <= to; level++) rgb.fill(level, (level - from) * 3, (level - from + 1) * 3);
  return { rgb, count: to - from + 1 };
}

const levels = (
  black: number,
  key: number,
  white: number,
  whiteBackground = 0,
  more: Partial<ExposureLevels> = {},
): ExposureLevels => ({
  black,
  key,
  white,
  whiteBackground,
  floor: 0,
  clipped: 0,
  subjectKey: 0,
  whiteBorder: 0,
  ...more,
});

/** The largest slope of a curve over 0..255, measured in tenths of a level. */
function steepest(curve: (brightness: number) => number): number {
  let slope = 0;
  for (let x = 0; x < 255; x += 0.1) slope = Math.max(slope, (curve(x + 0.1) - curve(x)) / 0.1);
  return slope;
}

describe(measureExposure.name, () => {
  it('measures black, key and white on the content, leaving clipped levels out', () => {
    // Levels 2..253 are content (252 samples): 0.5 % is 1.26 samples, so black is the second, 3.
    const { rgb, count } = greys(0, 255);
    expect(measureExposure(rgb, count)).toEqual({
      black: 3,
      key: 128,
      white: 252,
      whiteBackground: 41 / 256,
      // The floor is the smallest channel 1 % of the photo lies below, white (254, 255) left out.
      floor: 2,
      clipped: 2 / 256,
      // The subject: levels 2..214, neither clipped nor near-white.
      subjectKey: 108,
      whiteBorder: 0,
    });
  });

  it('measures brightness as the largest channel, so a saturated colour counts as bright', () => {
    const rgb = new Uint8Array(300).fill(0);
    for (let i = 0; i < 100; i++) rgb.set([230, 20, 20], i * 3);
    expect(measureExposure(rgb, 100)).toMatchObject({ black: 230, key: 230, white: 230 });
  });

  it('measures nothing on a photo that is all clipped white', () => {
    expect(measureExposure(new Uint8Array(300).fill(255), 100)).toBeNull();
  });
});

describe(exposureCurve.name, () => {
  it('leaves a well-exposed photo exactly as it is', () => {
    expect(exposureCurve(levels(3, 128, 252))).toBeNull();
    // Soft and flat, but with a white above L* 80 and shadows below L* 36: still in range.
    expect(exposureCurve(levels(60, 150, 210))).toBeNull();
  });

  it('lifts an underexposed photo by up to four times its span, and its black as an exposure would', () => {
    const curve = exposureCurve(levels(12, 25, 58)) as (brightness: number) => number;
    // 46 levels between black and white, times four: white lands on 196, short of 235.
    expect(curve(58)).toBeCloseTo(196, 6);
    // The key sits 28 % of the way up: black rises by half of (1 - 0.28)^2 of what a gain of 196/58 would give it.
    const lift = 0.5 * (1 - 13 / 46) ** 2 * 12 * (196 / 58 - 1);
    expect(curve(12)).toBeCloseTo(12 + lift, 6);
    expect(curve(35)).toBeCloseTo(12 + lift + ((196 - 12 - lift) * 23) / 46, 6);
    expect(curve(0)).toBe(0);
    expect(curve(255)).toBeCloseTo(255, 6);
    expect(steepest(curve)).toBeLessThanOrEqual(4.001);
    // The shoulder above white keeps every level distinct up to 255.
    for (let level = 58; level < 255; level++) expect(curve(level + 1)).toBeGreaterThan(curve(level));
  });

  it('lifts a dim white to 235 when it is far below 200, and by less the closer it is', () => {
    const dim = exposureCurve(levels(10, 60, 110)) as (brightness: number) => number;
    expect(dim(110)).toBeCloseTo(235, 6);
    const lift = 0.5 * 0.25 * 10 * (235 / 110 - 1);
    expect(dim(10)).toBeCloseTo(10 + lift, 6);
    expect(dim(60)).toBeCloseTo(10 + lift + (235 - 10 - lift) / 2, 6);
    // A white of 180 is a quarter of the way from 200 to 120: a quarter of the way from 200 to 235.
    expect((exposureCurve(levels(10, 95, 180)) as (brightness: number) => number)(180)).toBeCloseTo(208.75, 6);
  });

  it('pulls a washed-out photo down: black to 85, key to 200, white and 255 kept', () => {
    const curve = exposureCurve(levels(130, 230, 250)) as (brightness: number) => number;
    expect(curve(130)).toBeCloseTo(85, 6);
    expect(curve(230)).toBeCloseTo(200, 6);
    expect(curve(250)).toBeCloseTo(250, 6);
    expect(curve(255)).toBeCloseTo(255, 6);
    // The crowded top is spread: more than one output level per input level there.
    expect(curve(250) - curve(240)).toBeGreaterThan(15);
    expect(steepest(curve)).toBeLessThanOrEqual(4.001);
  });

  it('leaves a photo with a white studio background alone, however bright its content', () => {
    expect(exposureCurve(levels(130, 230, 250, 0.5))).toBeNull();
    // Its product has darks of its own and a subject key in the midtones.
    expect(exposureCurve(levels(60, 200, 250, 0.5, { floor: 20, clipped: 0.5, subjectKey: 150 }))).toBeNull();
    // A saturated product has no dark largest channel, but the white runs all round the border.
    expect(
      exposureCurve(levels(115, 175, 253, 0.8, { floor: 19, clipped: 0.8, subjectKey: 175, whiteBorder: 0.95 })),
    ).toBeNull();
  });

  it('pulls a photo with nothing dark anywhere down, even with a light wall near white', () => {
    // Every channel of every pixel above 150: the wall is not a studio background.
    const curve = exposureCurve(levels(165, 235, 252, 0.6, { floor: 150 })) as (brightness: number) => number;
    expect(curve(165)).toBeCloseTo(85, 6);
    expect(curve(235)).toBeCloseTo(200, 6);
    expect(curve(252)).toBeCloseTo(252, 6);
    expect(curve(255)).toBeCloseTo(255, 6);
  });

  it('pulls an overexposed photo with clipped highlights down, whites kept', () => {
    // A fifth clipped; the rest without blacks and crowded at the top, its key normal by itself.
    const curve = exposureCurve(levels(125, 190, 250, 0.3, { floor: 60, clipped: 0.3, subjectKey: 225 })) as (
      brightness: number,
    ) => number;
    expect(curve(125)).toBeCloseTo(85, 6);
    expect(curve(190)).toBeLessThan(85 + ((190 - 125) / 125) * 165 - 30);
    expect(curve(250)).toBeCloseTo(250, 6);
  });

  it('corrects half as much where the photo is only half washed out', () => {
    // Key 214 is halfway up the crowded-key ramp (200..228).
    const curve = exposureCurve(levels(130, 214, 250)) as (brightness: number) => number;
    expect(curve(130)).toBeCloseTo(130 - 0.5 * 45, 6);
  });

  it('moves the key by a variant offset, even on a well-exposed photo', () => {
    const brighter = exposureCurve(levels(3, 128, 252), 0.06) as (brightness: number) => number;
    expect(brighter(128)).toBeCloseTo(128 + 0.06 * 255, 6);
    expect(brighter(3)).toBeCloseTo(3, 6);
    expect(brighter(252)).toBeCloseTo(252, 6);
  });
});
