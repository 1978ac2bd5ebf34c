import sharp from 'sharp';
import { opaqueColour } from '../compose/colour';
import type { PixelBounds } from '../mask/alpha-mask';
import { inside, must, overlap } from '../../../test/support/bounds';
import type { AdGoal } from './ad-layout';
import { AD_PLATFORMS, PLATFORM_FRAMES, type AdPlatform } from './ad-platforms';
import { paintAd, planAd, renderAd, type AdInput, type AdPlan, type RgbaPixels } from './ad-renderer';
import { AD_STYLES, DEFAULT_BRAND_COLOUR, type AdStyle } from './ad-styles';
import { renderText } from './ad-text';

/** The longest texts the contract allows: 60 and 25 characters. */
const HEADLINE = 'Ultra-light trail running shoes built for all mountain paths';
const CTA = 'Shop the new collection!!';
/** Teal: far from the magenta product and from every style's neutrals. */
const BRAND = '#0F766E';

/**
 * A pure magenta bottle, 240 x 360, on transparency, its edges anti-aliased (4 x 4 samples a
 * pixel), so its pixels can be told from anything an ad draws.
 */
function magentaBottle(): RgbaPixels {
  const width = 240;
  const height = 360;
  const rgba = Buffer.alloc(width * height * 4);
  const inBottle = (x: number, y: number) =>
    (x - 120) ** 2 / 110 ** 2 + (y - 240) ** 2 / 115 ** 2 <= 1 || (Math.abs(x - 120) <= 35 && y >= 10 && y <= 150);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let hits = 0;
      for (let sy = 0; sy < 4; sy++)
        for (let sx = 0; sx < 4; sx++) if (inBottle(x + (sx + 0.5) / 4, y + (sy + 0.5) / 4)) hits++;
      if (hits > 0) rgba.set([255, 0, 255, (hits * 255) >> 4], (y * width + x) * 4);
    }
  }
  return { rgba, width, height };
}

const BOTTLE = magentaBottle();
/** The bottle's visible extent: 220 x 350 (x 10..229, y 10..359). */
const BOTTLE_ASPECT = 220 / 350;

interface Decoded {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

async function decoded(png: Buffer): Promise<Decoded> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/*
 * The pixel loops below avoid `Math`: jest runs a spec in a vm realm where every lookup of a
 * global such as `Math` costs some 25 times what it does in Node's own realm.
 */

/** The smallest rectangle holding every pixel (x, y) of `image` for which `test` holds. */
function boundsWhere(image: Decoded, test: (offset: number) => boolean, within?: PixelBounds): PixelBounds | null {
  const area = within ?? { left: 0, top: 0, width: image.width, height: image.height };
  let left = image.width;
  let top = image.height;
  let right = -1;
  let bottom = -1;
  for (let y = area.top; y < area.top + area.height; y++) {
    for (let x = area.left; x < area.left + area.width; x++) {
      if (!test((y * image.width + x) * image.channels)) continue;
      if (x < left) left = x;
      if (x > right) right = x;
      if (y < top) top = y;
      bottom = y;
    }
  }
  return right < 0 ? null : { left, top, width: right - left + 1, height: bottom - top + 1 };
}

/** Where two renders of the same size differ at all. */
function differing(a: Decoded, b: Decoded): PixelBounds | null {
  return boundsWhere(
    a,
    (i) => a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2],
  );
}

/** A test for pixels within `tolerance` of `hex` on every channel. */
function near(image: Decoded, hex: string, tolerance: number): (offset: number) => boolean {
  const { r, g, b } = opaqueColour(hex);
  const { data } = image;
  const close = (value: number, target: number) => value - target <= tolerance && target - value <= tolerance;
  return (i) => close(data[i], r) && close(data[i + 1], g) && close(data[i + 2], b);
}

const magentaBounds = (image: Decoded) => boundsWhere(image, near(image, '#FF00FF', 24));

