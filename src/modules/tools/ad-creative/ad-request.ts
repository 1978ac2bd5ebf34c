import type { ProductPhotoPreset } from '../../catalog/product-photo-presets';
import { isProductPhoto, type AdCreativeOptions, type ProductPhotoOptions } from '../tool-options';
import type { AdInput } from '../../../engine/ad/ad-renderer';
import { AD_PLATFORMS, PLATFORM_FRAMES, presetFrame } from '../../../engine/ad/ad-platforms';

/** What `premium_ad` asks a provider for behind the product when the client gave no instructions. */
export const PREMIUM_BACKDROP_PROMPT =
  'An elegant, premium studio backdrop for a luxury product advertisement: soft directional light, rich dark ' +
  'tones, no text, no products.';

/** One ad, whatever endpoint asked for it: what the renderer lays out, before the photo is decoded. */
export type AdRequest = Omit<AdInput, 'subject' | 'variant' | 'background'> & {
  /** Set when the backdrop is the provider's (premium_ad with a provider): what it is asked to paint. */
  backdropPrompt: string | null;
};

/** `POST /ad/create`'s creative, or `premium_ad`: the luxury look on the preset's canvas. */
export function adRequestOf(options: AdCreativeOptions | ProductPhotoOptions): AdRequest {
  if (!isProductPhoto(options)) {
    const { creative } = options;
    return {
      platform: creative.platform,
      goal: creative.goal,
      style: creative.style,
      headline: creative.headline,
      callToAction: creative.call_to_action,
      brandColor: creative.brand_color,
      backdropPrompt: null,
    };
  }
  // premium_ad: no copy invented, the backdrop painted from the instructions.
  const placement = presetPlacement(options.preset);
  return {
    ...placement,
    goal: 'consideration',
    style: 'luxury',
    backdropPrompt: options.instructions ?? PREMIUM_BACKDROP_PROMPT,
  };
}

/** The platform whose canvas the preset has, or the preset's own canvas framed like a feed post. */
function presetPlacement(preset: ProductPhotoPreset | null): Pick<AdRequest, 'platform' | 'frame'> {
  if (!preset?.width || !preset.height) return { platform: 'instagram_feed' };
  const platform = AD_PLATFORMS.find((candidate) => {
    const { canvas } = PLATFORM_FRAMES[candidate];
    return canvas.width === preset.width && canvas.height === preset.height;
  });
  return platform
    ? { platform }
    : { platform: 'instagram_feed', frame: presetFrame({ width: preset.width, height: preset.height }) };
}
