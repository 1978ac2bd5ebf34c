import type { RawImage } from '../raw-image';
import { writeStrip, yccStrip } from './ycc';

describe('ycc strips', () => {
  const rgba: RawImage = {
    data: Buffer.from(Array.from({ length: 6 * 4 * 4 }, (_, i) => (i * 37 + 11) % 256)),
    width: 6,
    height: 4,
    channels: 4,
  };

  it('gives back the same pixels, alpha untouched, when nothing is changed', () => {
    const target: RawImage = { ...rgba, data: Buffer.alloc(rgba.data.length, 7) };
    writeStrip(yccStrip(rgba, 0, 4), target, 0, 4);
    for (let i = 0; i < rgba.data.length; i++) expect(target.data[i]).toBe(i % 4 === 3 ? 7 : rgba.data[i]);
  });

  it('writes only the rows asked for, from a strip that starts lower in the photo', () => {
    const target: RawImage = { ...rgba, data: Buffer.from(rgba.data) };
    const strip = yccStrip(rgba, 1, 4);
    strip.planes[0].fill(300);
    strip.planes[1].fill(128);
    strip.planes[2].fill(128);
    writeStrip(strip, target, 2, 3);
    const rowBytes = 6 * 4;
    expect(target.data.subarray(0, 2 * rowBytes)).toEqual(rgba.data.subarray(0, 2 * rowBytes));
    expect(target.data.subarray(3 * rowBytes)).toEqual(rgba.data.subarray(3 * rowBytes));
    // Luma far past white clamps to 255 rather than wrapping round.
    for (let x = 0; x < 6; x++)
      expect(Array.from(target.data.subarray(2 * rowBytes + x * 4, 2 * rowBytes + x * 4 + 3))).toEqual([255, 255, 255]);
  });

  it('puts a neutral grey at 128 in both colour differences', () => {
    const grey: RawImage = { data: Buffer.alloc(3, 90), width: 1, height: 1, channels: 3 };
    const { planes } = yccStrip(grey, 0, 1);
    expect(planes[0][0]).toBeCloseTo(90, 4);
    expect(planes[1][0]).toBeCloseTo(128, 4);
    expect(planes[2][0]).toBeCloseTo(128, 4);
  });
});
