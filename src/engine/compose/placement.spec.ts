import { createHash } from 'node:crypto';
import type { AlphaMask } from '../mask/alpha-mask';
import { subjectBounds } from '../mask/alpha-mask';
import type { RawImage } from '../raw-image';
import { cutoutPixels } from '../cutout-pixels';
import { resampleExactly } from './exact-resample';
import { paddedBox, planFrame, planLayout, type CanvasLayout } from './framing';

/** The photo of compose.spec: 400 x 300 with the product's box at (150, 100), 100 x 150. */
const SOURCE = { width: 400, height: 300 };
const BOX = { left: 150, top: 100, width: 100, height: 150 };
const px = (value: number) => ({ px: value });
const even = (value: number) => ({ top: px(value), right: px(value), bottom: px(value), left: px(value) });

const layout = (changes: Partial<CanvasLayout> = {}): CanvasLayout => ({
  kind: 'layout',
  size: { width: 1000, height: 800 },
  padding: even(50),
  horizontal: 'center',
  vertical: 'center',
  scale: { kind: 'fit' },
  shadowInBox: false,
  ...changes,
});

describe('planLayout', () => {
  it('fits the box into the padded box along the tighter side and centres it, the odd pixel to the right', () => {
    // Padded box 900 x 700 at (50, 50); fit = min(900 / 100, 700 / 150) = 4.667: 466.67 -> 467 x 700.
    const plan = planLayout(SOURCE, BOX, layout());
    expect(plan.size).toEqual({ width: 1000, height: 800 });
    // (900 - 467) / 2 = 216.5: 216 on the left, 217 on the right.
    expect(plan.placed).toEqual({ left: 266, top: 50, width: 467, height: 700 });
    // The frame maps the box's edges onto the placed box's: source x -> (x - frame.left) * 1000 / frame.width.
    const toCanvasX = (x: number) => ((x - plan.frame.left) * 1000) / plan.frame.width;
    const toCanvasY = (y: number) => ((y - plan.frame.top) * 800) / plan.frame.height;
    expect(toCanvasX(150)).toBeCloseTo(266, 9);
    expect(toCanvasX(250)).toBeCloseTo(733, 9);
    expect(toCanvasY(100)).toBeCloseTo(50, 9);
    expect(toCanvasY(250)).toBeCloseTo(750, 9);
  });

  it('puts the box flush with each side for every alignment', () => {
    const at = (horizontal: CanvasLayout['horizontal'], vertical: CanvasLayout['vertical']) => {
      const { left, top } = planLayout(
        SOURCE,
        BOX,
        layout({ horizontal, vertical, scale: { kind: 'percent', percent: 50 } }),
      ).placed;
      return [left, top];
    };
    // 50 % of fit: 233.33 -> 233 x 350 in the 900 x 700 padded box.
    expect(at('left', 'top')).toEqual([50, 50]);
    expect(at('center', 'top')).toEqual([50 + 333, 50]);
    expect(at('right', 'top')).toEqual([50 + 900 - 233, 50]);
    expect(at('left', 'center')).toEqual([50, 50 + 175]);
    expect(at('right', 'bottom')).toEqual([717, 50 + 700 - 350]);
    expect(at('center', 'bottom')).toEqual([383, 400]);
  });

  it('resolves percent padding against the canvas side in its direction, rounding half up', () => {
    const padding = { top: { percent: 10 }, right: px(0), bottom: { percent: 12.5 }, left: { percent: 2.5 } };
    // Top 80 of 800, bottom 100 of 800, left 25 of 1000; 12.5 % of a 300 px source height is 37.5 -> 38.
    expect(paddedBox(SOURCE, layout({ padding }))?.box).toEqual({ left: 25, top: 80, width: 975, height: 620 });
    expect(paddedBox(SOURCE, layout({ padding, size: null }))?.box).toEqual({
      left: 10,
      top: 30,
      width: 390,
      height: 232,
    });
    // Fit: min(975 / 100, 620 / 150) = 4.133: 413.33 -> 413 x 620, centred in 975: 25 + 281.
    expect(planLayout(SOURCE, BOX, layout({ padding })).placed).toEqual({
      left: 306,
      top: 80,
      width: 413,
      height: 620,
    });
  });

  it('covers the padded box with fill, reaching past the canvas where the box is longer', () => {
    // fill = max(9, 4.667) = 9: 900 x 1350, centred: 50 + floor(-650 / 2) = -275.
    expect(planLayout(SOURCE, BOX, layout({ scale: { kind: 'fill' } })).placed).toEqual({
      left: 50,
      top: -275,
      width: 900,
      height: 1350,
    });
  });

  it("takes the source's size without a canvas size, and the whole photo when no subject was found", () => {
    const sourceSized = planFrame(SOURCE, BOX, layout({ size: null, padding: even(0) }));
    // Fit in 400 x 300: min(4, 2) = 2: 200 x 300 at (100, 0).
    expect(sourceSized.size).toEqual(SOURCE);
    expect((sourceSized as ReturnType<typeof planLayout>).placed).toEqual({
      left: 100,
      top: 0,
      width: 200,
      height: 300,
    });
    const nothing = planFrame(SOURCE, null, layout({ padding: even(0) }));
    // The whole 400 x 300 photo fitted into 1000 x 800: 2.5, 1000 x 750 at (0, 25).
    expect((nothing as ReturnType<typeof planLayout>).placed).toEqual({ left: 0, top: 25, width: 1000, height: 750 });
  });

  it('finds no room where the padding meets across the canvas', () => {
    expect(paddedBox(SOURCE, layout({ padding: { ...even(0), left: px(500), right: px(500) } }))).toBeNull();
    // 49 % of 800 is 392: with 408 below, nothing is left.
    expect(paddedBox(SOURCE, layout({ padding: { ...even(0), top: { percent: 49 }, bottom: px(408) } }))).toBeNull();
    expect(paddedBox(SOURCE, layout({ padding: { ...even(0), left: px(499), right: px(500) } }))).not.toBeNull();
  });
});

