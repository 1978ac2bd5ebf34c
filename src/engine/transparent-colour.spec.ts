import { colourUnderTransparency, withAlpha } from './transparent-colour';

/** One row: pixels as [r, g, b, a]. */
const row = (pixels: number[][]) => ({
  data: Buffer.from(pixels.flat()),
  width: pixels.length,
  height: 1,
  channels: 4 as const,
});

const colours = (data: Buffer) =>
  Array.from({ length: data.length / 3 }, (_, i) => [...data.subarray(i * 3, i * 3 + 3)]);

describe(colourUnderTransparency.name, () => {
  it('gives transparent pixels near the visible ones their colour, nearest first, and keeps visible colours', () => {
    const image = row([
      [200, 100, 0, 255],
      [100, 50, 0, 128],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
    const { colour, alpha } = colourUnderTransparency(image, [1, 2]);
    expect([...alpha]).toEqual([255, 128, 0, 0, 0, 0, 0, 0]);
    expect(colours(colour.data)).toEqual([
      [200, 100, 0],
      [100, 50, 0],
      // Radius 1: the one visible neighbour. Radius 2: the mean of the known pixels within 2.
      [100, 50, 0],
      [100, 50, 0],
      [100, 50, 0],
      // Beyond the reach of both radii nothing is filled.
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);
  });

  it('mixes the visible pixels around a transparent one', () => {
    const { colour } = colourUnderTransparency(
      row([
        [240, 0, 0, 255],
        [0, 0, 0, 0],
        [0, 0, 240, 255],
      ]),
      [1],
    );
    expect(colours(colour.data)[1]).toEqual([120, 0, 120]);
  });

  it('joins colour and alpha back', () => {
    const image = row([
      [10, 20, 30, 40],
      [50, 60, 70, 0],
    ]);
    const { colour, alpha } = colourUnderTransparency(image, [1]);
    expect([...withAlpha(colour, alpha).data]).toEqual([10, 20, 30, 40, 10, 20, 30, 0]);
  });
});
