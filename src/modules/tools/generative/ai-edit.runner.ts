import { Inject, Injectable } from '@nestjs/common';
import type { SourceImage } from '../../../core/image/source-image';
import { IMAGE_PROVIDER, type ImageProvider } from '../../../core/image-provider/image-provider';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import { ToolId } from '../../catalog/tools';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { NO_PROVIDER, NO_SEGMENTER } from '../shared/failure-translation';
import { photoPixels } from '../shared/photo-decoding';
import type { FramedTool, PipelineOf, PreparedRequest, TaskOf } from '../shared/result-frame';
import { AI_EDIT_PHOTO_LONG_SIDE, AI_EDIT_PIPELINE, type AiEditPainters, type AiEditWork } from './ai-edit-pipeline';
import { aiEditRequestOf, type AiEditRequest } from './generative-request';

/** The photo, its mask, the placed layers, the provider's image and the result. */
const EDIT_LAYERS = 5;

/**
 * Live `image_ai_edit`: the provider edits the photo from the prompt; the service fits its answer
 * to the exact aspect ratio asked for (extending the canvas around the subject, never cropping
 * the photo) and keeps as much of the product's own pixels as the preservation level promises.
 * In the result frame:
 *
 * 1. the request, refused before the download without a provider, or without a segmenter for
 *    `strict` and `balanced`;
 * 2. the source; its share of the budget: the photo at AI_EDIT_PHOTO_LONG_SIDE times EDIT_LAYERS;
 * 3. AI_EDIT_STEPS (see ai-edit-pipeline.ts), ending with the image and thumbnail encoded.
 */
@Injectable()
export class AiEditRunner implements FramedTool<ToolId.ImageAiEdit, AiEditRequest, AiEditPainters, AiEditWork> {
  readonly runs: PipelineOf<ToolId.ImageAiEdit> = { name: 'AI edit', tools: [ToolId.ImageAiEdit] };
  readonly pipeline = AI_EDIT_PIPELINE;

  constructor(
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    @Inject(IMAGE_PROVIDER) private readonly provider: ImageProvider | null,
  ) {}

  prepare(task: TaskOf<ToolId.ImageAiEdit>): PreparedRequest<AiEditRequest, AiEditPainters> {
    const provider = this.provider;
    if (!provider) throw new ResultFailure(ResultErrorCode.ProcessingFailed, `This edit ${NO_PROVIDER}.`);
    const request = aiEditRequestOf(task.options);
    const segmenter = request.preservation === 'creative' ? null : this.segmenter;
    if (request.preservation !== 'creative' && !segmenter) {
      throw new ResultFailure(
        ResultErrorCode.ProcessingFailed,
        `The ${request.preservation} preservation level ${NO_SEGMENTER}.`,
      );
    }
    return { request, dependencies: { provider, segmenter } };
  }

  pixels(source: SourceImage): number {
    return photoPixels(source, AI_EDIT_PHOTO_LONG_SIDE, EDIT_LAYERS);
  }
}
