import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { planGeometry } from '../../../core/image/geometry';
import { PixelBudget } from '../../../core/image/pixel-budget';
import { ResultErrorCode } from '../../jobs/job-status';
import { asResultFailure } from '../sources/source-failures';
import { SourceLoader } from '../sources/source-loader';
import { ResultFailure, type ToolOutput, type ToolRunner, type ToolTask } from '../tool-runner';
import { runEdit } from './edit-pipeline';
import { editRequestOf } from './edit-request';

/** Live `image_editing`: the source downloaded, edited by the pipeline, encoded with its thumbnail. */
@Injectable()
export class ImageEditingRunner implements ToolRunner {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sources: SourceLoader,
    private readonly budget: PixelBudget,
  ) {}

  async run(task: ToolTask, signal: AbortSignal): Promise<ToolOutput> {
    const request = editRequestOf(task);
    // Refused before the download: nothing about the source could change the answer.
    if (request.unsupported) throw new ResultFailure(ResultErrorCode.ProcessingFailed, request.unsupported);
    const source = await this.sources.load(task, signal);
    const plan = planGeometry(source, request.resize);
    const pixels = Math.max(source.width * source.height, plan.scaled.width * plan.scaled.height);
    const edited = await this.budget
      .run(pixels, () => {
        signal.throwIfAborted();
        return runEdit(source, request, {
          maxPixels: this.config.SOURCE_MAX_MEGAPIXELS * 1_000_000,
          timeoutSeconds: this.config.RESULT_TIMEOUT_SECONDS,
          signal,
        });
      })
      .catch((error: unknown) => {
        throw asResultFailure(error);
      });
    return { image: edited.image, thumbnail: edited.thumbnail, format: request.format };
  }
}
