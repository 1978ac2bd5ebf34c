import { Inject, Injectable } from '@nestjs/common';
import type { SourceImage } from '../../../core/image/source-image';
import { IMAGE_PROVIDER, type ImageProvider } from '../../../core/image-provider/image-provider';
import { ToolId } from '../../catalog/tools';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { NO_PROVIDER } from '../shared/failure-translation';
import { PROVIDER_LONG_SIDE } from '../../../core/image/provider-images';
import type { FramedTool, PipelineOf, PreparedRequest, TaskOf } from '../shared/result-frame';
import { GENERATION_PIPELINE, type GenerationPainters, type GenerationWork } from './generation-pipeline';
import { generationRequestOf, type GenerationRequest } from './generative-request';

/**
 * The provider's image decoded and the result: a generated image is at most a few megapixels,
 * and a reference image, sent no larger than PROVIDER_LONG_SIDE, fits in the same share.
 */
const GENERATION_PIXELS = 2 * PROVIDER_LONG_SIDE * PROVIDER_LONG_SIDE;

/**
 * Live `image_generation`: the provider paints from the prompt, guided by the result's reference
 * image when the job has any (one result per reference and variant); an `aspect_ratio` is then
 * met exactly by cropping the centre, since a generated image has no subject of the client's to
 * keep. In the result frame:
 *
 * 1. the request, refused before any download without a provider;
 * 2. the reference image, when the result has one; its share of the budget: GENERATION_PIXELS;
 * 3. GENERATION_STEPS (see generation-pipeline.ts), ending with the image and thumbnail encoded.
 */
@Injectable()
export class GenerationRunner implements FramedTool<
  ToolId.ImageGeneration,
  GenerationRequest,
  GenerationPainters,
  GenerationWork,
  SourceImage | null
> {
  readonly runs: PipelineOf<ToolId.ImageGeneration> = { name: 'generation', tools: [ToolId.ImageGeneration] };
  readonly pipeline = GENERATION_PIPELINE;

  constructor(@Inject(IMAGE_PROVIDER) private readonly provider: ImageProvider | null) {}

  prepare(task: TaskOf<ToolId.ImageGeneration>): PreparedRequest<GenerationRequest, GenerationPainters> {
    const provider = this.provider;
    if (!provider) throw new ResultFailure(ResultErrorCode.ProcessingFailed, `This generation ${NO_PROVIDER}.`);
    return { request: generationRequestOf(task.options), dependencies: { provider } };
  }

  pixels(): number {
    return GENERATION_PIXELS;
  }
}
