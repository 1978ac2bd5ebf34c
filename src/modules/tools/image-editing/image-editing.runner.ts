import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { planGeometry } from '../../../core/image/geometry';
import { PixelBudget } from '../../../core/image/pixel-budget';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import { ResultErrorCode } from '../../jobs/job-status';
import { CUTOUT_LAYERS } from '../background-removal/cutout-pipeline';
import { CutoutRunner } from '../background-removal/cutout.runner';
import { productPhotoCutout } from '../background-removal/cutout-request';
import { asSegmentationFailure, NO_SEGMENTER } from '../background-removal/segmentation-failures';
import { asResultFailure } from '../sources/source-failures';
import { SourceLoader } from '../sources/source-loader';
import { ResultFailure, type ToolOutput, type ToolRunner, type ToolTask } from '../tool-runner';
import { resultLimits, runEdit } from './edit-pipeline';
import { editRequestOf } from './edit-request';

/**
 * Live `image_editing`: the source downloaded, edited by the pipeline, encoded with its
 * thumbnail. Product photo operations that cut the product out (`studio_packshot`,
 * `marketplace_clean`, `product_photo_enhance` on a white preset) go to the cut-out pipeline.
 */
@Injectable()
export class ImageEditingRunner implements ToolRunner {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    private readonly sources: SourceLoader,
    private readonly budget: PixelBudget,
    private readonly cutouts: CutoutRunner,
  ) {}

  async run(task: ToolTask, signal: AbortSignal): Promise<ToolOutput> {
    const productCutout =
      typeof task.options.operation === 'string' ? productPhotoCutout(task.options, task.format, task.subjectHints) : null;
    if (productCutout) return this.cutouts.cut(task, productCutout, signal);
    const request = editRequestOf(task);
    // Refused before the download: nothing about the source could change the answer.
    if (request.unsupported) throw new ResultFailure(ResultErrorCode.ProcessingFailed, request.unsupported);
    if (request.cutout && !this.segmenter) {
      throw new ResultFailure(ResultErrorCode.ProcessingFailed, `The ${describeCutout(request.cutout)} ${NO_SEGMENTER}.`);
    }
    const source = await this.sources.load(task, signal);
    const plan = planGeometry(source, request.resize);
    const scaled = plan.scaled.width * plan.scaled.height;
    const pixels = Math.max(source.width * source.height, request.cutout ? scaled * CUTOUT_LAYERS : scaled);
    const edited = await this.budget
      .run(pixels, () => {
        signal.throwIfAborted();
        return runEdit(source, request, { ...resultLimits(this.config, signal), segmenter: this.segmenter });
      })
      .catch((error: unknown) => {
        throw asSegmentationFailure(asResultFailure(error));
      });
    return { image: edited.image, thumbnail: edited.thumbnail, format: request.format, uncertainty: edited.uncertainty };
  }
}

function describeCutout(cutout: { background: unknown; shadow: { kind: string } }): string {
  return cutout.background === 'original' ? `${cutout.shadow.kind} shadow` : 'background operation';
}
