import type { RawImage } from '../raw-image';
import { blockStatistics, correctedBlocks, type BlockStatistics } from './jpeg-blocks';

const STEP = 27 / 8;

/** Block statistics laid out by hand: `columns` x `rows` blocks of 8, means from `mean`, variances from `variance`. */
function statistics(
  columns: number,
  rows: number,
  mean: (u: number, v: number) => number,
  variance: (u: number, v: number) => number = () => 0,
): BlockStatistics {
  const at = (f: (u: number, v: number) => number) =>
    Float32Array.from({ length: columns * rows }, (_, b) => f(b % columns, Math.floor(b / columns)));
  return { grid: { size: 8, left: 0, top: 0 }, columns, rows, means: at(mean), variances: at(variance) };
}

const coded = (value: number) => STEP * Math.round(value / STEP);

describe('jpeg blocks', () => {
  it('measures the mean and variance of every whole block, in luma and colour', () => {
    // 20 x 18 pixels, luma grid from (2, 1): 2 x 2 whole blocks; colour grid from (2, 1): 1 x 1.
    const data = Buffer.alloc(20 * 18 * 3);
    for (let y = 0; y < 18; y++) {
      for (let x = 0; x < 20; x++)
        data.fill(x >= 10 ? 200 : (x + y) % 2 ? 60 : 100, (y * 20 + x) * 3, (y * 20 + x) * 3 + 3);
    }
    const image: RawImage = { data, width: 20, height: 18, channels: 3 };
    const [luma, blue, red] = blockStatistics(image, { size: 8, left: 2, top: 1 }, { size: 16, left: 2, top: 1 });
    expect([luma.columns, luma.rows, blue.columns, blue.rows]).toEqual([2, 2, 1, 1]);
    // Left blocks: a checkerboard of 60 and 100; right blocks: columns 10-17, all 200.
    expect(Array.from(luma.means)).toEqual([80, 200, 80, 200].map((m) => expect.closeTo(m, 3)));
    expect(Array.from(luma.variances)).toEqual([400, 0, 400, 0].map((m) => expect.closeTo(m, 2)));
    expect(blue.means[0]).toBeCloseTo(128, 3);
    expect(red.variances[0]).toBeCloseTo(0, 3);
  });

  it('puts the means of smooth shading back on its slope, within half a step of what was coded', () => {
    // A slope of 0.9 level per block across and 0.4 down, rounded to the step as an encoder would.
    const truth = (u: number, v: number) => 100 + 0.9 * u + 0.4 * v;
    const blocks = correctedBlocks(
      statistics(16, 10, (u, v) => coded(truth(u, v))),
      STEP,
    );
    let before = 0;
    let after = 0;
    for (let b = 0; b < 160; b++) {
      const [u, v] = [b % 16, Math.floor(b / 16)];
      expect(blocks.smooth[b]).toBe(1);
      expect(Math.abs(blocks.offsets[b])).toBeLessThanOrEqual(STEP / 2 + 1e-6);
      before += (coded(truth(u, v)) - truth(u, v)) ** 2;
      after += (blocks.means[b] - truth(u, v)) ** 2;
    }
    // The coded means are off by a third of a step on average (a uniform rounding error); the fitted ones by far less.
    expect(Math.sqrt(before / 160)).toBeGreaterThan(0.8);
    expect(Math.sqrt(after / 160)).toBeLessThan(0.35);
  });

  it('fits each side of an edge on its own side only', () => {
    const truth = (u: number) => (u < 8 ? 60 + 0.9 * u : 180 + 0.9 * u);
    const blocks = correctedBlocks(
      statistics(16, 6, (u) => coded(truth(u))),
      STEP,
    );
    for (const u of [6, 7, 8, 9]) expect(Math.abs(blocks.means[2 * 16 + u] - truth(u))).toBeLessThan(0.8);
  });

  it('leaves blocks with an edge or texture in them (variance over a step squared) as they were coded', () => {
    const blocks = correctedBlocks(
      statistics(
        6,
        6,
        (u) => coded(100 + u),
        (u) => (u === 3 ? 400 : 0),
      ),
      STEP,
    );
    for (let v = 0; v < 6; v++) {
      expect(blocks.smooth[v * 6 + 3]).toBe(0);
      expect(blocks.offsets[v * 6 + 3]).toBe(0);
    }
  });
});
