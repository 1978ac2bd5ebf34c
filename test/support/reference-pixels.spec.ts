import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BLOCK,
  outsideTolerance,
  pixelDifference,
  readReference,
  reduced,
  writeReference,
  type Pixels,
  type Tolerance,
} from './reference-pixels';

const TIGHT: Tolerance = { maxLevels: 2, minPsnr: 60, maxMeanShift: 0.1, maxBlockShift: 1 };

/** A `width` x `height` image whose samples are `value(x, y, channel)`. */
function image(width: number, height: number, channels: number, value: (x: number, y: number, c: number) => number) {
  const data = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < channels; c++) data[(y * width + x) * channels + c] = value(x, y, c);
    }
  }
  return { data, width, height, channels };
}

const gradient = (channels: number, width = 64, height = 48) =>
  image(width, height, channels, (x, y, c) => (x * 3 + y * 2 + c * 40) % 256);

/** `pixels` with `change` added to the samples where `where` holds, clamped to 0..255. */
function changed(pixels: Pixels, change: number, where: (x: number, y: number, c: number) => boolean): Pixels {
  const { width, height, channels } = pixels;
  return image(width, height, channels, (x, y, c) => {
    const value = pixels.data[(y * width + x) * channels + c];
    return where(x, y, c) ? Math.max(0, Math.min(255, value + change)) : value;
  });
}

describe('reference pixels', () => {
  it('finds no difference between the same pixels', () => {
    const pixels = gradient(3);
    const difference = pixelDifference(pixels, { ...pixels, data: Buffer.from(pixels.data) });
    expect(difference).toMatchObject({ maxLevels: 0, differing: 0, psnr: Infinity, meanShift: 0, blockShift: 0 });
    expect(outsideTolerance(difference, TIGHT)).toBeNull();
  });

  it('lets through scattered one-level differences', () => {
    const pixels = gradient(4);
    const noisy = changed(pixels, 1, (x, y, c) => (x * 7 + y * 13 + c) % 97 === 0);
    expect(outsideTolerance(pixelDifference(pixels, noisy), TIGHT)).toBeNull();
  });

  it('tells a sample too far apart, and where it is', () => {
    const pixels = gradient(3);
    const difference = pixelDifference(
      pixels,
      changed(pixels, -5, (x, y, c) => x === 10 && y === 20 && c === 2),
    );
    expect(difference).toMatchObject({ maxLevels: 5, at: { x: 10, y: 20, channel: 2 }, differing: 1 });
    expect(outsideTolerance(difference, TIGHT)).toMatch(/5 levels apart at x 10, y 20, channel 2/);
  });

  it('tells a shift of a whole channel by one level', () => {
    const pixels = gradient(3);
    const difference = pixelDifference(
      pixels,
      changed(pixels, 1, (_x, _y, c) => c === 1),
    );
    expect(difference.meanShift).toBeCloseTo(1, 1);
    expect(outsideTolerance(difference, TIGHT)).toMatch(/shifted \d\.\d+ levels on average/);
  });

  it('tells a shift of one block that is too small for the image to notice', () => {
    const pixels = gradient(3, 128, 96);
    const block = (x: number, y: number) => x >= BLOCK && x < 2 * BLOCK && y < BLOCK;
    const difference = pixelDifference(
      pixels,
      changed(pixels, 2, (x, y, c) => block(x, y) && c === 0),
    );
    expect(difference.blockAt).toEqual({ x: BLOCK, y: 0, channel: 0 });
    expect(outsideTolerance(difference, TIGHT)).toMatch(/block at x 16, y 0, channel 0 shifted 2\.0 levels/);
  });

  it('reduces by the rounded means of whole and partial blocks', () => {
    const pixels = image(5, 3, 1, (x, y) => x + 10 * y);
    expect(reduced(pixels, 2)).toEqual({
      data: Buffer.from([6, 8, 9, 21, 23, 24]),
      width: 3,
      height: 2,
      channels: 1,
    });
    expect(reduced(pixels, 1)).toBe(pixels);
  });

  it('keeps RGB and RGBA reference pixels through the PNG', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'reference-pixels-'));
    try {
      for (const channels of [3, 4]) {
        const pixels = gradient(channels);
        await writeReference(join(folder, `${channels}.png`), pixels);
        expect(await readReference(join(folder, `${channels}.png`))).toEqual(pixels);
      }
      expect(await readReference(join(folder, 'missing.png'))).toBeNull();
      await expect(writeReference(join(folder, 'grey.png'), gradient(1))).rejects.toThrow(/RGB or RGBA/);
    } finally {
      await rm(folder, { recursive: true });
    }
  });
});
