import { gaussian, random } from '../../../test/support/image-fixtures';
import type { RawImage } from '../raw-image';
import { noiseSigmas } from './noise-level';

const SIZE = 96;

function image(colour: (x: number, y: number) => [number, number, number]): RawImage {
  const data = Buffer.alloc(SIZE * SIZE * 3);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const rgb = colour(x, y).map((value) => Math.max(0, Math.min(255, Math.round(value))));
      data.set(rgb, (y * SIZE + x) * 3);
    }
  }
  return { data, width: SIZE, height: SIZE, channels: 3 };
}

/** σ of each plane when every channel gets independent noise of σ 4: the JFIF weights' lengths times 4. */
const EXPECTED = [
  4 * Math.hypot(0.299, 0.587, 0.114),
  4 * Math.hypot(0.1687, 0.3313, 0.5),
  4 * Math.hypot(0.5, 0.4187, 0.0813),
];

describe(noiseSigmas.name, () => {
  it('finds the noise of a flat photo in every plane within a tenth', () => {
    const noise = gaussian(random(3));
    const sigmas = noiseSigmas(image(() => [120 + 4 * noise(), 110 + 4 * noise(), 90 + 4 * noise()]));
    sigmas.forEach((sigma, k) => expect(Math.abs(sigma / EXPECTED[k] - 1)).toBeLessThan(0.1));
  });

  it('finds none in a clean photo of stripes, steps and shading', () => {
    const sigmas = noiseSigmas(
      image((x, y) => (x < 48 ? [Math.floor(x / 6) % 2 ? 40 : 200, 90, 60] : [100 + y, 100 + y / 2, 80])),
    );
    expect(sigmas).toEqual([0, 0, 0]);
  });

  it('is not misled by texture over a third of the photo', () => {
    const noise = gaussian(random(5));
    const sigmas = noiseSigmas(
      image((x, y) => {
        const base = x < 32 ? (((x >> 1) + (y >> 1)) % 2) * 120 + 60 : 128;
        return [base + 4 * noise(), base + 4 * noise(), base + 4 * noise()];
      }),
    );
    expect(Math.abs(sigmas[0] / EXPECTED[0] - 1)).toBeLessThan(0.25);
  });
});
