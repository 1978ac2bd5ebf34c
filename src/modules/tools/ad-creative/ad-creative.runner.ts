import { Inject, Injectable } from '@nestjs/common';
import { shapeFor } from '../../../core/image/aspect-ratio';
import { subjectBounds, type AlphaMask } from '../../../core/image/mask/alpha-mask';
import { fromRaw, type RawImage } from '../../../core/image/raw-image';
import type { SourceImage } from '../../../core/image/source-image';
import { IMAGE_PROVIDER, type ImageProvider } from '../../../core/image-provider/image-provider';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import type { ProductPhotoPreset } from '../../catalog/product-photo-presets';
import { ToolId } from '../../catalog/tools';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { encodeImage } from '../shared/encoding';
import { decodePhoto, photoPlan } from '../shared/photo-decoding';
import { coverTo } from '../shared/provider-images';
import { ResultFrame, type FramedTool, type ResultContext } from '../shared/result-frame';
import { isProductPhoto } from '../tool-options';
import { variantOf, type ToolOutput, type ToolRunner, type TypedToolTask } from '../tool-runner';
import type { AdGoal } from './ad-layout';
import { AD_PLATFORMS, PLATFORM_FRAMES, presetFrame, type AdPlatform, type PlatformFrame } from './ad-platforms';
import { paintAdPixels, planAd, type AdInput, type RgbaPixels } from './ad-renderer';
import type { AdStyle } from './ad-styles';

/** The product photo is decoded no larger than this: an ad canvas is at most 1920 a side. */
const PHOTO_LONG_SIDE = 2048;
/** The photo, its mask, the cut-out, the canvas and its encoded copy. */
const AD_LAYERS = 5;
/** What `premium_ad` asks a provider for behind the product when the client gave no instructions. */
export const PREMIUM_BACKDROP_PROMPT =
  'An elegant, premium studio backdrop for a luxury product advertisement: soft directional light, rich dark tones, no text, no products.';

interface AdRequest {
  platform: AdPlatform;
  frame?: PlatformFrame;
  goal: AdGoal;
  style: AdStyle;
  headline?: string;
  callToAction?: string;
  brandColor?: string;
  /** Set when the backdrop is the provider's (premium_ad with a provider): what it is asked to paint. */
  backdropPrompt: string | null;
}

/**
 * Live `ad_creative` (and the `premium_ad` product photo operation): the product, cut out when a
 * segmenter is configured (else its photo whole), laid out by the service on the platform's
 * canvas with the style's background and the copy set in the bundled fonts. `premium_ad` asks
 * the image provider, when there is one, for the backdrop from its `instructions`. In the result
 * frame:
 *
 * 1. the request (the creative, or the premium look on the preset's canvas);
 * 2. the source; its share of the budget: the photo at PHOTO_LONG_SIDE times AD_LAYERS;
 * 3. decode; segment (keeping to the client's hints); the provider's backdrop for `premium_ad`;
 *    lay the ad out; encode with the thumbnail.
 */
@Injectable()
export class AdCreativeRunner implements ToolRunner, FramedTool<AdRequest> {
  constructor(
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    @Inject(IMAGE_PROVIDER) private readonly provider: ImageProvider | null,
    private readonly frame: ResultFrame,
  ) {}

  run(task: TypedToolTask, signal: AbortSignal): Promise<ToolOutput> {
    return this.frame.run(task, signal, this);
  }

  request(task: TypedToolTask): AdRequest {
    if (task.tool !== ToolId.AdCreative) {
      throw new ResultFailure(ResultErrorCode.ProcessingFailed, `The ${task.tool} tool does not run on the ad pipeline.`);
    }
    const { options } = task;
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
    // premium_ad: the luxury look on the preset's canvas, no copy invented, the backdrop painted from the instructions.
    const placement = presetPlacement(options.preset);
    return { ...placement, goal: 'consideration', style: 'luxury', backdropPrompt: options.instructions ?? PREMIUM_BACKDROP_PROMPT };
  }

  pixels(source: SourceImage): number {
    const { scaled } = photoPlan(source, PHOTO_LONG_SIDE);
    return scaled.width * scaled.height * AD_LAYERS;
  }

  async pipeline({ task, source, request, limits }: ResultContext<AdRequest>) {
    const { signal } = limits;
    const photo = await decodePhoto(source, photoPlan(source, PHOTO_LONG_SIDE), limits);
    const alpha = this.segmenter ? (await this.segmenter.segment(photo, signal, task.subjectHints)).mask : null;
    const canvas = (request.frame ?? PLATFORM_FRAMES[request.platform]).canvas;
    const background = request.backdropPrompt && this.provider ? await this.backdrop(this.provider, request.backdropPrompt, canvas, signal) : undefined;
    const input: AdInput = { ...request, subject: subjectOf(photo, alpha), variant: variantOf(task), background };
    const layOut = async () => paintAdPixels(input, await planAd(input));
    const image = await layOut().catch((error: unknown) => {
      throw new ResultFailure(ResultErrorCode.ProcessingFailed, `The ad could not be laid out (${String(error).slice(0, 200)}).`);
    });
    return encodeImage(image, task.format);
  }

  private async backdrop(provider: ImageProvider, prompt: string, canvas: { width: number; height: number }, signal: AbortSignal): Promise<RgbaPixels> {
    const painted = await provider.generate({ prompt, references: [], shape: shapeFor(canvas) }, signal);
    const raw = await coverTo(painted, canvas);
    return { rgba: await fromRaw(raw).ensureAlpha().raw().toBuffer(), width: raw.width, height: raw.height };
  }
}

/** The platform whose canvas the preset has, or the preset's own canvas framed like a feed post. */
function presetPlacement(preset: ProductPhotoPreset | null): Pick<AdRequest, 'platform' | 'frame'> {
  if (!preset?.width || !preset.height) return { platform: 'instagram_feed' };
  const platform = AD_PLATFORMS.find((candidate) => {
    const { canvas } = PLATFORM_FRAMES[candidate];
    return canvas.width === preset.width && canvas.height === preset.height;
  });
  return platform ? { platform } : { platform: 'instagram_feed', frame: presetFrame({ width: preset.width, height: preset.height }) };
}

/** The cut-out as RGBA (the photo whole when there is no segmenter or it found nothing). */
function subjectOf(photo: RawImage, alpha: AlphaMask | null): RgbaPixels {
  const pixels = photo.width * photo.height;
  const rgba = Buffer.alloc(pixels * 4);
  const keep = alpha && subjectBounds(alpha) ? alpha : null;
  for (let i = 0; i < pixels; i++) {
    for (let c = 0; c < 3; c++) rgba[i * 4 + c] = photo.data[i * photo.channels + c];
    rgba[i * 4 + 3] = keep ? keep.data[i] : 255;
  }
  return { rgba, width: photo.width, height: photo.height };
}
