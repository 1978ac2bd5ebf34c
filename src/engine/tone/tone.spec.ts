import { LINEAR_OF_LEVEL, toEncoded } from './linear-light';
import type { RawImage } from '../raw-image';
import { analyseTone, applyTone, saturationMatrix, type ToneRequest } from './tone';

/** A `width` x `height` RGB image whose pixel at (x, y) is `colour(x, y)`. */
function image(width: number, height: number, colour: (x: number, y: number) => number[]): RawImage {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(colour(x, y), (y * width + x) * 3);
  }
  return { data, width, height, channels: 3 };
}

const request = (overrides: Partial<ToneRequest>): ToneRequest => ({
  light: false,
  color: false,
  brightnessOffset: 0,
  saturationOffset: 0,
  ...overrides,
});

/** The 8-bit colour of linear RGB. */
const encoded = (linear: number[]) => linear.map((value) => Math.round(255 * toEncoded(value)));
/** An 18 % grey card under CIE illuminant A (tungsten), as a camera balanced for daylight records it. */
const TUNGSTEN = [1, 0.4477, 0.1264];
const underTungsten = (grey: number) => encoded(TUNGSTEN.map((gain) => grey * gain));

function corrected(photo: RawImage, overrides: Partial<ToneRequest>): RawImage {
  const tone = analyseTone(photo, request(overrides));
  if (tone.map) applyTone(photo, tone.map);
  return photo;
}

const pixel = (photo: RawImage, x: number, y: number) =>
  Array.from(photo.data.subarray((y * photo.width + x) * photo.channels, (y * photo.width + x + 1) * photo.channels));

describe(analyseTone.name, () => {
  it('changes nothing when neither light nor color is asked for', () => {
    expect(
      analyseTone(
        image(4, 4, () => [10, 20, 30]),
        request({}),
      ),
    ).toEqual({ map: null, saturation: 1 });
  });

  it('changes nothing on a well-exposed neutral photo', () => {
    const ramp = image(256, 4, (x) => [x, x, x]);
    expect(analyseTone(ramp, request({ light: true, color: true })).map).toBeNull();
  });

  it('color: makes a grey card under tungsten neutral and leaves a clipped white background white', () => {
    // Left: the card, 18 % and 50 % grey under tungsten. Right quarter: a white background, clipped.
    const photo = image(16, 16, (x, y) => (x >= 12 ? [255, 255, 255] : underTungsten(y < 8 ? 0.18 : 0.5)));
    corrected(photo, { color: true });
    for (const [x, y] of [
      [2, 2],
      [2, 12],
    ]) {
      const [r, g, b] = pixel(photo, x, y);
      expect(Math.max(r, g, b) - Math.min(r, g, b)).toBeLessThanOrEqual(2);
    }
    expect(pixel(photo, 14, 8)).toEqual([255, 255, 255]);
  });

  it('light: lifts an underexposed grey ramp to the exposure curve, its darkest level as an exposure would', () => {
    // Greys 12..58: black 12, key 35, white 58 (0.5 % tails of 47 levels fall inside the end levels).
    // The key halfway up: black rises by half of a quarter of what a gain of 196/58 gives it, 12 + 3.6.
    const photo = image(47, 4, (x) => [12 + x, 12 + x, 12 + x]);
    corrected(photo, { light: true });
    expect(pixel(photo, 0, 0)).toEqual([15, 15, 15]);
    expect(pixel(photo, 46, 0)).toEqual([196, 196, 196]);
    // Halfway between the lifted black (15.6) and white (196).
    expect(pixel(photo, 23, 0)).toEqual([106, 106, 106]);
  });

  it('light: lifts a colour by one gain on its three channels, so its hue and saturation stay', () => {
    // A dark red beside a dark grey ramp: the red's linear R/G and B/G ratios are kept.
    const photo = image(48, 4, (x) => (x === 47 ? [60, 14, 16] : [12 + x, 12 + x, 12 + x]));
    corrected(photo, { light: true });
    const [r, g, b] = pixel(photo, 47, 0).map((level) => LINEAR_OF_LEVEL[level]);
    const [r0, g0, b0] = [60, 14, 16].map((level) => LINEAR_OF_LEVEL[level]);
    expect(r).toBeGreaterThan(3 * r0);
    expect(r / g).toBeCloseTo(r0 / g0, 0);
    expect(b / g).toBeCloseTo(b0 / g0, 1);
  });

  it('leaves alpha alone', () => {
    const photo: RawImage = {
      data: Buffer.from(Array.from({ length: 64 }, (_, i) => underTungsten(0.18).concat(i % 2 ? 77 : 200)).flat()),
      width: 8,
      height: 8,
      channels: 4,
    };
    corrected(photo, { color: true });
    for (let i = 0; i < 64; i++) expect(photo.data[i * 4 + 3]).toBe(i % 2 ? 77 : 200);
  });

  it('boosts the saturation of a dull photo a little, and by the variant offset more', () => {
    const dull = image(8, 8, () => [140, 128, 120]);
    expect(analyseTone(dull, request({ color: true })).saturation).toBeGreaterThan(1.05);
    expect(analyseTone(dull, request({ color: true, saturationOffset: 0.05 })).saturation).toBeCloseTo(
      analyseTone(dull, request({ color: true })).saturation + 0.05,
      6,
    );
  });
});

describe(applyTone.name, () => {
  it('leaves every level as it is when it has nothing to do', () => {
    const photo = image(256, 1, (x) => [x, 255 - x, (x * 7) % 256]);
    const before = Buffer.from(photo.data);
    applyTone(photo, { gains: new Float32Array(768).fill(1), exposure: null });
    expect(photo.data.equals(before)).toBe(true);
  });
});

describe(saturationMatrix.name, () => {
  it('saturates around luma, so a grey stays grey', () => {
    const matrix = saturationMatrix(1.3);
    const apply = (rgb: number[]) => matrix.map((row) => row.reduce((sum, weight, i) => sum + weight * rgb[i], 0));
    for (const value of apply([90, 90, 90])) expect(value).toBeCloseTo(90, 6);
    const [r, g] = apply([200, 100, 100]);
    expect(r - g).toBeCloseTo(130, 6);
  });
});
