import { shapeFor } from '../../../core/image/aspect-ratio';
import { subjectBounds, type AlphaMask } from '../../../engine/mask/alpha-mask';
import { fromRaw, type RawImage, type Size } from '../../../engine/raw-image';
import type { ImageProvider } from '../../../core/image-provider/image-provider';
import type { Segmenter } from '../../../core/segmentation/segmenter';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { encodeImage, type EncodedImage } from '../shared/encoding';
import { decodeSourceAt } from '../shared/photo-decoding';
import { made, type ToolContext, type ToolPipeline, type ToolStep } from '../shared/tool-steps';
import { coverTo } from '../../../core/image/provider-images';
import { PLATFORM_FRAMES } from '../../../engine/ad/ad-platforms';
import type { AdInput, RgbaPixels } from '../../../engine/ad/ad-renderer';
import type { AdRequest } from './ad-request';

/** The product photo is decoded no larger than this: an ad canvas is at most 1920 a side. */
export const AD_PHOTO_LONG_SIDE = 2048;

/**
 * What an ad runs with: the segmenter (else the photo whole) and the provider for `premium_ad` backdrops, when
 * configured.
 */
export interface AdPainters {
  segmenter: Segmenter | null;
  provider: ImageProvider | null;
}

export type AdContext = ToolContext<AdRequest, AdPainters>;

/** An ad between its steps. */
export interface AdWork {
  photo: RawImage | null;
  /** The subject's mask; null without a segmenter. */
  alpha: AlphaMask | null;
  /** The provider's backdrop, for a request that asks for one. */
  background: RgbaPixels | undefined;
  ad: RawImage | null;
  encoded: EncodedImage | null;
}

type AdStep = ToolStep<AdContext, AdWork>;

/** The photo at AD_PHOTO_LONG_SIDE. */
const decodeSource: AdStep = decodeSourceAt(AD_PHOTO_LONG_SIDE);

/** The product's mask, keeping to the client's hints; without a segmenter the photo is used whole. */
const segmentSubject: AdStep = async function segmentSubject({ dependencies, signal, choices }, work) {
  if (!dependencies.segmenter) return work;
  const photo = made(work.photo, 'decoded photo');
  return { ...work, alpha: (await dependencies.segmenter.segment(photo, signal, choices.hints)).mask };
};

/** The provider's backdrop, for a request that asks for one on a deployment that has a provider. */
const paintBackdrop: AdStep = async function paintBackdrop({ request, dependencies, signal }, work) {
  if (!request.backdropPrompt || !dependencies.provider) return work;
  const canvas = (request.frame ?? PLATFORM_FRAMES[request.platform]).canvas;
  return { ...work, background: await paintedBackdrop(dependencies.provider, request.backdropPrompt, canvas, signal) };
};

/** The ad laid out on the platform's canvas. */
const layOutAd: AdStep = async function layOutAd({ request, limits, choices }, work) {
  const photo = made(work.photo, 'decoded photo');
  const input: AdInput = {
    ...request,
    subject: subjectOf(photo, work.alpha),
    variant: choices.variant,
    background: work.background,
  };
  const ad = await limits.engine.run('layOutAd', [input]).catch((error: unknown) => {
    throw new ResultFailure(
      ResultErrorCode.ProcessingFailed,
      `The ad could not be laid out (${String(error).slice(0, 200)}).`,
    );
  });
  return { ...work, ad };
};

/** Encode with the thumbnail. */
const encodeResult: AdStep = async function encodeResult({ choices }, work) {
  return {
    ...work,
    encoded: await encodeImage(made(work.ad, 'laid-out ad'), { ...choices.output, carried: choices.carried }),
  };
};

/** One ad, in this order. */
export const AD_STEPS: readonly AdStep[] = [decodeSource, segmentSubject, paintBackdrop, layOutAd, encodeResult];

export const AD_PIPELINE: ToolPipeline<AdContext, AdWork> = {
  start: () => ({ photo: null, alpha: null, background: undefined, ad: null, encoded: null }),
  steps: AD_STEPS,
  result: ({ encoded }) => made(encoded, 'encoded image'),
};

/** The provider's backdrop, fitted to the canvas, as RGBA. */
async function paintedBackdrop(
  provider: ImageProvider,
  prompt: string,
  canvas: Size,
  signal: AbortSignal,
): Promise<RgbaPixels> {
  const painted = await provider.generate({ prompt, references: [], shape: shapeFor(canvas) }, signal);
  const raw = await coverTo(painted, canvas);
  return { rgba: await fromRaw(raw).ensureAlpha().raw().toBuffer(), width: raw.width, height: raw.height };
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
