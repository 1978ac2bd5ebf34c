import { labelComponents } from './connected-components';

describe(labelComponents.name, () => {
  // Two diagonal steps and a separate U whose arms meet only at the bottom.
  const grid = ['1000011', '0100001', '0010001', '0000111', '1100000'];
  const width = grid[0].length;
  const height = grid.length;
  const inside = Uint8Array.from(grid.join(''), (c) => (c === '1' ? 1 : 0));
  const at = (labels: Int32Array, x: number, y: number) => labels[y * width + x];

  it('joins diagonal neighbours under 8-connectivity', () => {
    const { labels, count } = labelComponents(inside, width, height, 8);
    expect(count).toBe(3);
    expect(at(labels, 0, 0)).toBe(at(labels, 2, 2));
    expect(at(labels, 5, 0)).toBe(at(labels, 4, 3));
    expect(at(labels, 0, 4)).toBe(at(labels, 1, 4));
    expect(new Set([at(labels, 0, 0), at(labels, 5, 0), at(labels, 0, 4)]).size).toBe(3);
    expect(at(labels, 1, 0)).toBe(0);
  });

  it('keeps diagonal neighbours apart under 4-connectivity', () => {
    const { labels, count } = labelComponents(inside, width, height, 4);
    expect(count).toBe(5);
    expect(at(labels, 0, 0)).not.toBe(at(labels, 1, 1));
    expect(at(labels, 5, 0)).toBe(at(labels, 4, 3));
  });

  it('merges provisional labels that meet late (a U shape) and numbers components 1..count', () => {
    const u = ['1001', '1001', '1111'];
    const { labels, count } = labelComponents(
      Uint8Array.from(u.join(''), (c) => (c === '1' ? 1 : 0)),
      4,
      3,
      4,
    );
    expect(count).toBe(1);
    expect([...labels].filter((l) => l !== 0).every((l) => l === 1)).toBe(true);
  });
});