function countNear(image: Decoded, hex: string, tolerance: number, within?: PixelBounds): number {
  const test = near(image, hex, tolerance);
  let count = 0;
  boundsWhere(image, (i) => test(i) && ++count > 0, within);
  return count;
}

function meanAbsoluteDifference(a: Decoded, b: Decoded): number {
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += a.data[i] > b.data[i] ? a.data[i] - b.data[i] : b.data[i] - a.data[i];
  return sum / a.data.length;
}

function adInput(platform: AdPlatform, style: AdStyle, overrides: Partial<AdInput> = {}): AdInput {
  return {
    subject: BOTTLE,
    platform,
    style,
    goal: 'conversion',
    headline: HEADLINE,
    callToAction: CTA,
    brandColor: BRAND,
    variant: 0,
    ...overrides,
  };
}

/** The plan painted whole, without its headline, and without any text. */
async function paintedThreeWays(input: AdInput, plan: AdPlan) {
  const [full, withoutHeadline, bare] = await Promise.all([
    paintAd(input, plan),
    paintAd(input, { ...plan, headline: null }),
    paintAd(input, { ...plan, headline: null, callToAction: null }),
  ]);
  return {
    render: full,
    full: await decoded(full.image),
    withoutHeadline: await decoded(withoutHeadline.image),
    bare: await decoded(bare.image),
  };
}

