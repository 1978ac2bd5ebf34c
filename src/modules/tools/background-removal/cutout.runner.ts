import { Inject, Injectable } from '@nestjs/common';
import type { SourceImage } from '../../../core/image/source-image';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import { ToolId } from '../../catalog/tools';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { canvasPixels } from '../shared/canvas-placement';
import { CUTOUT_LAYERS } from '../shared/cut-out';
import { NO_SEGMENTER } from '../shared/failure-translation';
import { SourceLoader } from '../shared/source-loader';
import type { FramedTool, PipelineOf, PreparedRequest, TaskOf } from '../shared/result-frame';
import { CUTOUT_PIPELINE, cutoutPlan, type CutoutDependencies, type CutoutWork } from './cutout-pipeline';
import { cutoutRequestOf, type CutoutRequest } from './cutout-request';

/** remove_background, and the product photo operations labelled image editing that cut the product out. */
type CutoutTool = ToolId.RemoveBackground | ToolId.ImageEditing;

/**
 * Live cut-outs: `remove_background` itself, and the product photo operations that cut the
 * product out (`studio_packshot`, `marketplace_clean`, `product_photo_enhance` on a white or
 * transparent preset), in the result frame:
 *
 * 1. the request, refused before the download on a deployment without a segmenter (unless the
 *    source is its own mask, `existing_alpha` `use`);
 * 2. the source; its share of the budget: the cut-out's size times CUTOUT_LAYERS (one more with a
 *    background photo or blur), and a placement's canvas;
 * 3. CUTOUT_STEPS (see cutout-pipeline.ts), ending with the image and thumbnail encoded.
 */
@Injectable()
export class CutoutRunner implements FramedTool<CutoutTool, CutoutRequest, CutoutDependencies, CutoutWork> {
  readonly runs: PipelineOf<CutoutTool> = { name: 'cut-out', tools: [ToolId.RemoveBackground, ToolId.ImageEditing] };
  readonly pipeline = CUTOUT_PIPELINE;

  constructor(
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    private readonly sources: SourceLoader,
  ) {}

  prepare(task: TaskOf<CutoutTool>): PreparedRequest<CutoutRequest, CutoutDependencies> {
    const cutout = cutoutRequestOf(task);
    if (!cutout)
      throw new ResultFailure(ResultErrorCode.ProcessingFailed, 'This operation does not cut the product out.');
    // A source that is its own mask needs no segmenter.
    if (!this.segmenter && !cutout.existingAlpha) {
      throw new ResultFailure(ResultErrorCode.ProcessingFailed, `This result ${NO_SEGMENTER}.`);
    }
    const backdrops = (url: string, signal: AbortSignal) => this.sources.loadBackdrop(task, url, signal);
    return { request: cutout, dependencies: { segmenter: this.segmenter, backdrops } };
  }

  /** A background photo or blur is one layer more; a placement's canvas holds its own. */
  pixels(source: SourceImage, request: CutoutRequest): number {
    const { scaled } = cutoutPlan(source);
    const layers = CUTOUT_LAYERS + (request.backdrop ? 1 : 0);
    return scaled.width * scaled.height * layers + canvasPixels(request.placement, scaled, request.backdrop !== null);
  }
}
