import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { PixelBudget } from '../../../core/image/pixel-budget';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import { ResultErrorCode } from '../../jobs/job-status';
import { resultLimits } from '../image-editing/edit-pipeline';
import { asResultFailure } from '../sources/source-failures';
import { SourceLoader } from '../sources/source-loader';
import { ResultFailure, type ToolOutput, type ToolRunner, type ToolTask } from '../tool-runner';
import type { ToolAvailability } from '../tool-runners';
import { CUTOUT_LAYERS, cutoutPlan, runCutout } from './cutout-pipeline';
import { cutoutRequestOf, type CutoutRequest } from './cutout-request';
import { asSegmentationFailure, NO_SEGMENTER } from './segmentation-failures';

/**
 * Live cut-outs: `remove_background` itself, and the product photo operations that cut the
 * product out (run on the `image_editing` tool through `cut`).
 */
@Injectable()
export class CutoutRunner implements ToolRunner {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    private readonly sources: SourceLoader,
    private readonly budget: PixelBudget,
  ) {}

  get availability(): ToolAvailability {
    return this.segmenter ? { available: true } : { available: false, reason: 'needs a segmenter (SEGMENTER is none)' };
  }

  run(task: ToolTask, signal: AbortSignal): Promise<ToolOutput> {
    const request = cutoutRequestOf(task);
    if (!request) throw new ResultFailure(ResultErrorCode.ProcessingFailed, 'This operation does not cut the product out.');
    return this.cut(task, request, signal);
  }

  async cut(task: ToolTask, request: CutoutRequest, signal: AbortSignal): Promise<ToolOutput> {
    const segmenter = this.segmenter;
    if (!segmenter) throw new ResultFailure(ResultErrorCode.ProcessingFailed, `This result ${NO_SEGMENTER}.`);
    const source = await this.sources.load(task, signal);
    const { scaled } = cutoutPlan(source);
    const edited = await this.budget
      .run(scaled.width * scaled.height * CUTOUT_LAYERS, () => {
        signal.throwIfAborted();
        return runCutout(source, request, segmenter, resultLimits(this.config, signal));
      })
      .catch((error: unknown) => {
        throw asSegmentationFailure(asResultFailure(error));
      });
    return { image: edited.image, thumbnail: edited.thumbnail, format: request.format, uncertainty: edited.uncertainty };
  }
}
