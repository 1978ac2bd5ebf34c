import { Inject, Injectable } from '@nestjs/common';
import type { SourceImage } from '../../../core/image/source-image';
import { IMAGE_PROVIDER, type ImageProvider } from '../../../core/image-provider/image-provider';
import { ToolId } from '../../catalog/tools';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { NO_PROVIDER } from '../shared/failure-translation';
import { PROVIDER_LONG_SIDE } from '../../../core/image/provider-images';
import { ResultFrame, type FramedTool, type ResultContext } from '../shared/result-frame';
import { resultOutputOf, type ToolOutput, type ToolRunner, type TypedToolTask } from '../tool-runner';
import { runGeneration } from './generation-pipeline';
import { generationRequestOf, type GenerationRequest } from './generative-request';

/**
 * The provider's image decoded and the result: a generated image is at most a few megapixels,
 * and a reference image, sent no larger than PROVIDER_LONG_SIDE, fits in the same share.
 */
const GENERATION_PIXELS = 2 * PROVIDER_LONG_SIDE * PROVIDER_LONG_SIDE;

type GenerationWork = GenerationRequest & { provider: ImageProvider };

/**
 * Live `image_generation`: the provider paints from the prompt, guided by the result's reference
 * image when the job has any (one result per reference and variant); an `aspect_ratio` is then
 * met exactly by cropping the centre, since a generated image has no subject of the client's to
 * keep. In the result frame:
 *
 * 1. the request, refused before any download without a provider;
 * 2. the reference image, when the result has one; its share of the budget: GENERATION_PIXELS;
 * 3. runGeneration's steps (see generation-pipeline.ts), ending with the image and thumbnail encoded.
 */
@Injectable()
export class GenerationRunner implements ToolRunner, FramedTool<GenerationWork, SourceImage | null> {
  constructor(
    @Inject(IMAGE_PROVIDER) private readonly provider: ImageProvider | null,
    private readonly frame: ResultFrame,
  ) {}

  run(task: TypedToolTask, signal: AbortSignal): Promise<ToolOutput> {
    return this.frame.runWithOptionalSource(task, signal, this);
  }

  request(task: TypedToolTask): GenerationWork {
    const provider = this.provider;
    if (!provider) throw new ResultFailure(ResultErrorCode.ProcessingFailed, `This generation ${NO_PROVIDER}.`);
    if (task.tool !== ToolId.ImageGeneration) {
      throw new ResultFailure(
        ResultErrorCode.ProcessingFailed,
        `The ${task.tool} tool does not run on the generation pipeline.`,
      );
    }
    return { ...generationRequestOf(task.options), provider };
  }

  pixels(): number {
    return GENERATION_PIXELS;
  }

  pipeline({ task, source, request, limits }: ResultContext<GenerationWork, SourceImage | null>) {
    return runGeneration(source, request, request.provider, limits, resultOutputOf(task));
  }
}
