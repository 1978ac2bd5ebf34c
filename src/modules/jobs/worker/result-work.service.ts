import { Injectable, Logger } from '@nestjs/common';
import { ImageService } from '../../../core/image/image.service';
import { ResultStorage } from '../../../core/storage/result-storage';
import { ResultFailure, type OutputFormat } from '../../tools/tool-runner';
import { ToolRunners } from '../../tools/tool-runners';
import { JobLifecycleService } from '../job-lifecycle.service';
import { ResultErrorCode } from '../job-status';

const CONTENT_TYPES: Record<OutputFormat, string> = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

/** BullMQ's reason for a job whose worker stopped renewing its lock too many times. */
const STALLED_REASON = /stalled/i;

export function resultFileKeys(jobId: string, resultId: string, format: OutputFormat) {
  return {
    resultKey: `results/${jobId}/${resultId}.${format}`,
    thumbnailKey: `results/${jobId}/${resultId}.thumb.webp`,
  };
}

/**
 * One result's work: run the tool, store the image and its thumbnail, settle. Errors are
 * thrown so BullMQ retries; the result is failed only once its last attempt has failed.
 */
@Injectable()
export class ResultWorkService {
  private readonly logger = new Logger(ResultWorkService.name);

  constructor(
    private readonly lifecycle: JobLifecycleService,
    private readonly tools: ToolRunners,
    private readonly images: ImageService,
    private readonly storage: ResultStorage,
  ) {}

  async perform(resultId: string): Promise<void> {
    const task = await this.lifecycle.start(resultId);
    if (!task) return;
    const runner = this.tools.runnerFor(task.tool, task.sandbox);
    if (!runner) {
      throw new ResultFailure(ResultErrorCode.ProviderError, `No ${task.tool} pipeline is configured on this worker.`);
    }
    const output = await runner.run(task);
    const thumbnail = await this.images.thumbnail(output.image);
    const keys = resultFileKeys(task.jobId, task.resultId, output.format);
    await this.storage.put(keys.resultKey, output.image, CONTENT_TYPES[output.format]);
    await this.storage.put(keys.thumbnailKey, thumbnail, 'image/webp');
    await this.lifecycle.complete(resultId, keys);
  }

  /** Settles a result whose work will not be retried, releasing its credits. */
  async settleFailure(resultId: string, error: unknown): Promise<void> {
    const { code, message } = this.describeFailure(error);
    const settled = await this.lifecycle.fail(resultId, code, message);
    if (settled) this.logger.warn({ result_id: resultId, code, err: error }, 'result failed');
  }

  private describeFailure(error: unknown): { code: ResultErrorCode; message: string } {
    if (error instanceof ResultFailure) return { code: error.code, message: error.message };
    const reason = error instanceof Error ? error.message : String(error);
    if (STALLED_REASON.test(reason)) {
      return { code: ResultErrorCode.Timeout, message: 'The result did not finish in time and was given up.' };
    }
    return { code: ResultErrorCode.ProcessingFailed, message: 'Processing failed after every retry.' };
  }
}
