import type { BlockCorrections } from './jpeg-blocks';
import { deblockPlane } from './jpeg-deblock';

/** A 2 x 1 row of 8 x 8 blocks at (0, 0), flat at `left` and `right`, both smooth, with the given mean corrections. */
function twoBlocks(left: number, right: number, offsets: [number, number] = [0, 0]) {
  const values = Float32Array.from({ length: 16 * 8 }, (_, i) => (i % 16 < 8 ? left : right));
  const blocks: BlockCorrections = {
    grid: { size: 8, left: 0, top: 0 },
    columns: 2,
    rows: 1,
    step: 27 / 8,
    smooth: Uint8Array.from([1, 1]),
    offsets: Float32Array.from(offsets),
    means: Float32Array.from([left + offsets[0], right + offsets[1]]),
  };
  return { values, blocks, strip: { width: 16, top: 0, height: 8 } };
}

describe(deblockPlane.name, () => {
  it('spreads the step between two flat tiles over both as a ramp: 1, 3, 5, 7 sixteenths of it each side', () => {
    const { values, blocks, strip } = twoBlocks(100, 103.2);
    deblockPlane(values, strip, blocks);
    const ramp = [0, 0, 0, 0, 1, 3, 5, 7].map((n) => 100 + (n * 3.2) / 16);
    const expected = [...ramp, ...ramp.map((value) => 203.2 - value).reverse()];
    for (let y = 0; y < 8; y++) {
      for (let x = 0; x < 16; x++) expect(values[y * 16 + x]).toBeCloseTo(expected[x], 4);
    }
  });

  it('moves each tile by its mean correction first', () => {
    const { values, blocks, strip } = twoBlocks(100, 100, [0.5, -1]);
    deblockPlane(values, strip, blocks);
    // 100.5 and 99 after the shift, then the 1.5 step between them ramped.
    expect(values[0]).toBeCloseTo(100.5, 4);
    expect(values[7]).toBeCloseTo(100.5 - (7 * 1.5) / 16, 4);
    expect(values[8]).toBeCloseTo(99 + (7 * 1.5) / 16, 4);
    expect(values[15]).toBeCloseTo(99, 4);
  });

  it('keeps an edge between two tiles (a step of more than two DC steps)', () => {
    const { values, blocks, strip } = twoBlocks(100, 160);
    deblockPlane(values, strip, blocks);
    for (let i = 0; i < values.length; i++) expect(values[i]).toBe(i % 16 < 8 ? 100 : 160);
  });

  it('does not ramp twice what the tiles already slope by', () => {
    const slope = (x: number) => 100 + 0.5 * x;
    const { values, blocks, strip } = twoBlocks(0, 0);
    for (let i = 0; i < values.length; i++) values[i] = slope(i % 16);
    blocks.means.set([slope(3.5), slope(11.5)]);
    deblockPlane(values, strip, blocks);
    for (let i = 0; i < values.length; i++) expect(values[i]).toBeCloseTo(slope(i % 16), 4);
  });
});
