import { gaussian, random } from '../../../test/support/image-fixtures';
import { wienerFilter } from './local-wiener';

const width = 40;
const height = 40;

function plane(value: (x: number, y: number) => number): Float32Array {
  return Float32Array.from({ length: width * height }, (_, i) => value(i % width, Math.floor(i / width)));
}

function deviation(values: Float32Array, from: (x: number, y: number) => number, inside: (x: number) => boolean) {
  let sum = 0;
  let count = 0;
  for (let y = 4; y < height - 4; y++) {
    for (let x = 4; x < width - 4; x++) {
      if (!inside(x)) continue;
      sum += (values[y * width + x] - from(x, y)) ** 2;
      count++;
    }
  }
  return Math.sqrt(sum / count);
}

describe(wienerFilter.name, () => {
  const step = (x: number) => (x < 20 ? 60 : 160);

  it('takes noise of the variance it is given down at least 3 times on flat and linearly shaded parts', () => {
    const noise = gaussian(random(7));
    const ramp = (x: number, y: number) => 80 + 1.5 * x + 0.5 * y;
    const values = plane((x, y) => ramp(x, y) + 5 * noise());
    const before = deviation(values, ramp, () => true);
    wienerFilter(values, width, height, 25);
    expect(before).toBeGreaterThan(4.5);
    expect(deviation(values, ramp, () => true)).toBeLessThan(before / 3);
  });

  it('keeps a step edge without noise (by under 1% of its step) and linear shading', () => {
    const edge = plane((x) => step(x));
    wienerFilter(edge, width, height, 25);
    for (let i = 0; i < edge.length; i++) expect(Math.abs(edge[i] - step(i % width))).toBeLessThan(1);
    const shading = plane((x, y) => 30 + 2 * x + y);
    wienerFilter(shading, width, height, 25);
    for (let i = 0; i < shading.length; i++) {
      const x = i % width;
      const y = Math.floor(i / width);
      // The border's clipped windows are not centred on their pixel; inside, the mean is the centre.
      if (x >= 4 && x < width - 4 && y >= 4 && y < height - 4) expect(shading[i]).toBeCloseTo(30 + 2 * x + y, 2);
    }
  });

  it('keeps the contrast of a noisy edge while the flat sides get quieter', () => {
    const noise = gaussian(random(11));
    const values = plane((x) => step(x) + 5 * noise());
    wienerFilter(values, width, height, 25);
    const mean = (x0: number, x1: number) => {
      let sum = 0;
      for (let y = 4; y < height - 4; y++) for (let x = x0; x < x1; x++) sum += values[y * width + x];
      return sum / ((height - 8) * (x1 - x0));
    };
    expect(mean(20, 23) - mean(17, 20)).toBeGreaterThan(95);
    expect(deviation(values, step, (x) => x < 14 || x >= 26)).toBeLessThan(5 / 3);
  });

  it('leaves the plane alone when there is no noise to take out', () => {
    const values = plane((x, y) => (x * 7 + y * 13) % 50);
    const before = values.slice();
    wienerFilter(values, width, height, 0);
    expect(values).toEqual(before);
  });
});