describe('renderAd', () => {
  describe.each(AD_PLATFORMS)('on %s', (platform) => {
    const { canvas, safeZone } = PLATFORM_FRAMES[platform];

    it.each(AD_STYLES)(
      '%s: exact canvas, both texts whole inside the safe zone, the product whole, the brand colour shown',
      async (style) => {
        const input = adInput(platform, style);
        const plan = await planAd(input);
        const { render, full, withoutHeadline, bare } = await paintedThreeWays(input, plan);

        expect([full.width, full.height, full.channels]).toEqual([canvas.width, canvas.height, 3]);
        expect([render.width, render.height]).toEqual([canvas.width, canvas.height]);

        const texts = must(differing(full, bare), 'text pixels');
        const headline = must(differing(full, withoutHeadline), 'headline pixels');
        const cta = must(differing(withoutHeadline, bare), 'call-to-action pixels');
        for (const box of [texts, headline, cta]) expect(inside(box, safeZone)).toBe(true);

        // The text boxes reported are where the text was drawn.
        const reported = render.textBoxes;
        expect(reported.map((box) => box.kind)).toEqual(['headline', 'call_to_action']);
        expect(inside(headline, reported[0])).toBe(true);
        expect(inside(cta, reported[1])).toBe(true);

        // The whole headline was drawn: its ink is as large as the same text rendered alone.
        const set = must(plan.headline, 'a headline').text;
        const slotWidth = must(plan.layout.headline, 'a headline slot').box.width;
        const alone = await renderText(
          HEADLINE,
          { ...plan.palette.headline, align: plan.layout.align },
          set.fontSize,
          slotWidth,
          set.wrap,
        );
        expect(headline.width).toBeGreaterThanOrEqual(alone.width - 2);
        expect(headline.height).toBeGreaterThanOrEqual(alone.height - 2);
        // ... plus its rule, and nothing else.
        expect(headline.height).toBeLessThanOrEqual(alone.height + 0.6 * set.fontSize + 2);

        // The whole label was drawn on the button: its ink (where the pill's straight middle differs from the fill)
        // matches the label alone.
        const label = must(plan.callToAction, 'a call to action').label;
        const middle = {
          left: cta.left + Math.ceil(cta.height / 2),
          top: cta.top + 3,
          width: cta.width - 2 * Math.ceil(cta.height / 2),
          height: cta.height - 6,
        };
        const onFill = near(full, plan.palette.button.fill, 96);
        const labelInk = must(
          boundsWhere(full, (i) => !onFill(i), middle),
          'label ink',
        );
        const labelAlone = await renderText(
          CTA,
          { ...plan.palette.button.label, align: 'centre' },
          label.fontSize,
          10_000,
          label.wrap,
        );
        expect(labelInk.width).toBeGreaterThanOrEqual(labelAlone.width - 4);
        expect(labelInk.width).toBeLessThanOrEqual(labelAlone.width + 1);
        expect(labelInk.height).toBeGreaterThanOrEqual(labelAlone.height - 4);

        // The product: all there, not cropped (its shape's proportions kept), off the canvas's edges and clear of the
        // text.
        const product = must(magentaBounds(full), 'magenta pixels');
        expect(product.left).toBeGreaterThan(0);
        expect(product.top).toBeGreaterThan(0);
        expect(product.left + product.width).toBeLessThan(canvas.width);
        expect(product.top + product.height).toBeLessThan(canvas.height);
        expect(product.width / product.height).toBeCloseTo(BOTTLE_ASPECT, 1);
        expect(product.height).toBeGreaterThan(0.3 * safeZone.height);
        expect(overlap(product, headline) || overlap(product, cta)).toBe(false);

        expect(countNear(full, BRAND, 3)).toBeGreaterThan(0.005 * canvas.width * canvas.height);
      },
    );
  });

  it.each<[AdPlatform, AdGoal]>([
    ['instagram_story', 'awareness'],
    ['tiktok', 'consideration'],
    ['google_display', 'awareness'],
    ['facebook_feed', 'consideration'],
  ])('keeps the texts of %s %s inside the safe zone', async (platform, goal) => {
    for (const variant of [0, 1]) {
      const input = adInput(platform, 'minimal', { goal, variant });
      const plan = await planAd(input);
      const [full, bare] = await Promise.all([
        paintAd(input, plan),
        paintAd(input, { ...plan, headline: null, callToAction: null }),
      ]);
      expect(
        inside(
          must(differing(await decoded(full.image), await decoded(bare.image)), 'text pixels'),
          PLATFORM_FRAMES[platform].safeZone,
        ),
      ).toBe(true);
    }
  });

  it('lets the goal decide the emphasis: a big product for awareness, a big brand button for conversion', async () => {
    const measured = async (goal: AdGoal) => {
      const input = adInput('instagram_feed', 'minimal', { goal });
      const plan = await planAd(input);
      const { full, withoutHeadline, bare } = await paintedThreeWays(input, plan);
      const product = must(magentaBounds(full), 'magenta pixels');
      const cta = must(differing(withoutHeadline, bare), 'call-to-action pixels');
      return {
        product: product.width * product.height,
        cta: cta.width * cta.height,
        brandInCta: countNear(full, BRAND, 3, cta),
      };
    };
    const [awareness, consideration, conversion] = await Promise.all([
      measured('awareness'),
      measured('consideration'),
      measured('conversion'),
    ]);
    expect(awareness.product).toBeGreaterThan(1.2 * conversion.product);
    expect(conversion.cta).toBeGreaterThan(1.2 * consideration.cta);
    expect(consideration.cta).toBeGreaterThan(2 * awareness.cta);
    // A button is a field of the brand colour; awareness's link is a line of text.
    expect(conversion.brandInCta).toBeGreaterThan(0.5 * conversion.cta);
    expect(awareness.brandInCta).toBeLessThan(0.5 * awareness.cta);
  });

  it('draws hostile text literally, without throwing', async () => {
    const input = adInput('instagram_feed', 'bold', { headline: '<b>&amp; "x"</b>', callToAction: '<i>&lt;</i>' });
    const plan = await planAd(input);
    const { full, withoutHeadline } = await paintedThreeWays(input, plan);
    const headline = must(differing(full, withoutHeadline), 'headline pixels');
    const set = must(plan.headline, 'a headline').text;
    const interpreted = await renderText(
      '& "x"',
      { ...plan.palette.headline, align: 'centre' },
      set.fontSize,
      10_000,
      'word',
    );
    expect(headline.width).toBeGreaterThan(2.5 * interpreted.width);
  });

  it('makes variants that differ visibly, and the same input gives the same bytes', async () => {
    const renders = await Promise.all(
      [0, 1, 2, 0].map((variant) => renderAd(adInput('pinterest', 'minimal', { variant }))),
    );
    const [first, mirrored, treated] = await Promise.all(renders.slice(0, 3).map((render) => decoded(render.image)));
    expect(meanAbsoluteDifference(first, mirrored)).toBeGreaterThan(12);
    expect(meanAbsoluteDifference(first, treated)).toBeGreaterThan(3);
    expect(renders[3].image.equals(renders[0].image)).toBe(true);
  });

  it('varies the treatment of every style', async () => {
    for (const style of AD_STYLES) {
      const [a, b] = await Promise.all(
        [0, 2].map(async (variant) => decoded((await renderAd(adInput('facebook_feed', style, { variant }))).image)),
      );
      expect(meanAbsoluteDifference(a, b)).toBeGreaterThan(1.5);
    }
  });

  it(
    'uses a supplied background instead of the style’s ' + 'own, under veils that keep the text on the palette',
    async () => {
      // A checker of 16 px blocks in blue and amber, so moving, flopping or zooming it shows.
      const width = 64;
      const height = 64;
      const rgba = Buffer.alloc(width * height * 4);
      const blue = [20, 60, 200];
      const amber = [200, 160, 20];
      for (let y = 0; y < height; y++)
        for (let x = 0; x < width; x++)
          rgba.set([...(((x >> 4) + (y >> 4)) % 2 ? amber : blue), 255], (y * width + x) * 4);
      const input = adInput('instagram_story', 'minimal', { background: { rgba, width, height } });
      const plan = await planAd(input);
      const { full, bare } = await paintedThreeWays(input, plan);
      // Covering 1080 x 1920, the square is scaled 30 times and 420 px of it cut from each side: the bottom corners
      // fall in blocks (0, 3) and (3, 3), below the text and the product.
      expect(countNear(full, '#C8A014', 2, { left: 0, top: 1900, width: 20, height: 20 })).toBe(400);
      expect(countNear(full, '#143CC8', 2, { left: 1060, top: 1900, width: 20, height: 20 })).toBe(400);
      expect(inside(must(differing(full, bare), 'text pixels'), PLATFORM_FRAMES.instagram_story.safeZone)).toBe(true);
      expect(magentaBounds(full)).not.toBeNull();

      // One backdrop for every variant still gives variants that differ beyond mirroring.
      const [flopped, closer] = await Promise.all(
        [2, 4].map(async (variant) => decoded((await renderAd({ ...input, variant })).image)),
      );
      expect(meanAbsoluteDifference(full, flopped)).toBeGreaterThan(10);
      expect(meanAbsoluteDifference(full, closer)).toBeGreaterThan(10);
      expect(meanAbsoluteDifference(flopped, closer)).toBeGreaterThan(10);
    },
  );

  it('places an opaque photo whole, as a rectangle, and a product without texts larger', async () => {
    const width = 300;
    const height = 200;
    const photo = { rgba: Buffer.alloc(width * height * 4), width, height };
    for (let i = 0; i < width * height; i++) photo.rgba.set([255, 0, 255, 255], i * 4);
    const input = adInput('google_display', 'luxury', { subject: photo });
    const plan = await planAd(input);
    expect(plan.subject.cutout).toBe(false);
    const product = must(magentaBounds(await decoded((await paintAd(input, plan)).image)), 'magenta pixels');
    expect(product).toEqual(plan.subject.box);
    expect(product.width / product.height).toBeCloseTo(1.5, 1);

    const alone = await renderAd({ ...input, headline: undefined, callToAction: '  ' });
    expect(alone.textBoxes).toEqual([]);
    expect(alone.subjectBox.width).toBeGreaterThan(1.3 * product.width);
  });

  it('uses the default brand colour when none is given', async () => {
    const render = await renderAd(adInput('facebook_feed', 'minimal', { brandColor: undefined }));
    expect(countNear(await decoded(render.image), DEFAULT_BRAND_COLOUR, 3)).toBeGreaterThan(0.005 * 1200 * 628);
  });
});
