import { planGeometry } from '../../../core/image/geometry';
import { interestingWindows } from '../../../core/image/interesting-region';
import {
  applyFilters,
  backgroundFor,
  cutWindow,
  decodeScaled,
  encode,
  encodeThumbnail,
  hasFilters,
} from '../../../core/image/pipeline-steps';
import { SourceImageError, SourceImageProblem, type SourceImage } from '../../../core/image/source-image';
import { analyseTone, applyCurves } from '../../../core/image/tone';
import { sharpeningOf, type EditRequest } from './edit-request';

/** libvips' reason, without the file paths or internals some of its messages carry. */
const describe = (error: unknown) => (error instanceof Error ? error.message.split('\n')[0].slice(0, 200) : 'unknown error');

export interface PipelineLimits {
  maxPixels: number;
  /** libvips' own deadline for each pipeline; the worker's time limit covers the whole result. */
  timeoutSeconds: number;
  signal?: AbortSignal;
}

export interface EditedImage {
  image: Buffer;
  thumbnail: Buffer;
}

/**
 * The structured edit of one result, in one fixed order of small steps:
 *
 * 1. decode, orient, sRGB, and one resample to the planned size (shrink-on-load where smaller);
 * 2. `crop`: cut the window at the most interesting place (the variant picks which one);
 * 3. `light` and `color`: curves measured on the pixels about to be written;
 * 4. `polish` (denoise), colour saturation, sharpening after `polish` or `upscale`;
 * 5. `contain`: pad to the box; encode; the thumbnail from the same pixels.
 *
 * Every geometric decision is made from the source's header, before decoding.
 */
export async function runEdit(source: SourceImage, request: EditRequest, limits: PipelineLimits): Promise<EditedImage> {
  const plan = planGeometry(source, request.resize);
  let working = await decodeScaled(source, plan, {
    maxPixels: limits.maxPixels,
    flattenOnto: request.format === 'jpg' ? backgroundFor('jpg') : null,
    timeoutSeconds: limits.timeoutSeconds,
  }).catch((error: unknown) => {
    limits.signal?.throwIfAborted();
    // The header was read, so the pixels themselves are damaged or in a variant without a decoder here.
    throw new SourceImageError(SourceImageProblem.NotImage, `The source image could not be decoded (${describe(error)}).`);
  });
  limits.signal?.throwIfAborted();

  if (plan.window) {
    const windows = interestingWindows(working, plan.window, request.variant.cropRank + 1);
    working = cutWindow(working, windows[Math.min(request.variant.cropRank, windows.length - 1)], plan.window);
  }

  const tone = analyseTone(working, {
    light: request.light,
    color: request.color,
    brightnessOffset: request.variant.brightnessOffset,
    saturationOffset: request.variant.saturationOffset,
  });
  if (tone.curves) applyCurves(working, tone.curves);

  const filters = {
    denoise: request.polish,
    saturation: tone.saturation,
    sharpen: sharpeningOf(request, plan.scaled.width / source.width),
  };
  if (hasFilters(filters)) {
    limits.signal?.throwIfAborted();
    working = await applyFilters(working, filters, limits.timeoutSeconds);
  }

  limits.signal?.throwIfAborted();
  const [image, thumbnail] = await Promise.all([
    encode(working, request.format, plan.canvas),
    encodeThumbnail(working, request.format, plan.canvas),
  ]);
  return { image, thumbnail };
}
