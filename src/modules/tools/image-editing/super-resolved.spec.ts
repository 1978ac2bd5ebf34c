import { INLINE_ENGINE } from '../../../engine/pixel-engine';
import { resizeOnly } from '../../../../test/support/edit-requests';
import { NearestUpscaler } from '../../../../test/support/nearest-upscaler';
import type { RawImage } from '../../../engine/raw-image';
import { planEdit } from './edit-plan';
import { superResolved } from './super-resolved';

const upscaled = (size: { width?: number; height?: number }) => resizeOnly({ ...size, upscale: true });

const OPTIONS = { signal: new AbortController().signal, timeoutSeconds: 30, engine: INLINE_ENGINE };

/** `width` x `height` of one colour, RGB or RGBA. */
function filled(width: number, height: number, pixel: (x: number, y: number) => number[]): RawImage {
  const channels = pixel(0, 0).length as 3 | 4;
  const data = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * channels);
  return { data, width, height, channels };
}

describe(superResolved.name, () => {
  it("enlarges the source at its own size with the plan's model, then resamples to the planned size", async () => {
    const source = filled(60, 40, (x) => (x < 30 ? [200, 40, 40] : [40, 40, 200]));
    const upscaler = new NearestUpscaler();
    for (const [width, scale] of [
      [90, 2],
      [150, 4],
      [300, 4],
    ] as const) {
      const { geometry, modelScale } = planEdit(source, upscaled({ width }), 50e6);
      expect(modelScale).toBe(scale);
      const result = await superResolved(source, geometry, scale, upscaler, OPTIONS);
      expect([result.width, result.height, result.channels]).toEqual([width, (width * 2) / 3, 3]);
      expect([...result.data.subarray(0, 3)]).toEqual([200, 40, 40]);
    }
    expect(upscaler.calls).toEqual([
      { scale: 2, width: 60, height: 40, channels: 3 },
      { scale: 4, width: 60, height: 40, channels: 3 },
      { scale: 4, width: 60, height: 40, channels: 3 },
    ]);
  });

  it('keeps transparency, without the black under transparent pixels darkening the visible edge', async () => {
    // Opaque orange on the left, a half-transparent orange column, then transparent pixels holding black.
    const source = filled(20, 10, (x) =>
      x < 10 ? [240, 140, 20, 255] : x === 10 ? [240, 140, 20, 128] : [0, 0, 0, 0],
    );
    const { geometry } = planEdit(source, upscaled({}), 50e6);
    const upscaler = new NearestUpscaler();
    const result = await superResolved(source, geometry, 2, upscaler, OPTIONS);
    expect([result.width, result.height, result.channels]).toEqual([40, 20, 4]);
    expect(upscaler.calls[0].channels).toBe(3);
    const at = (x: number) => [...result.data.subarray((10 * 40 + x) * 4, (10 * 40 + x) * 4 + 4)];
    expect(at(2)).toEqual([240, 140, 20, 255]);
    expect(at(38)[3]).toBe(0);
    for (let x = 16; x < 26; x++) {
      const [r, g, b, a] = at(x);
      if (a < 16) continue;
      // Straight (unpremultiplied) resampling would pull these towards the black underneath.
      expect(Math.abs(r - 240) + Math.abs(g - 140) + Math.abs(b - 20)).toBeLessThanOrEqual(24);
    }
  });
});
