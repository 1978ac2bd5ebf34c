import { boxMean } from './box-filter';

/** The clipped-window mean, the slow way. */
function bruteMean(values: Float32Array, width: number, height: number, radius: number): Float32Array {
  const out = new Float32Array(values.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      let count = 0;
      for (let v = Math.max(0, y - radius); v <= Math.min(height - 1, y + radius); v++) {
        for (let u = Math.max(0, x - radius); u <= Math.min(width - 1, x + radius); u++) {
          sum += values[v * width + u];
          count++;
        }
      }
      out[y * width + x] = sum / count;
    }
  }
  return out;
}

describe(boxMean.name, () => {
  const width = 17;
  const height = 11;
  const values = Float32Array.from({ length: width * height }, (_, i) => ((i * 7919) % 101) / 100);

  it.each([1, 2, 5, 10, 30])('matches the brute-force clipped mean at radius %i', (radius) => {
    const filtered = values.slice();
    boxMean(filtered, width, height, radius);
    const expected = bruteMean(values, width, height, radius);
    for (let i = 0; i < values.length; i++) expect(filtered[i]).toBeCloseTo(expected[i], 5);
  });

  it('leaves the values alone at radius 0', () => {
    const filtered = values.slice();
    boxMean(filtered, width, height, 0);
    expect(filtered).toEqual(values);
  });
});
