import { Inject, Injectable } from '@nestjs/common';
import { planGeometry } from '../../../core/image/geometry';
import type { SourceImage } from '../../../core/image/source-image';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import { ToolId } from '../../catalog/tools';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { CUTOUT_LAYERS } from '../shared/cut-out';
import { NO_SEGMENTER } from '../shared/failure-translation';
import { ResultFrame, type FramedTool, type ResultContext } from '../shared/result-frame';
import type { ToolOutput, ToolRunner, TypedToolTask } from '../tool-runner';
import { runEdit } from './edit-pipeline';
import { editRequestOf, type EditRequest } from './edit-request';

/**
 * Live `image_editing` (and `product_photo_enhance` on a preset that keeps the photo's
 * background), in the result frame:
 *
 * 1. the request, refused before the download when it needs a segmenter this deployment lacks;
 * 2. the source; its share of the budget: the larger of the source and the planned size (times
 *    CUTOUT_LAYERS when the subject is cut out);
 * 3. runEdit's steps (see edit-pipeline.ts), ending with the image and thumbnail encoded.
 */
@Injectable()
export class ImageEditingRunner implements ToolRunner, FramedTool<EditRequest> {
  constructor(
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    private readonly frame: ResultFrame,
  ) {}

  run(task: TypedToolTask, signal: AbortSignal): Promise<ToolOutput> {
    return this.frame.run(task, signal, this);
  }

  request(task: TypedToolTask): EditRequest {
    if (task.tool !== ToolId.ImageEditing) {
      throw new ResultFailure(
        ResultErrorCode.ProcessingFailed,
        `The ${task.tool} tool does not run on the image editing pipeline.`,
      );
    }
    const request = editRequestOf(task);
    if (request.unsupported) throw new ResultFailure(ResultErrorCode.ProcessingFailed, request.unsupported);
    if (request.cutout && !this.segmenter) {
      throw new ResultFailure(
        ResultErrorCode.ProcessingFailed,
        `The ${describeCutout(request.cutout)} ${NO_SEGMENTER}.`,
      );
    }
    return request;
  }

  pixels(source: SourceImage, request: EditRequest): number {
    const { scaled } = planGeometry(source, request.resize);
    const pixels = scaled.width * scaled.height;
    return Math.max(source.width * source.height, request.cutout ? pixels * CUTOUT_LAYERS : pixels);
  }

  pipeline({ source, request, limits }: ResultContext<EditRequest>) {
    return runEdit(source, request, limits, this.segmenter);
  }
}

function describeCutout(cutout: { background: unknown; shadow: { kind: string } }): string {
  return cutout.background === 'original' ? `${cutout.shadow.kind} shadow` : 'background operation';
}
