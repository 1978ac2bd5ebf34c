import { shapeFor } from '../../../core/image/aspect-ratio';
import type { GeometryPlan } from '../../../core/image/geometry';
import { subjectBounds, type AlphaMask } from '../../../engine/mask/alpha-mask';
import type { SubjectHints } from '../../../engine/mask/subject-hints';
import { fromRaw, type RawImage, type Size } from '../../../core/image/raw-image';
import type { SourceImage } from '../../../core/image/source-image';
import type { ImageProvider } from '../../../core/image-provider/image-provider';
import type { Segmenter } from '../../../core/segmentation/segmenter';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { encodeImage, type EncodedImage } from '../shared/encoding';
import type { PipelineLimits } from '../shared/pipeline-limits';
import { decodePhoto } from '../shared/photo-decoding';
import { coverTo } from '../../../core/image/provider-images';
import type { OutputFormat } from '../../../core/image/output-format';
import type { FileChoices } from '../tool-runner';
import { PLATFORM_FRAMES } from '../../../engine/ad/ad-platforms';
import type { AdInput, RgbaPixels } from '../../../engine/ad/ad-renderer';
import type { AdRequest } from './ad-request';

/** One ad result: which variant of its source, where the client says the product is, and its format and file. */
export interface AdJob {
  variant: number;
  hints: SubjectHints;
  format: OutputFormat;
  file: FileChoices;
}

/**
 * What an ad runs with: the segmenter (else the photo whole) and the provider for `premium_ad` backdrops, when
 * configured.
 */
export interface AdPainters {
  segmenter: Segmenter | null;
  provider: ImageProvider | null;
}

/**
 * One ad, in order: decode the photo at `plan`'s size; segment it (keeping to the client's
 * hints); the provider's backdrop, for a request that asks for one; lay the ad out on the
 * platform's canvas; encode with the thumbnail.
 */
export async function runAd(
  source: SourceImage,
  plan: GeometryPlan,
  request: AdRequest,
  job: AdJob,
  { segmenter, provider }: AdPainters,
  limits: PipelineLimits & { signal: AbortSignal },
): Promise<EncodedImage> {
  const { signal } = limits;
  const photo = await decodePhoto(source, plan, limits);
  const alpha = segmenter ? (await segmenter.segment(photo, signal, job.hints)).mask : null;
  const canvas = (request.frame ?? PLATFORM_FRAMES[request.platform]).canvas;
  const background =
    request.backdropPrompt && provider
      ? await paintedBackdrop(provider, request.backdropPrompt, canvas, signal)
      : undefined;
  const input: AdInput = { ...request, subject: subjectOf(photo, alpha), variant: job.variant, background };
  const image = await limits.engine.run('layOutAd', [input]).catch((error: unknown) => {
    throw new ResultFailure(
      ResultErrorCode.ProcessingFailed,
      `The ad could not be laid out (${String(error).slice(0, 200)}).`,
    );
  });
  return encodeImage(image, { format: job.format, file: job.file, source });
}

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
