import { distanceFromSeeds } from './distance-transform';

describe(distanceFromSeeds.name, () => {
  it('measures straight and diagonal steps from the nearest seed', () => {
    const width = 9;
    const height = 7;
    const seeds = new Uint8Array(width * height);
    seeds[3 * width + 2] = 1;
    seeds[3 * width + 8] = 1;
    const distance = distanceFromSeeds(seeds, width, height);
    const at = (x: number, y: number) => distance[y * width + x];
    expect(at(2, 3)).toBe(0);
    expect(at(5, 3)).toBe(3);
    expect(at(6, 3)).toBe(2);
    expect(at(0, 3)).toBe(2);
    expect(at(4, 5)).toBeCloseTo(2 * Math.SQRT2, 5);
    expect(at(2, 0)).toBe(3);
  });

  it('is infinite without seeds', () => {
    expect(distanceFromSeeds(new Uint8Array(6), 3, 2).every((d) => d === Infinity)).toBe(true);
  });
});
