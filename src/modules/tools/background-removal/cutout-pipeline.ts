import { WHITE } from '../../../core/image/compose/colour';
import { composite } from '../../../core/image/compose/composite';
import { reframe, type CutoutLayers } from '../../../core/image/compose/cutout-layers';
import { planFrame, union } from '../../../core/image/compose/framing';
import { drawShadow } from '../../../core/image/compose/shadow';
import { planGeometry, type GeometryPlan } from '../../../core/image/geometry';
import { subjectBounds, type AlphaMask } from '../../../core/image/mask/alpha-mask';
import { decontaminate } from '../../../core/image/mask/decontaminate';
import {
  applyFilters,
  decodeScaled,
  encode,
  encodeMask,
  encodeMaskThumbnail,
  encodeThumbnail,
  hasFilters,
} from '../../../core/image/pipeline-steps';
import type { RawImage, Size } from '../../../core/image/raw-image';
import { SourceImageError, SourceImageProblem, type SourceImage } from '../../../core/image/source-image';
import { analyseTone, applyCurves } from '../../../core/image/tone';
import type { Segmenter } from '../../../core/segmentation/segmenter';
import type { EditedImage, PipelineLimits } from '../image-editing/edit-pipeline';
import type { CutoutRequest } from './cutout-request';

/** Cut-outs are made at most this large; a larger source's result is scaled down to it (25 megapixels). */
export const CUTOUT_MAX_PIXELS = 25_000_000;

/**
 * A cut-out holds several full-size layers at once (the photo, its mask, the cleaned colours,
 * the shadow and the composite), so it takes this many shares of the pixel budget per pixel.
 */
export const CUTOUT_LAYERS = 4;

/** Shadow opacity below this does not count as part of the subject's frame. */
const SHADOW_FRAME_THRESHOLD = 8;

/** How a source is decoded for a cut-out: at its own size, or scaled down to CUTOUT_MAX_PIXELS. */
export function cutoutPlan(source: Size): GeometryPlan {
  const factor = Math.min(1, Math.sqrt(CUTOUT_MAX_PIXELS / (source.width * source.height)));
  return planGeometry(source, { width: Math.max(1, Math.floor(source.width * factor)), upscale: false });
}

/**
 * The product's own pixels corrected as asked: the same light, colour and polish steps as
 * `image_editing`, before the cut-out is composed, so the background is never corrected with it.
 */
async function corrected(image: RawImage, request: CutoutRequest, limits: PipelineLimits): Promise<RawImage> {
  const tone = analyseTone(image, { light: request.light, color: request.color, brightnessOffset: 0, saturationOffset: 0 });
  if (tone.curves) applyCurves(image, tone.curves);
  const filters = { denoise: request.polish, saturation: tone.saturation, sharpen: request.polish ? { sigma: 0.8, edgeGain: 1.5 } : null };
  return hasFilters(filters) ? applyFilters(image, filters, limits.timeoutSeconds) : image;
}

/** The subject cut out of the photo, its colours cleaned at soft edges, with its shadow. */
export async function cutOut(
  photo: RawImage,
  alpha: AlphaMask,
  request: Pick<CutoutRequest, 'shadow' | 'light' | 'color' | 'polish'>,
  limits: PipelineLimits,
): Promise<CutoutLayers> {
  const shadow = await drawShadow(alpha, request.shadow);
  limits.signal?.throwIfAborted();
  const colour = decontaminate(await corrected(photo, request as CutoutRequest, limits), alpha);
  return { colour, alpha, shadow };
}

/**
 * The photo a cut-out is made from, decoded at `plan`'s size with any transparency flattened
 * onto white, which is what the model was trained on.
 */
export function decodePhoto(source: SourceImage, plan: GeometryPlan, limits: PipelineLimits & { signal: AbortSignal }): Promise<RawImage> {
  return decodeScaled(source, plan, { maxPixels: limits.maxPixels, flattenOnto: WHITE, timeoutSeconds: limits.timeoutSeconds }).catch(
    (error: unknown) => {
      limits.signal.throwIfAborted();
      throw new SourceImageError(SourceImageProblem.NotImage, `The source image could not be decoded (${String(error).slice(0, 200)}).`);
    },
  );
}

/** A cut-out result with how unsure the segmenter was of its mask (0 sure, 1 unsure). */
export interface CutoutImage extends EditedImage {
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
  const framing = planFrame(photo, request.placement.kind === 'crop' ? union(subject, shadow) : subject, request.placement);
  const whole = framing.frame.left === 0 && framing.frame.top === 0 && framing.frame.width === photo.width && framing.frame.height === photo.height;
  const placed = whole && framing.size.width === photo.width && framing.size.height === photo.height ? layers : await reframe(layers, framing.frame, framing.size);
  limits.signal.throwIfAborted();

  if (mask) {
    const [image, thumbnail] = await Promise.all([encodeMask(placed.alpha), encodeMaskThumbnail(placed.alpha)]);
    return { image, thumbnail, uncertainty };
  }
  const image = composite(placed, request.background);
  const [encoded, thumbnail] = await Promise.all([encode(image, request.format, null), encodeThumbnail(image, request.format, null)]);
  return { image: encoded, thumbnail, uncertainty };
}