describe('planFrame without a placement on a canvas (unchanged)', () => {
  // The frames planFrame gave for these before placement on a canvas existed.
  it('plans the same frames as before for the source, crop and canvas kinds', () => {
    expect(planFrame(SOURCE, BOX, { kind: 'source' })).toEqual({
      frame: { left: 0, top: 0, width: 400, height: 300 },
      size: SOURCE,
    });
    expect(planFrame(SOURCE, BOX, { kind: 'crop', marginPercent: 7 })).toEqual({
      frame: { left: 139, top: 89, width: 122, height: 172 },
      size: { width: 122, height: 172 },
    });
    expect(planFrame(SOURCE, BOX, { kind: 'canvas', width: 2000, height: 2000, fill: 0.8 })).toEqual({
      frame: { left: 107, top: 82, width: 187, height: 187 },
      size: { width: 2000, height: 2000 },
    });
    expect(planFrame(SOURCE, null, { kind: 'canvas', width: 1080, height: 1350, fill: 0.85 })).toEqual({
      frame: { left: -35, top: -144, width: 471, height: 588 },
      size: { width: 1080, height: 1350 },
    });
  });
});

/** A hard-edged mask of `box` in a `size` photo, and a photo whose box is orange, elsewhere blue-grey. */
function boxLayers(size: { width: number; height: number }, box: typeof BOX) {
  const inBox = (x: number, y: number) =>
    x >= box.left && x < box.left + box.width && y >= box.top && y < box.top + box.height;
  const data = new Uint8Array(size.width * size.height);
  const colour = Buffer.alloc(size.width * size.height * 3);
  for (let y = 0; y < size.height; y++) {
    for (let x = 0; x < size.width; x++) {
      data[y * size.width + x] = inBox(x, y) ? 255 : 0;
      colour.set(inBox(x, y) ? [230, 120, 40] : [90, 100, 120], (y * size.width + x) * 3);
    }
  }
  return {
    colour: { data: colour, ...size, channels: 3 as const },
    alpha: { data, ...size },
  };
}

describe('resampleExactly', () => {
  const alignments = (['left', 'center', 'right'] as const).flatMap((horizontal) =>
    (['top', 'center', 'bottom'] as const).map((vertical) => [horizontal, vertical] as const),
  );

  it.each(alignments)(
    'lands the box exactly where planLayout put it (%s, %s), shrinking and enlarging',
    (horizontal, vertical) => {
      const { colour, alpha } = boxLayers(SOURCE, BOX);
      for (const [size, scale] of [
        [{ width: 1000, height: 800 }, { kind: 'fit' }],
        [{ width: 97, height: 61 }, { kind: 'fit' }],
        [
          { width: 640, height: 480 },
          { kind: 'percent', percent: 37 },
        ],
      ] as const) {
        const plan = planLayout(SOURCE, BOX, layout({ size, horizontal, vertical, scale, padding: even(7) }));
        const out = resampleExactly({ colour, alpha, shadow: null }, plan.frame, plan.size);
        expect(subjectBounds(out.alpha)).toEqual(plan.placed);
        // The product's colour inside its box, nothing outside it.
        const centre =
          (plan.placed.top + (plan.placed.height >> 1)) * size.width + plan.placed.left + (plan.placed.width >> 1);
        expect([...out.colour.data.subarray(centre * 3, centre * 3 + 3)]).toEqual([230, 120, 40]);
        expect(out.alpha.data[0] + out.alpha.data[out.alpha.data.length - 1]).toBe(0);
      }
    },
  );

  it('cuts a box that covers the canvas at its edges', () => {
    const { colour, alpha } = boxLayers(SOURCE, BOX);
    const plan = planLayout(SOURCE, BOX, layout({ scale: { kind: 'fill' } }));
    const out = resampleExactly({ colour, alpha, shadow: null }, plan.frame, plan.size);
    expect(subjectBounds(out.alpha)).toEqual({ left: 50, top: 0, width: 900, height: 800 });
  });
});

