import sharp from 'sharp';
import { gaussian, random } from '../../../test/support/image-fixtures';
import type { RawImage } from '../raw-image';
import { findJpegTraces } from './jpeg-grid';

const SIZE = 128;

function grey(value: (x: number, y: number) => number): RawImage {
  const data = Buffer.alloc(SIZE * SIZE * 3);
  for (let i = 0; i < SIZE * SIZE; i++) data.fill(value(i % SIZE, Math.floor(i / SIZE)), i * 3, i * 3 + 3);
  return { data, width: SIZE, height: SIZE, channels: 3 };
}

/**
 * What a JPEG's decoder gives for smooth shading: 8 x 8 grey tiles whose means are exactly
 * 128 + 27k/8 (a DC quantiser of 27), k following a slope so neighbours are a step or none apart,
 * the grid starting at (3, 5). Each tile's sum is spread over integer pixels: the lowest value
 * everywhere and one more on as many pixels as the sum asks.
 */
function jpegLikeTiles(): RawImage {
  const tileOf = (x: number, y: number) => [Math.floor((x - 3) / 8), Math.floor((y - 5) / 8)];
  return grey((x, y) => {
    const [u, v] = tileOf(x, y);
    const k = Math.round((u + 2 * v) / 3) - 8;
    const sum = 64 * 128 + 8 * 27 * k;
    const base = Math.floor(sum / 64);
    const index = ((((y - 5) % 8) + 8) % 8) * 8 + ((((x - 3) % 8) + 8) % 8);
    return base + (index < sum - 64 * base ? 1 : 0);
  });
}

describe(findJpegTraces.name, () => {
  it('finds the grid and the DC step of blocks on a quantiser of 27', () => {
    const traces = findJpegTraces(jpegLikeTiles());
    expect(traces?.luma).toEqual({ size: 8, left: 3, top: 5 });
    expect(traces?.step).toBeCloseTo(27 / 8, 5);
  });

  it("reads libjpeg's quality 30 off its pixels: a luma DC quantiser of 16 · 5000/30 / 100, 27", async () => {
    const gradient = grey((x, y) => 60 + x + y / 2);
    const jpeg = await sharp(gradient.data, { raw: { width: SIZE, height: SIZE, channels: 3 } })
      .jpeg({ quality: 30 })
      .toBuffer();
    const pixels = await sharp(jpeg).raw().toBuffer();
    const traces = findJpegTraces({ data: pixels, width: SIZE, height: SIZE, channels: 3 });
    expect(traces?.luma).toEqual({ size: 8, left: 0, top: 0 });
    expect(traces?.step).toBeCloseTo(27 / 8, 5);
  });

  it('finds nothing in smooth shading, in noise, or in tiles that are no JPEG', () => {
    expect(findJpegTraces(grey((x, y) => 40 + x + y / 3))).toBeNull();
    const noise = gaussian(random(2));
    expect(findJpegTraces(grey(() => 128 + 6 * noise()))).toBeNull();
    // Blocks on the grid but with any mean at all: a mosaic, not a JPEG.
    const mosaic = random(4);
    const means = Array.from({ length: 17 * 17 }, () => 60 + 120 * mosaic());
    expect(findJpegTraces(grey((x, y) => means[Math.floor(y / 8) * 17 + Math.floor(x / 8)]))).toBeNull();
  });
});
