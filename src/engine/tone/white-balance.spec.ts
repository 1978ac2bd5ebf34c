import { whiteBalanceGains } from './white-balance';

type Rgb = [number, number, number];

/** Linear RGB samples: each colour repeated `times`. */
function photo(...parts: Array<[Rgb, number]>): { rgb: Float32Array; count: number } {
  const colours = parts.flatMap(([colour, times]) => Array.from({ length: times }, () => colour));
  return { rgb: Float32Array.from(colours.flat()), count: colours.length };
}

const luminance = ([r, g, b]: readonly number[]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
const lit = (colour: Rgb, light: Rgb): Rgb => [colour[0] * light[0], colour[1] * light[1], colour[2] * light[2]];
const balanced = (colour: Rgb, gains: readonly number[]): Rgb => [
  colour[0] * gains[0],
  colour[1] * gains[1],
  colour[2] * gains[2],
];
/** Largest over smallest channel: 1 for a neutral grey. */
const spread = (colour: readonly number[]) => Math.max(...colour) / Math.min(...colour);

/** CIE illuminant A (tungsten) against D65 in linear sRGB, strongest channel 1. */
const TUNGSTEN: Rgb = [1, 0.4477, 0.1264];
/** The CIE daylight locus at 10 000 K (blue-sky shade) against D65. */
const SHADE: Rgb = [0.5873, 0.7208, 1];

describe(whiteBalanceGains.name, () => {
  it.each([
    ['tungsten', TUNGSTEN],
    ['shade', SHADE],
  ])('makes three greys under %s neutral and keeps their luminance', (_, light) => {
    const greys: Rgb[] = [
      [0.08, 0.08, 0.08],
      [0.18, 0.18, 0.18],
      [0.6, 0.6, 0.6],
    ];
    const samples = photo(
      ...greys.map((grey): [Rgb, number] => [lit(grey, light), 30]),
      // A blue product: far from the colour of any light, so no grey.
      [lit([0.05, 0.1, 0.5], light), 30],
    );
    const gains = whiteBalanceGains(samples.rgb, samples.count);
    for (const grey of greys) {
      const corrected = balanced(lit(grey, light), gains);
      expect(spread(corrected)).toBeLessThan(1.01);
      expect(luminance(corrected)).toBeCloseTo(luminance(lit(grey, light)), 6);
    }
  });

  it('leaves a photo of red things alone: red is no light', () => {
    const samples = photo([[0.6, 0.03, 0.03], 50], [[0.3, 0.01, 0.02], 50]);
    expect(whiteBalanceGains(samples.rgb, samples.count)).toEqual([1, 1, 1]);
  });

  it('does not take an orange product for a grey under tungsten when the rest of the photo is a bright blue', () => {
    // The orange is exactly a neutral grey under illuminant A, but tungsten could not have lit the
    // blue: undoing the cast would make it reflect ten times more blue than the "grey" reflects.
    const samples = photo([lit([0.5, 0.5, 0.5], TUNGSTEN), 40], [[0.05, 0.12, 0.6], 60]);
    const gains = whiteBalanceGains(samples.rgb, samples.count);
    const grey = luminance(lit([0.5, 0.5, 0.5], TUNGSTEN));
    expect(Math.max(...balanced([0.05, 0.12, 0.6], gains))).toBeLessThanOrEqual(6 * grey + 1e-6);
    // Most of the "cast" stays: the orange stays well away from grey.
    expect(Math.log(spread(balanced(lit([0.5, 0.5, 0.5], TUNGSTEN), gains)))).toBeGreaterThan(
      0.3 * Math.log(spread(lit([0.5, 0.5, 0.5], TUNGSTEN))),
    );
  });

  it('removes a tungsten cast with saturated products filling the frame: they do not pull against it', () => {
    // A grey card and a light wall, and a red and a blue product filling two thirds of the photo.
    const samples = photo(
      [lit([0.18, 0.18, 0.18], TUNGSTEN), 50],
      [lit([0.6, 0.6, 0.58], TUNGSTEN), 250],
      [lit([0.55, 0.035, 0.03], TUNGSTEN), 350],
      [lit([0.025, 0.07, 0.48], TUNGSTEN), 350],
    );
    const gains = whiteBalanceGains(samples.rgb, samples.count);
    // Within the few per cent the wall's own tint moves the greys' mean (uncorrected: 7.9).
    expect(spread(balanced(lit([0.18, 0.18, 0.18], TUNGSTEN), gains))).toBeLessThan(1.05);
  });

  it('does not take wood for a grey: its colour varies with its grain', () => {
    // Warm browns whose ln R/G and ln B/G wander by +-0.2, as a wood grain's do.
    const wood: Array<[Rgb, number]> = [];
    for (let i = 0; i < 100; i++) {
      const grain = Math.sin(i * 1.7) * 0.2;
      const tint = Math.cos(i * 2.3) * 0.2;
      wood.push([[0.3 * Math.exp(0.6 + grain), 0.3, 0.3 * Math.exp(-0.8 + tint)], 1]);
    }
    const samples = photo(...wood);
    expect(whiteBalanceGains(samples.rgb, samples.count)).toEqual([1, 1, 1]);
  });

  it('undoes only part of a cast seen on a sliver of grey', () => {
    // 1 % grey under shade (a third of the 3 % it trusts), the rest a blue photo confirming the cast.
    const samples = photo([lit([0.3, 0.3, 0.3], SHADE), 10], [lit([0.1, 0.2, 0.6], SHADE), 990]);
    const gains = whiteBalanceGains(samples.rgb, samples.count);
    const corrected = balanced(lit([0.3, 0.3, 0.3], SHADE), gains);
    const cast = Math.log(spread(lit([0.3, 0.3, 0.3], SHADE)));
    expect(Math.log(spread(corrected))).toBeCloseTo(cast * (1 - 1 / 3), 2);
  });
});
