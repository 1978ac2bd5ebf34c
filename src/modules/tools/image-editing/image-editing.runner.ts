import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import type { SourceImage } from '../../../core/image/source-image';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import { UPSCALER, type Upscaler } from '../../../core/super-resolution/upscaler';
import { ToolId } from '../../catalog/tools';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { canvasPixels } from '../shared/canvas-placement';
import { CUTOUT_LAYERS } from '../shared/cut-out';
import { NO_SEGMENTER, NO_UPSCALER } from '../shared/failure-translation';
import { SourceLoader } from '../shared/source-loader';
import type { FramedTool, PipelineOf, PreparedRequest, TaskOf } from '../shared/result-frame';
import { EDIT_PIPELINE, type EditDependencies, type EditWork } from './edit-pipeline';
import { planEdit } from './edit-plan';
import { editRequestOf, type EditRequest } from './edit-request';

/**
 * Live `image_editing` (and `product_photo_enhance` on a preset that keeps the photo's
 * background), in the result frame:
 *
 * 1. the request, refused before the download when it needs a segmenter or an upscaler this
 *    deployment lacks;
 * 2. the source; an `upscale` whose result would pass the result limits fails here, from the
 *    source's size (see planEdit); its share of the budget: the larger of the source and the
 *    planned size (times CUTOUT_LAYERS when the subject is cut out, plus a placement's canvas), or,
 *    when the model enlarges, the source, the model's output and the planned size together, which
 *    are held at once;
 * 3. EDIT_STEPS (see edit-pipeline.ts), ending with the image and thumbnail encoded.
 */
@Injectable()
export class ImageEditingRunner implements FramedTool<ToolId.ImageEditing, EditRequest, EditDependencies, EditWork> {
  readonly runs: PipelineOf<ToolId.ImageEditing> = { name: 'image editing', tools: [ToolId.ImageEditing] };
  readonly pipeline = EDIT_PIPELINE;
  private readonly maxPixels: number;

  constructor(
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    @Inject(UPSCALER) private readonly upscaler: Upscaler | null,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'SOURCE_MAX_MEGAPIXELS'>,
    private readonly sources: SourceLoader,
  ) {
    this.maxPixels = config.SOURCE_MAX_MEGAPIXELS * 1_000_000;
  }

  prepare(task: TaskOf<ToolId.ImageEditing>): PreparedRequest<EditRequest, EditDependencies> {
    const request = editRequestOf(task);
    if (request.unsupported) throw new ResultFailure(ResultErrorCode.ProcessingFailed, request.unsupported);
    // A source that is its own mask needs no segmenter.
    if (request.cutout && !request.cutout.existingAlpha && !this.segmenter) {
      throw new ResultFailure(
        ResultErrorCode.ProcessingFailed,
        `The ${describeCutout(request.cutout)} ${NO_SEGMENTER}.`,
      );
    }
    if (request.resize.upscale && !this.upscaler) {
      throw new ResultFailure(ResultErrorCode.ProcessingFailed, `The upscale ${NO_UPSCALER}.`);
    }
    const backdrops = (url: string, signal: AbortSignal) => this.sources.loadBackdrop(task, url, signal);
    return { request, dependencies: { segmenter: this.segmenter, upscaler: this.upscaler, backdrops } };
  }

  pixels(source: SourceImage, request: EditRequest): number {
    const { geometry, modelScale } = planEdit(source, request, this.maxPixels);
    const sourcePixels = source.width * source.height;
    const pixels = geometry.scaled.width * geometry.scaled.height;
    const enlarging = modelScale ? sourcePixels * (1 + modelScale * modelScale) + pixels : 0;
    const cutoutLayers = CUTOUT_LAYERS + (request.cutout?.backdrop ? 1 : 0);
    const placed = canvasPixels(request.cutout?.placement ?? null, geometry.scaled, Boolean(request.cutout?.backdrop));
    return Math.max(sourcePixels, request.cutout ? pixels * cutoutLayers + placed : pixels, enlarging);
  }
}

function describeCutout(cutout: { background: unknown; shadow: { kind: string } }): string {
  return cutout.background === 'original' ? `${cutout.shadow.kind} shadow` : 'background operation';
}
