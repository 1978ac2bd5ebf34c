import sharp from 'sharp';
import { gaussian, random } from '../../../test/support/image-fixtures';
import type { RawImage } from '../raw-image';
import { polish } from './polish';

const SIZE = 96;

function image(colour: (x: number, y: number) => number[], channels: 3 | 4 = 3): RawImage {
  const data = Buffer.alloc(SIZE * SIZE * channels);
  for (let i = 0; i < SIZE * SIZE; i++) {
    const values = colour(i % SIZE, Math.floor(i / SIZE)).map((v) => Math.max(0, Math.min(255, Math.round(v))));
    data.set(values, i * channels);
  }
  return { data, width: SIZE, height: SIZE, channels };
}

/** Luma RMS difference from `clean` over columns [x0, x1) and every row but the borders. */
function rms(a: RawImage, clean: RawImage, x0: number, x1: number): number {
  let sum = 0;
  let count = 0;
  for (let y = 4; y < SIZE - 4; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * SIZE + x) * a.channels;
      const j = (y * SIZE + x) * clean.channels;
      const luma = (d: Buffer, k: number) => 0.299 * d[k] + 0.587 * d[k + 1] + 0.114 * d[k + 2];
      sum += (luma(a.data, i) - luma(clean.data, j)) ** 2;
      count++;
    }
  }
  return Math.sqrt(sum / count);
}

const twoTone = (x: number) => (x < SIZE / 2 ? [70, 90, 120] : [200, 170, 150]);

describe(polish.name, () => {
  it('returns a clean photo as it is', () => {
    const clean = image((x, y) => [40 + x, 60 + y, 200 - x]);
    expect(polish(clean)).toBe(clean);
  });

  it('takes Gaussian noise down at least 3 times on flat parts and keeps the edge between them', () => {
    const clean = image(twoTone);
    const noise = gaussian(random(21));
    const noisy = image((x) => twoTone(x).map((v) => v + 8 * noise()));
    const polished = polish(noisy);
    for (const [x0, x1] of [
      [4, 40],
      [56, 92],
    ]) {
      expect(rms(polished, clean, x0, x1)).toBeLessThan(rms(noisy, clean, x0, x1) / 3);
    }
    const step = (photo: RawImage) => {
      let sum = 0;
      for (let y = 4; y < SIZE - 4; y++) {
        const at = (x: number) => photo.data[(y * SIZE + x) * 3 + 1];
        sum += at(48) + at(49) + at(50) - at(45) - at(46) - at(47);
      }
      return sum / (3 * (SIZE - 8));
    };
    expect(step(polished) / step(clean)).toBeGreaterThan(0.95);
  });

  it('keeps the alpha channel as it was', () => {
    const noise = gaussian(random(8));
    const noisy = image((x, y) => [...twoTone(x).map((v) => v + 8 * noise()), (x * 3 + y) % 256], 4);
    const polished = polish(noisy);
    for (let i = 3; i < noisy.data.length; i += 4) expect(polished.data[i]).toBe(noisy.data[i]);
  });

  it("takes a quality 30 JPEG's blocking on smooth shading down by half", async () => {
    const clean = image((x, y) => [90 + x / 2 + y / 4, 110 + x / 4, 150 - y / 3]);
    const jpeg = await sharp(clean.data, { raw: { width: SIZE, height: SIZE, channels: 3 } })
      .jpeg({ quality: 30 })
      .toBuffer();
    const decoded: RawImage = { data: await sharp(jpeg).raw().toBuffer(), width: SIZE, height: SIZE, channels: 3 };
    expect(rms(polish(decoded), clean, 4, SIZE - 4)).toBeLessThan(rms(decoded, clean, 4, SIZE - 4) / 2);
  });
});
