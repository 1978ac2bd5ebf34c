import { MAX_OUTPUT_SIDE, planGeometry, uncappedSize } from './geometry';

const SOURCE = { width: 4000, height: 3000 };

describe(planGeometry.name, () => {
  it('keeps the source size without a resize, and doubles it for upscale', () => {
    expect(planGeometry(SOURCE, { upscale: false })).toEqual({
      scaled: SOURCE,
      mode: 'scale',
      window: null,
      canvas: null,
    });
    expect(planGeometry({ width: 600, height: 400 }, { upscale: true }).scaled).toEqual({ width: 1200, height: 800 });
  });

  it('caps an upscale at the largest side allowed', () => {
    expect(planGeometry(SOURCE, { upscale: true }).scaled).toEqual({ width: 8000, height: 6000 });
    expect(planGeometry({ width: 5000, height: 2500 }, { upscale: true }).scaled).toEqual({
      width: MAX_OUTPUT_SIDE,
      height: 4096,
    });
    expect(planGeometry({ width: 10_000, height: 5000 }, { upscale: false }).scaled).toEqual({
      width: MAX_OUTPUT_SIDE,
      height: 4096,
    });
  });

  it('keeps the aspect ratio when only the width or only the height is given', () => {
    expect(planGeometry(SOURCE, { width: 1200, upscale: false }).scaled).toEqual({ width: 1200, height: 900 });
    expect(planGeometry(SOURCE, { height: 600, upscale: false }).scaled).toEqual({ width: 800, height: 600 });
    // A width whose height would pass the maximum is reduced with it.
    expect(planGeometry({ width: 1000, height: 3000 }, { width: 8000, upscale: false }).scaled).toEqual({
      width: 2731,
      height: MAX_OUTPUT_SIDE,
    });
  });

  it('contains: fits inside the box and pads to exactly its size, enlarging a small source', () => {
    expect(planGeometry(SOURCE, { width: 1200, height: 1200, fit: 'contain', upscale: false })).toEqual({
      scaled: { width: 1200, height: 900 },
      mode: 'scale',
      window: null,
      canvas: { width: 1200, height: 1200 },
    });
    expect(planGeometry({ width: 300, height: 100 }, { width: 900, height: 600, upscale: false })).toMatchObject({
      scaled: { width: 900, height: 300 },
      canvas: { width: 900, height: 600 },
    });
    // Same aspect ratio: nothing to pad.
    expect(planGeometry(SOURCE, { width: 800, height: 600, fit: 'contain', upscale: false }).canvas).toBeNull();
  });

  it('covers: fills the box exactly', () => {
    expect(planGeometry(SOURCE, { width: 1000, height: 1000, fit: 'cover', upscale: false })).toEqual({
      scaled: { width: 1000, height: 1000 },
      mode: 'cover',
      window: null,
      canvas: null,
    });
  });

  it('crops at the source scale, scaling up only a source smaller than the box', () => {
    expect(planGeometry(SOURCE, { width: 1000, height: 800, fit: 'crop', upscale: false })).toEqual({
      scaled: SOURCE,
      mode: 'scale',
      window: { width: 1000, height: 800 },
      canvas: null,
    });
    expect(
      planGeometry({ width: 500, height: 1000 }, { width: 1000, height: 800, fit: 'crop', upscale: false }),
    ).toMatchObject({
      scaled: { width: 1000, height: 2000 },
      window: { width: 1000, height: 800 },
    });
    expect(
      planGeometry({ width: 800, height: 600 }, { width: 1000, height: 800, fit: 'crop', upscale: true }).scaled,
    ).toEqual({
      width: 1600,
      height: 1200,
    });
  });
});

describe(uncappedSize.name, () => {
  it('is the size a request without a box asks for, before the cap; null for a box', () => {
    expect(uncappedSize({ width: 5000, height: 2500 }, { upscale: true })).toEqual({ width: 10_000, height: 5000 });
    expect(uncappedSize({ width: 1000, height: 3000 }, { width: 3000, upscale: false })).toEqual({
      width: 3000,
      height: 9000,
    });
    expect(uncappedSize(SOURCE, { height: 600, upscale: true })).toEqual({ width: 800, height: 600 });
    expect(uncappedSize(SOURCE, { width: 8192, height: 8192, fit: 'cover', upscale: true })).toBeNull();
  });
});
