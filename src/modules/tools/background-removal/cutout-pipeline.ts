import { planGeometry, type GeometryPlan } from '../../../core/image/geometry';
import type { Size } from '../../../core/image/raw-image';
import type { SourceImage } from '../../../core/image/source-image';
import type { Segmenter } from '../../../core/segmentation/segmenter';
import { encodeImage, encodeMaskImage, type EncodedImage } from '../shared/encoding';
import type { PipelineLimits } from '../shared/pipeline-limits';
import { decodePhoto } from '../shared/photo-decoding';
import type { CutoutRequest } from './cutout-request';

/** Cut-outs are made at most this large; a larger source's result is scaled down to it (25 megapixels). */
export const CUTOUT_MAX_PIXELS = 25_000_000;

/** How a source is decoded for a cut-out: at its own size, or scaled down to CUTOUT_MAX_PIXELS. */
export function cutoutPlan(source: Size): GeometryPlan {
  const factor = Math.min(1, Math.sqrt(CUTOUT_MAX_PIXELS / (source.width * source.height)));
  return planGeometry(source, { width: Math.max(1, Math.floor(source.width * factor)), upscale: false });
}

/** A cut-out result with how unsure the segmenter was of its mask (0 sure, 1 unsure). */
export interface CutoutImage extends EncodedImage {
  uncertainty: number;
}

/**
 * One cut-out result: decode (flattening any transparency onto white, which is what the model
 * was trained on), segment (keeping to the client's hints), then the engine's cutoutPixels
 * (correct the product's pixels, draw the shadow, frame: the whole photo, a crop around the
 * subject, or a canvas the subject fills a set share of; compose onto the background), and
 * encode with the thumbnail. A mask (`channels` `alpha`) is the framed alpha itself, encoded as
 * one channel: the same pixels as the alpha of the transparent cut-out, since a mask has neither
 * a background colour nor a shadow.
 */
export async function runCutout(
  source: SourceImage,
  request: CutoutRequest,
  segmenter: Segmenter,
  limits: PipelineLimits & { signal: AbortSignal },
): Promise<CutoutImage> {
  const photo = await decodePhoto(source, cutoutPlan(source), limits);
  const { mask: alpha, uncertainty } = await segmenter.segment(photo, limits.signal, request.hints);
  limits.signal.throwIfAborted();
  const pixels = await limits.engine.run(
    'cutoutPixels',
    [photo, alpha, { ...request, channels: request.channels }, limits.timeoutSeconds],
    [photo, alpha],
  );
  limits.signal.throwIfAborted();

  const encoded =
    pixels.kind === 'mask'
      ? await encodeMaskImage(pixels.mask, { file: request.file, source })
      : await encodeImage(pixels.image, { format: request.format, file: request.file, source });
  return { ...encoded, uncertainty };
}
