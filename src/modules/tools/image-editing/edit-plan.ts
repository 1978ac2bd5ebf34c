import { MAX_OUTPUT_SIDE, planGeometry, uncappedSize, type GeometryPlan } from '../../../core/image/geometry';
import type { Size } from '../../../engine/raw-image';
import type { ModelScale } from '../../../core/super-resolution/upscaler';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import type { EditRequest } from './edit-request';

/** What an edit does to the source's shape, and which super-resolution model enlarges it, if one does. */
export interface EditPlan {
  geometry: GeometryPlan;
  /** The model `upscale` runs before the one resample to the planned size; null when nothing is enlarged by it. */
  modelScale: ModelScale | null;
}

/**
 * How many times larger the planned image is than the source: the larger of the two ratios, since
 * `cover` enlarges by the larger and cuts the overflow.
 */
export function enlargementOf(source: Size, scaled: Size): number {
  return Math.max(scaled.width / source.width, scaled.height / source.height);
}

/**
 * The model for an enlargement `f`: none up to 1 (nothing to restore), x2 up to 2, x4 above. The
 * model's output is then resampled once (Lanczos) to the planned size: down by at most half from x2
 * or x4, or, above 4, up by the rest. The scale that just covers `f` is chosen because a model
 * restores what a factor asks for, and resampling its output down loses none of it, while a smaller
 * model would leave the rest to interpolation.
 */
export function modelScaleFor(enlargement: number): ModelScale | null {
  if (enlargement <= 1) return null;
  return enlargement <= 2 ? 2 : 4;
}

const megapixels = (pixels: number) => `${Math.round(pixels / 1e5) / 10} megapixels`;

/**
 * The edit's plan, decided from the source's size before anything is decoded. An `upscale` never
 * shrinks what it was asked for to fit the result limits: when only the source's size shows that
 * the result would pass them, the result fails with `source_too_large` (nothing is charged):
 *
 * - no side may pass MAX_OUTPUT_SIDE (a request without a box is otherwise capped there);
 * - neither the planned image nor the model's output may hold more than `maxPixels`
 *   (SOURCE_MAX_MEGAPIXELS, the cap on any decoded image a worker holds).
 *
 * A request with both sides states its result's size: when that alone passes `maxPixels`, create
 * refuses it with a 400 (see `upscaleSizeProblems` in the job request) and the worker never sees it.
 */
export function planEdit(source: Size, request: EditRequest, maxPixels: number): EditPlan {
  const geometry = planGeometry(source, request.resize);
  if (!request.resize.upscale) return { geometry, modelScale: null };

  const asked = uncappedSize(source, request.resize);
  const what = `Upscaling this ${source.width} x ${source.height} source`;
  if (asked && Math.max(asked.width, asked.height) > MAX_OUTPUT_SIDE) {
    throw new ResultFailure(
      ResultErrorCode.SourceTooLarge,
      `${what} would make a ${asked.width} x ${asked.height} image; results are at most ${MAX_OUTPUT_SIDE} ` +
        `pixels a side. Send a smaller source, or ask for a smaller size.`,
    );
  }
  const modelScale = modelScaleFor(enlargementOf(source, geometry.scaled));
  const planned = geometry.scaled.width * geometry.scaled.height;
  const modelOutput = modelScale ? source.width * source.height * modelScale * modelScale : 0;
  if (Math.max(planned, modelOutput) > maxPixels) {
    const held = planned >= modelOutput ? 'the enlarged image' : `the x${modelScale} model's output`;
    throw new ResultFailure(
      ResultErrorCode.SourceTooLarge,
      `${what} to ${geometry.scaled.width} x ${geometry.scaled.height} needs ${held} of ` +
        `${megapixels(Math.max(planned, modelOutput))}; at most ${megapixels(maxPixels)} are held at once. ` +
        `Send a smaller source, or ask for a smaller size.`,
    );
  }
  return { geometry, modelScale };
}
