import type { RawImage } from '../raw-image';
import type { AlphaMask } from './alpha-mask';
import { decontaminate } from './decontaminate';

/** Bound once: Jest runs tests in a VM context, where a global lookup per pixel is slow. */
const { hypot, max, min, round } = Math;

const WIDTH = 400;
const HEIGHT = 300;
const RED = [220, 30, 30];
const GREEN = [30, 200, 40];
const RADIUS = 90;
/** Half the width of the soft band around the disc's outline. */
const RAMP = 6;

/** A red disc composited onto green through a linear alpha ramp: I = αF + (1 - α)B at every pixel. */
function redOnGreen(channels: 3 | 4): { image: RawImage; alpha: AlphaMask } {
  const alpha = new Uint8Array(WIDTH * HEIGHT);
  const data = Buffer.alloc(WIDTH * HEIGHT * channels);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const d = hypot(x - 200, y - 150);
      const a = round(255 * min(1, max(0, (RADIUS + RAMP - d) / (2 * RAMP))));
      const i = y * WIDTH + x;
      alpha[i] = a;
      for (let c = 0; c < 3; c++) data[i * channels + c] = round((a * RED[c] + (255 - a) * GREEN[c]) / 255);
      if (channels === 4) data[i * channels + 3] = 255;
    }
  }
  return {
    image: { data, width: WIDTH, height: HEIGHT, channels },
    alpha: { data: alpha, width: WIDTH, height: HEIGHT },
  };
}

describe(decontaminate.name, () => {
  it.each([3, 4] as const)('takes the backdrop’s green out of the soft edge (%i-channel photo)', (channels) => {
    const { image, alpha } = redOnGreen(channels);

    const clean = decontaminate(image, alpha);

    expect(clean.channels).toBe(3);
    expect(clean.width).toBe(WIDTH);
    expect(clean.height).toBe(HEIGHT);
    let band = 0;
    let changedOutsideBand = 0;
    let rawGreen = 0;
    let cleanGreen = 0;
    let cleanRed = 0;
    for (let i = 0; i < WIDTH * HEIGHT; i++) {
      const same = [0, 1, 2].every((c) => clean.data[i * 3 + c] === image.data[i * channels + c]);
      if (alpha.data[i] === 255 || alpha.data[i] === 0) {
        if (!same) changedOutsideBand++;
        continue;
      }
      band++;
      rawGreen += image.data[i * channels + 1];
      cleanGreen += clean.data[i * 3 + 1];
      cleanRed += clean.data[i * 3];
    }
    expect(changedOutsideBand).toBe(0);
    expect(band).toBeGreaterThan(1000);
    expect(cleanGreen / band).toBeLessThan((0.5 * rawGreen) / band);
    // The band's colour is the subject's: close to the disc's red, not a brown mix.
    expect(cleanGreen / band).toBeLessThan(GREEN[1] * 0.25);
    expect(cleanRed / band).toBeGreaterThan(RED[0] * 0.8);
  });

  it('returns the photo as it is when the alpha has no soft pixel', () => {
    const { image } = redOnGreen(3);
    const hard = { data: new Uint8Array(WIDTH * HEIGHT).fill(255), width: WIDTH, height: HEIGHT };
    expect(decontaminate(image, hard).data.equals(image.data)).toBe(true);
  });

  it('refuses an alpha of another size', () => {
    const { image } = redOnGreen(3);
    expect(() => decontaminate(image, { data: new Uint8Array(4), width: 2, height: 2 })).toThrow(/does not match/);
  });
});
