import type { PixelBounds } from '../mask/alpha-mask';
import { inside, must, overlap } from '../../../test/support/bounds';
import { AD_GOALS, layoutAd, placeTexts } from './ad-layout';
import { AD_PLATFORMS, PLATFORM_FRAMES } from './ad-platforms';

describe('PLATFORM_FRAMES', () => {
  it('keeps text clear of the vertical placements’ overlays, and of the right-hand buttons on TikTok', () => {
    for (const platform of ['instagram_story', 'tiktok'] as const) {
      const { canvas, safeZone } = PLATFORM_FRAMES[platform];
      expect(canvas).toEqual({ width: 1080, height: 1920 });
      expect(safeZone.top).toBeGreaterThanOrEqual(0.14 * canvas.height);
      expect(canvas.height - safeZone.top - safeZone.height).toBeGreaterThanOrEqual(0.2 * canvas.height);
    }
    const tiktok = PLATFORM_FRAMES.tiktok.safeZone;
    expect(1080 - tiktok.left - tiktok.width).toBeGreaterThan(tiktok.left);
  });
});

describe('layoutAd', () => {
  const cases = AD_PLATFORMS.flatMap((platform) =>
    AD_GOALS.flatMap((goal) =>
      [0, 1, 2, 3].flatMap((variant) => [true, false].map((headline) => ({ platform, goal, variant, headline }))),
    ),
  );

  it.each(cases)(
    'keeps $platform $goal variant $variant (headline $headline) in the safe zone, nothing overlapping',
    (request) => {
      for (const callToAction of [true, false]) {
        const layout = layoutAd({ ...request, callToAction });
        const slots = [layout.headline?.box, layout.callToAction?.box].filter(
          (slot): slot is PixelBounds => slot !== undefined,
        );
        expect(slots).toHaveLength(Number(request.headline) + Number(callToAction));
        for (const box of [layout.subjectArea, ...slots]) expect(inside(box, layout.safeZone)).toBe(true);
        for (const slot of slots) expect(overlap(slot, layout.subjectArea)).toBe(false);
        if (slots.length === 2) expect(overlap(slots[0], slots[1])).toBe(false);
      }
    },
  );

  it('gives awareness the most room for the product, and conversion the largest call to action', () => {
    const area = (goal: (typeof AD_GOALS)[number]) => {
      const layout = layoutAd({ platform: 'instagram_feed', goal, variant: 0, headline: true, callToAction: true });
      const callToAction = must(layout.callToAction, 'a call-to-action slot');
      return {
        subject: layout.subjectArea.width * layout.subjectArea.height,
        cta: callToAction.maxFontSize,
        kind: callToAction.kind,
      };
    };
    expect(area('awareness').subject).toBeGreaterThan(area('consideration').subject);
    expect(area('awareness').kind).toBe('link');
    expect(area('conversion').cta).toBeGreaterThan(area('consideration').cta);
  });

  it('mirrors consecutive variants and moves every second one to the next treatment', () => {
    const at = (variant: number) =>
      layoutAd({ platform: 'facebook_feed', goal: 'conversion', variant, headline: true, callToAction: true });
    expect(at(0).subjectArea.left).toBeGreaterThan(must(at(0).headline, 'a headline slot').box.left);
    expect(at(1).subjectArea.left).toBeLessThan(must(at(1).headline, 'a headline slot').box.left);
    expect([0, 1, 2, 3, 4, 5, 6].map((variant) => at(variant).treatment)).toEqual([0, 0, 1, 1, 2, 2, 0]);
  });
});

describe('placeTexts', () => {
  it('centres a stacked headline and call to action as one group in the span of their slots', () => {
    const layout = layoutAd({
      platform: 'instagram_feed',
      goal: 'conversion',
      variant: 1,
      headline: true,
      callToAction: true,
    });
    const placed = placeTexts(layout, { width: 400, height: 100 }, { width: 300, height: 120 });
    const headlineSlot = must(layout.headline, 'a headline slot').box;
    const ctaSlot = must(layout.callToAction, 'a call-to-action slot').box;
    const headline = must(placed.headline, 'a placed headline');
    const callToAction = must(placed.callToAction, 'a placed call to action');
    expect(callToAction.top).toBe(headline.top + 100 + layout.gap);
    const above = headline.top - headlineSlot.top;
    const below = ctaSlot.top + ctaSlot.height - (callToAction.top + 120);
    expect(Math.abs(above - below)).toBeLessThanOrEqual(1);
    expect(headline.left).toBe(headlineSlot.left + Math.floor((headlineSlot.width - 400) / 2));
  });
});
