import { LEVEL_OF_LINEAR, LINEAR_OF_LEVEL, LINEAR_STEPS, toEncoded, toLinear } from './linear-light';

/** The 8-bit level of a linear value, as the per-pixel loops find it. */
const levelOf = (linear: number) => LEVEL_OF_LINEAR[Math.round(linear * LINEAR_STEPS)];

describe('linear light', () => {
  it('has sRGB’s transfer function: 18 % grey is level 118, the linear segment ends at 0.04045', () => {
    expect(levelOf(0.18)).toBe(118);
    expect(toLinear(0.04045)).toBeCloseTo(0.04045 / 12.92, 9);
    expect(toLinear(1)).toBe(1);
  });

  it('takes every 8-bit level to linear light and back unchanged', () => {
    for (let level = 0; level < 256; level++) {
      expect(levelOf(LINEAR_OF_LEVEL[level])).toBe(level);
      expect(toEncoded(toLinear(level / 255))).toBeCloseTo(level / 255, 9);
    }
  });
});
