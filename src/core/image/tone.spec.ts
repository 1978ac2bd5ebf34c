import type { RawImage } from './raw-image';
import { analyseTone, applyCurves, saturationMatrix, toneCurve, whiteBalanceGains } from './tone';

/** A `width` x `height` RGB image whose pixel at (x, y) is `colour(x, y)`. */
function image(width: number, height: number, colour: (x: number, y: number) => [number, number, number]): RawImage {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(colour(x, y), (y * width + x) * 3);
  }
  return { data, width, height, channels: 3 };
}

const samplesOf = (raw: RawImage) => ({ rgb: Float32Array.from(raw.data), count: raw.width * raw.height });

function histogramOf(values: number[]): Uint32Array {
  const histogram = new Uint32Array(256);
  for (const value of values) histogram[value]++;
  return histogram;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('tone', () => {
  describe(whiteBalanceGains.name, () => {
    it('makes a grey under a warm cast neutral', () => {
      const gains = whiteBalanceGains(samplesOf(image(8, 8, () => [150, 128, 100])));
      const corrected = [150 * gains[0], 128 * gains[1], 100 * gains[2]];
      expect(Math.max(...corrected) - Math.min(...corrected)).toBeLessThan(2);
      // Brightness is kept: the luma of the grey hardly moves.
      expect(0.2126 * corrected[0] + 0.7152 * corrected[1] + 0.0722 * corrected[2]).toBeCloseTo(
        0.2126 * 150 + 0.7152 * 128 + 0.0722 * 100,
        0,
      );
    });

    it('leaves a photo with nothing grey in it alone', () => {
      const gains = whiteBalanceGains(samplesOf(image(8, 8, (x) => (x < 4 ? [200, 30, 40] : [180, 20, 60]))));
      for (const gain of gains) expect(gain).toBeCloseTo(1, 5);
    });
  });

  describe(toneCurve.name, () => {
    it('leaves a well-exposed histogram as it is', () => {
      const curve = toneCurve(histogramOf([...range(0, 255), ...range(0, 255)]), 512, 0);
      for (const value of range(0, 255)) expect(Math.abs(curve(value) - value)).toBeLessThan(1);
    });

    it('stretches a flat histogram to nearly the full range', () => {
      const values = range(60, 190);
      const curve = toneCurve(histogramOf(values), values.length, 0);
      expect(curve(60)).toBeLessThanOrEqual(4);
      expect(curve(190)).toBeGreaterThanOrEqual(250);
      expect(curve(125)).toBeGreaterThan(curve(100));
    });

    it('lifts the midtones of an underexposed histogram without clipping its highlights', () => {
      const values = [...range(0, 80), ...range(0, 80), ...range(0, 255)];
      const curve = toneCurve(histogramOf(values), values.length, 0);
      expect(curve(40)).toBeGreaterThan(60);
      expect(curve(255)).toBeLessThanOrEqual(255);
      expect(curve(254)).toBeLessThan(255);
    });
  });

  describe(analyseTone.name, () => {
    it('changes nothing when neither light nor color is asked for', () => {
      expect(
        analyseTone(
          image(4, 4, () => [10, 20, 30]),
          { light: false, color: false, brightnessOffset: 0, saturationOffset: 0 },
        ),
      ).toEqual({
        curves: null,
        saturation: 1,
      });
    });

    it('corrects a cast without moving neutral pixels off neutral, and boosts a dull photo a little', () => {
      // Two greys under the same warm cast (the second is the first, 1.5 times as bright).
      const cast = image(16, 16, (x) => (x < 8 ? [150, 128, 100] : [225, 192, 150]));
      const { curves, saturation } = analyseTone(cast, {
        light: false,
        color: true,
        brightnessOffset: 0,
        saturationOffset: 0,
      });
      expect(curves).not.toBeNull();
      applyCurves(cast, curves as [Uint8Array, Uint8Array, Uint8Array]);
      const [r, g, b] = cast.data.subarray(0, 3);
      expect(Math.max(r, g, b) - Math.min(r, g, b)).toBeLessThanOrEqual(3);
      expect(saturation).toBeGreaterThan(1);
      expect(saturation).toBeLessThanOrEqual(1.15);
    });
  });

  it('applies curves per channel and leaves alpha alone', () => {
    const rgba: RawImage = { data: Buffer.from([10, 20, 30, 77]), width: 1, height: 1, channels: 4 };
    const plus = (n: number) => Uint8Array.from(range(0, 255), (value) => Math.min(255, value + n));
    applyCurves(rgba, [plus(1), plus(2), plus(3)]);
    expect([...rgba.data]).toEqual([11, 22, 33, 77]);
  });

  it('saturates around luma, so a grey stays grey', () => {
    const matrix = saturationMatrix(1.3);
    const apply = (rgb: number[]) => matrix.map((row) => row.reduce((sum, weight, i) => sum + weight * rgb[i], 0));
    for (const value of apply([90, 90, 90])) expect(value).toBeCloseTo(90, 6);
    const [r, g] = apply([200, 100, 100]);
    expect(r - g).toBeCloseTo(130, 6);
  });
});