/** The photo of the fingerprints below: a 40 x 50 orange box with soft side edges on blue-grey, 120 x 90. */
function fingerprintPhoto(): { photo: RawImage; alpha: AlphaMask } {
  const W = 120;
  const H = 90;
  const photo = Buffer.alloc(W * H * 3);
  const alpha = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const inside = x >= 50 && x < 90 && y >= 20 && y < 70;
      photo.set(inside ? [230, 120 + (x % 7) * 5, 40] : [90, 100, 120], (y * W + x) * 3);
      alpha[y * W + x] = inside ? 255 : (x === 49 || x === 90) && y >= 20 && y < 70 ? 100 : 0;
    }
  }
  return { photo: { data: photo, width: W, height: H, channels: 3 }, alpha: { data: alpha, width: W, height: H } };
}

describe('cutoutPixels without a placement on a canvas', () => {
  const soft = { kind: 'soft' as const, spread: 1, lean: 0.6 };
  const none = { kind: 'none' as const, spread: 1, lean: 0 };
  const white = { r: 255, g: 255, b: 255, alpha: 1 };
  // Fingerprints of these results made before placement on a canvas existed.
  it.each([
    [
      'the source frame',
      { channels: 'rgba', background: null, shadow: soft, placement: { kind: 'source' } },
      '6c679ca5ae56e667',
    ],
    [
      'a crop',
      { channels: 'rgba', background: white, shadow: soft, placement: { kind: 'crop', marginPercent: 10 } },
      '7cd310e1e6bfe683',
    ],
    [
      'a preset canvas',
      {
        channels: 'rgba',
        background: white,
        shadow: none,
        placement: { kind: 'canvas', width: 200, height: 200, fill: 0.85 },
      },
      'f73f02f2d03b7c20',
    ],
    [
      'a mask',
      { channels: 'alpha', background: null, shadow: none, placement: { kind: 'source' } },
      '0f6f06fc7c41a0ac',
    ],
  ] as const)('gives the same bytes as before for %s', async (_name, composition, fingerprint) => {
    const { photo, alpha } = fingerprintPhoto();
    const out = await cutoutPixels(
      photo,
      alpha,
      { ...composition, backdrop: null, light: false, color: false, polish: false },
      30,
    );
    const data = out.kind === 'image' ? out.image.data : out.mask.data;
    expect(createHash('sha256').update(data).digest('hex').slice(0, 16)).toBe(fingerprint);
  });
});

describe('cutoutPixels on a canvas', () => {
  it("counts the shadow in the product's box when asked, so product and shadow fit together", async () => {
    const place = async (shadowInBox: boolean) => {
      const { colour, alpha } = boxLayers(SOURCE, BOX);
      const out = await cutoutPixels(
        colour,
        alpha,
        {
          channels: 'rgba',
          background: null,
          backdrop: null,
          shadow: { kind: 'soft', spread: 1, lean: 0 },
          placement: layout({ size: { width: 600, height: 600 }, padding: even(0), shadowInBox }),
          light: false,
          color: false,
          polish: false,
        },
        30,
      );
      if (out.kind !== 'image') throw new Error('an image was expected');
      // The product's own pixels: orange and opaque (the shadow is black).
      const product = new Uint8Array(600 * 600);
      for (let i = 0; i < product.length; i++)
        product[i] = out.image.data[i * 4] > 150 && out.image.data[i * 4 + 3] > 128 ? 255 : 0;
      return subjectBounds({ data: product, width: 600, height: 600 });
    };
    // Without the shadow the 100 x 150 box fills the canvas's height: 400 x 600.
    expect(await place(false)).toEqual({ left: 100, top: 0, width: 400, height: 600 });
    const withShadow = await place(true);
    // With it the box and the shadow below it share the height: the product is shorter and moves up.
    expect(withShadow?.height).toBeLessThan(590);
    expect(withShadow?.top).toBeLessThanOrEqual(1);
  });
});
