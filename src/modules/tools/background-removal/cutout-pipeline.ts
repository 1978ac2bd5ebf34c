import { composite } from '../../../core/image/compose/composite';
import { reframe } from '../../../core/image/compose/cutout-layers';
import { planFrame, union } from '../../../core/image/compose/framing';
import { planGeometry, type GeometryPlan } from '../../../core/image/geometry';
import { subjectBounds } from '../../../core/image/mask/alpha-mask';
import type { Size } from '../../../core/image/raw-image';
import type { SourceImage } from '../../../core/image/source-image';
import type { Segmenter } from '../../../core/segmentation/segmenter';
import { cutOut } from '../shared/cut-out';
import { encodeImage, encodeMaskImage, type EncodedImage } from '../shared/encoding';
import type { PipelineLimits } from '../shared/pipeline-limits';
import { decodePhoto } from '../shared/photo-decoding';
import type { CutoutRequest } from './cutout-request';

/** Cut-outs are made at most this large; a larger source's result is scaled down to it (25 megapixels). */
export const CUTOUT_MAX_PIXELS = 25_000_000;

/** Shadow opacity below this does not count as part of the subject's frame. */
const SHADOW_FRAME_THRESHOLD = 8;

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
 * was trained on), segment (keeping to the client's hints), correct the product's pixels, draw
 * the shadow, frame (the whole photo, a crop around the subject, or a canvas the subject fills a
 * set share of), compose onto the background, encode with the thumbnail. A mask (`channels`
 * `alpha`) is the framed alpha itself, encoded as one channel: the same pixels as the alpha of
 * the transparent cut-out, since a mask has neither a background colour nor a shadow.
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
  const mask = request.channels === 'alpha';
  // A mask needs neither the product's cleaned colours nor a shadow; framing resamples the alpha apart from the colour.
  const layers = mask ? { colour: photo, alpha, shadow: null } : await cutOut(photo, alpha, request, limits);

  const subject = subjectBounds(alpha);
  const shadow = layers.shadow && subjectBounds(layers.shadow, SHADOW_FRAME_THRESHOLD);
  const framing = planFrame(
    photo,
    request.placement.kind === 'crop' ? union(subject, shadow) : subject,
    request.placement,
  );
  const whole =
    framing.frame.left === 0 &&
    framing.frame.top === 0 &&
    framing.frame.width === photo.width &&
    framing.frame.height === photo.height;
  const placed =
    whole && framing.size.width === photo.width && framing.size.height === photo.height
      ? layers
      : await reframe(layers, framing.frame, framing.size);
  limits.signal.throwIfAborted();

  const encoded = mask
    ? await encodeMaskImage(placed.alpha, { file: request.file, source })
    : await encodeImage(composite(placed, request.background), { format: request.format, file: request.file, source });
  return { ...encoded, uncertainty };
}
