import type { GeometryPlan } from '../../../core/image/geometry';
import type { WindowPosition } from '../../../engine/interesting-region';
import type { Cutout, SubjectHints } from '../../../engine/mask/subject-hints';
import { backgroundFor, decodeScaled, type Rgba } from '../../../core/image/pipeline-steps';
import type { RawImage } from '../../../core/image/raw-image';
import type { Segmenter } from '../../../core/segmentation/segmenter';
import type { ModelScale, Upscaler } from '../../../core/super-resolution/upscaler';
import { SourceImageError, SourceImageProblem, type SourceImage } from '../../../core/image/source-image';
import { encodeImage, type EncodedImage } from '../shared/encoding';
import type { PipelineLimits } from '../shared/pipeline-limits';
import { hintsInPart, visiblePart } from './edit-hints';
import { planEdit } from './edit-plan';
import { sharpeningOf, type EditCutout, type EditRequest } from './edit-request';
import { superResolved } from './super-resolved';

/** libvips' reason, without the file paths or internals some of its messages carry. */
const describe = (error: unknown) =>
  error instanceof Error ? error.message.split('\n')[0].slice(0, 200) : 'unknown error';

/**
 * The structured edit of one result, in one fixed order of small steps:
 *
 * 1. decode, orient, sRGB, and one resample to the planned size (shrink-on-load where smaller);
 *    when `upscale` enlarges, the source is decoded at its own size, enlarged x2 or x4 by the
 *    super-resolution model (tile by tile, stopping between tiles when the result is cancelled or
 *    out of time), then resampled once to the planned size: the model runs before the crop, on
 *    the whole source, and its output counts in the result's pixel budget (see planEdit);
 * 2. `crop`: cut the window at the most interesting place (the variant picks which one);
 * 3. `background`: the subject's mask, from the pixels as photographed (the client's hints moved
 *    onto the part of the source they show);
 * 4. `polish`: noise and JPEG blocking taken out, at the strength measured on these pixels,
 *    before any curve stretches the noise unevenly (a lift of dark tones would amplify it there
 *    alone) or moves the block means off the JPEG's lattice;
 * 5. `light` and `color`: white balance and exposure measured on the pixels about to be written,
 *    applied in one pass in linear light;
 * 6. colour saturation, sharpening after `polish` or after an enlargement by resampling alone
 *    (the model's output is not sharpened again);
 * 7. `background` and `shadow`: the subject over its new background and shadow;
 * 8. `contain`: pad to the box with the chosen background; encode; the thumbnail from the same pixels.
 *
 * Every geometric decision is made from the source's header, before decoding.
 */
export async function runEdit(
  source: SourceImage,
  request: EditRequest,
  limits: PipelineLimits,
  /** Cuts the subject out for the `background` operation; only a request with a cut-out needs one. */
  segmenter: Segmenter | null = null,
  /** Enlarges for `upscale`; only a request that enlarges with `upscale` needs one. */
  upscaler: Upscaler | null = null,
): Promise<EncodedImage> {
  const { geometry: plan, modelScale } = planEdit(source, request, limits.maxPixels);
  let working = await decodeScaled(source, modelScale ? atOwnSize(source) : plan, {
    maxPixels: limits.maxPixels,
    // A cut-out starts from opaque pixels, as the segmentation model was trained on.
    flattenOnto: request.format === 'jpg' || request.cutout ? backgroundFor('jpg') : null,
    timeoutSeconds: limits.timeoutSeconds,
  }).catch((error: unknown) => {
    limits.signal?.throwIfAborted();
    // The header was read, so the pixels themselves are damaged or in a variant without a decoder here.
    throw new SourceImageError(
      SourceImageProblem.NotImage,
      `The source image could not be decoded (${describe(error)}).`,
    );
  });
  limits.signal?.throwIfAborted();
  if (modelScale) working = await enlarged(working, plan, modelScale, upscaler, limits);

  let window: WindowPosition | null = null;
  if (plan.window) {
    const crop = await limits.engine.run(
      'interestingCrop',
      [working, plan.window, request.variant.cropRank],
      [working],
    );
    ({ image: working, window } = crop);
  }

  const cutout = request.cutout
    ? await segmented(working, hintsInPart(request.cutout.hints, visiblePart(source, plan, window)), segmenter, limits)
    : null;

  limits.signal?.throwIfAborted();
  const corrections = {
    polish: request.polish,
    tone: {
      light: request.light,
      color: request.color,
      brightnessOffset: request.variant.brightnessOffset,
      saturationOffset: request.variant.saturationOffset,
    },
    sharpen: sharpeningOf(request, modelScale ? 1 : plan.scaled.width / source.width),
  };
  if (corrections.polish || request.light || request.color || corrections.sharpen) {
    working = await limits.engine.run('correctedPixels', [working, corrections, limits.timeoutSeconds], [working]);
  }

  limits.signal?.throwIfAborted();
  const padding = request.cutout ? paddingFor(request.cutout, request.format) : backgroundFor(request.format);
  if (request.cutout && cutout) {
    working = await limits.engine.run(
      'replacedBackground',
      [working, cutout.mask, request.cutout],
      [working, cutout.mask],
    );
  }

  limits.signal?.throwIfAborted();
  const encoded = await encodeImage(
    working,
    { format: request.format, file: request.file, source },
    plan.canvas,
    padding,
  );
  return { ...encoded, uncertainty: cutout?.uncertainty };
}

/** The source decoded as it is: the super-resolution model enlarges it before any resample. */
function atOwnSize(source: SourceImage): GeometryPlan {
  return { scaled: { width: source.width, height: source.height }, mode: 'scale', window: null, canvas: null };
}

async function enlarged(
  image: RawImage,
  plan: GeometryPlan,
  scale: ModelScale,
  upscaler: Upscaler | null,
  limits: PipelineLimits,
): Promise<RawImage> {
  if (!upscaler || !limits.signal) throw new Error('An upscale needs an upscaler and a signal');
  return superResolved(image, plan, scale, upscaler, {
    signal: limits.signal,
    timeoutSeconds: limits.timeoutSeconds,
    engine: limits.engine,
  });
}

async function segmented(
  image: RawImage,
  hints: SubjectHints,
  segmenter: Segmenter | null,
  limits: PipelineLimits,
): Promise<Cutout> {
  if (!segmenter || !limits.signal) throw new Error('A background operation needs a segmenter and a signal');
  const cutout = await segmenter.segment(image, limits.signal, hints);
  limits.signal.throwIfAborted();
  return cutout;
}

/** What `contain` pads with: the new background (transparent where it is), else the format's default. */
function paddingFor(cutout: EditCutout, format: EditRequest['format']): Rgba {
  if (cutout.background === 'original') return backgroundFor(format);
  return cutout.background ?? backgroundFor(format);
}
