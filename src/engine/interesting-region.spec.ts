import { interestingWindows } from './interesting-region';
import type { RawImage } from './raw-image';

/** Flat grey with a high-contrast checkerboard in the square at (left, top) of side `side`. */
function greyWithDetail(width: number, height: number, detail: { left: number; top: number; side: number }): RawImage {
  const data = Buffer.alloc(width * height * 3, 128);
  for (let y = detail.top; y < detail.top + detail.side; y++) {
    for (let x = detail.left; x < detail.left + detail.side; x++) {
      data.fill((x >> 1) % 2 === (y >> 1) % 2 ? 0 : 255, (y * width + x) * 3, (y * width + x) * 3 + 3);
    }
  }
  return { data, width, height, channels: 3 };
}

describe(interestingWindows.name, () => {
  it('puts the window on the detail, wherever it is', () => {
    const picture = greyWithDetail(400, 200, { left: 320, top: 20, side: 40 });
    const [best] = interestingWindows(picture, { width: 100, height: 100 }, 1);
    expect(best.left).toBeLessThanOrEqual(320);
    expect(best.left + 100).toBeGreaterThanOrEqual(360);
    expect(best.top).toBeLessThanOrEqual(20);
    expect(best.top + 100).toBeGreaterThanOrEqual(60);
  });

  it('centres the window on an image with nothing in it', () => {
    const [best] = interestingWindows(
      { data: Buffer.alloc(300 * 100 * 3, 90), width: 300, height: 100, channels: 3 },
      { width: 100, height: 100 },
      1,
    );
    // Positions lie on a grid of a few pixels.
    expect(Math.abs(best.left - 100)).toBeLessThanOrEqual(3);
    expect(best.top).toBe(0);
  });

  it('offers distinct windows, most interesting first, overlapping by at most half', () => {
    const picture = greyWithDetail(600, 200, { left: 40, top: 60, side: 60 });
    const windows = interestingWindows(picture, { width: 200, height: 200 }, 3);
    expect(windows).toHaveLength(3);
    expect(windows[0].left).toBeLessThanOrEqual(40);
    for (let i = 1; i < windows.length; i++) {
      for (let j = 0; j < i; j++) expect(Math.abs(windows[i].left - windows[j].left)).toBeGreaterThanOrEqual(100);
    }
  });

  it('ignores detail that is transparent', () => {
    const width = 300;
    const data = Buffer.alloc(width * 100 * 4, 0);
    for (let i = 0; i < width * 100; i++) {
      const x = i % width;
      const bright = (x >> 1) % 2 === 0 ? 255 : 0;
      // Detail everywhere, but only the middle third is opaque.
      data.set([bright, bright, bright, x >= 100 && x < 200 ? 255 : 0], i * 4);
    }
    const [best] = interestingWindows({ data, width, height: 100, channels: 4 }, { width: 100, height: 100 }, 1);
    expect(Math.abs(best.left - 100)).toBeLessThanOrEqual(3);
  });
});
