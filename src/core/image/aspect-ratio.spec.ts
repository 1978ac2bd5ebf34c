import { canvasHolding, canvasWithin, parseAspectRatio, shapeFor, withLongSide } from './aspect-ratio';

describe('aspect ratios', () => {
  it('parses W:H and refuses anything else', () => {
    expect(parseAspectRatio('16:9')).toEqual({ width: 16, height: 9 });
    expect(parseAspectRatio(' 4:5 ')).toEqual({ width: 4, height: 5 });
    for (const bad of ['16x9', '0:3', '3:', '', 7, undefined]) expect(parseAspectRatio(bad)).toBeNull();
  });

  it('holds the content whole on a canvas of exactly the ratio', () => {
    for (const [content, ratio] of [
      [
        { width: 1000, height: 1000 },
        { width: 16, height: 9 },
      ],
      [
        { width: 1536, height: 1024 },
        { width: 4, height: 5 },
      ],
      [
        { width: 997, height: 613 },
        { width: 21, height: 9 },
      ],
      [
        { width: 1, height: 1 },
        { width: 32, height: 1 },
      ],
    ] as const) {
      const canvas = canvasHolding(content, ratio);
      expect(canvas.width * ratio.height).toBe(canvas.height * ratio.width);
      expect(canvas.width).toBeGreaterThanOrEqual(content.width);
      expect(canvas.height).toBeGreaterThanOrEqual(content.height);
      // The smallest: one step of W x H less would no longer hold it.
      expect(canvas.width - ratio.width < content.width || canvas.height - ratio.height < content.height).toBe(true);
    }
  });

  it('fits a canvas of exactly the ratio inside the content', () => {
    const canvas = canvasWithin({ width: 1536, height: 1024 }, { width: 16, height: 9 });
    expect(canvas).toEqual({ width: 1536, height: 864 });
  });

  it('picks the provider shape nearest the ratio', () => {
    expect(shapeFor({ width: 16, height: 9 })).toBe('landscape');
    expect(shapeFor({ width: 4, height: 5 })).toBe('portrait');
    expect(shapeFor({ width: 21, height: 20 })).toBe('square');
    expect(withLongSide({ width: 4, height: 5 }, 1500)).toEqual({ width: 1200, height: 1500 });
  });
});
