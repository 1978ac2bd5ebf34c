import type { BlockCorrections } from './jpeg-blocks';
import { deringPlane } from './jpeg-dering';

const SIZE = 24;

/** A 3 x 3 grid of 8 x 8 blocks whose middle one holds an edge or texture (not smooth); the others are smooth. */
function plane(value: (x: number, y: number) => number) {
  const values = Float32Array.from({ length: SIZE * SIZE }, (_, i) => value(i % SIZE, Math.floor(i / SIZE)));
  const blocks: BlockCorrections = {
    grid: { size: 8, left: 0, top: 0 },
    columns: 3,
    rows: 3,
    step: 27 / 8,
    smooth: Uint8Array.from([1, 1, 1, 1, 0, 1, 1, 1, 1]),
    offsets: new Float32Array(9),
    means: new Float32Array(9),
  };
  return { values, blocks, strip: { width: SIZE, top: 0, height: SIZE } };
}

describe(deringPlane.name, () => {
  const side = (x: number) => (x < 12 ? 50 : 200);
  // Ripples of ±3 on both flat sides of the edge, as a coarse JPEG leaves them.
  const ripple = (x: number, y: number) => ((x + y) % 2 ? 3 : -3);

  it("flattens the ripples on both sides of an edge in a block and keeps the edge's pixels", () => {
    const { values, blocks, strip } = plane((x, y) => side(x) + ripple(x, y));
    deringPlane(values, strip, blocks);
    for (let y = 9; y < 15; y++) {
      for (const x of [9, 14]) expect(Math.abs(values[y * SIZE + x] - side(x))).toBeLessThan(1);
      for (const x of [11, 12]) expect(values[y * SIZE + x]).toBe(side(x) + ripple(x, y));
    }
  });

  it('leaves texture alone (no flat side to smooth) and blocks outside the busy one', () => {
    const texture = (x: number, y: number) => ((x + y) % 2 ? 60 : 190);
    const { values, blocks, strip } = plane(texture);
    deringPlane(values, strip, blocks);
    for (let i = 0; i < values.length; i++) expect(values[i]).toBe(texture(i % SIZE, Math.floor(i / SIZE)));
  });

  it('moves a pixel by at most two DC steps a pass', () => {
    const { values, blocks, strip } = plane((x, y) => side(x) + (x === 9 && y === 10 ? 20 : 0));
    deringPlane(values, strip, blocks);
    expect(values[10 * SIZE + 9]).toBeGreaterThanOrEqual(70 - 2 * 2 * (27 / 8));
  });
});
