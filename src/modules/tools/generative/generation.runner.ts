import { Inject, Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { canvasWithin, shapeFor } from '../../../core/image/aspect-ratio';
import { PixelBudget } from '../../../core/image/pixel-budget';
import type { Size } from '../../../core/image/raw-image';
import { IMAGE_PROVIDER, ImageProviderError, type ImageProvider } from '../../../core/image-provider/image-provider';
import { ResultErrorCode } from '../../jobs/job-status';
import { decodePhoto } from '../background-removal/cutout-pipeline';
import { resultLimits } from '../image-editing/edit-pipeline';
import { asResultFailure } from '../sources/source-failures';
import { SourceLoader } from '../sources/source-loader';
import { ResultFailure, type ToolOutput, type ToolRunner, type ToolTask } from '../tool-runner';
import type { ToolAvailability } from '../tool-runners';
import { generationRequestOf } from './generative-request';
import { encodedResult, photoPlan } from './generative-steps';
import { asProviderFailure, NO_PROVIDER } from './provider-failures';
import { coverTo, PROVIDER_LONG_SIDE, providerPng } from './provider-images';

/** The provider's image decoded and the result: a generated image is at most a few megapixels. */
const GENERATION_PIXELS = 2 * PROVIDER_LONG_SIDE * PROVIDER_LONG_SIDE;

/**
 * Live `image_generation`: the provider paints from the prompt, guided by the result's reference
 * image when the job has any (one result per reference and variant); an `aspect_ratio` is then
 * met exactly by cropping the centre, since a generated image has no subject of the client's to keep.
 */
@Injectable()
export class GenerationRunner implements ToolRunner {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(IMAGE_PROVIDER) private readonly provider: ImageProvider | null,
    private readonly sources: SourceLoader,
    private readonly budget: PixelBudget,
  ) {}

  get availability(): ToolAvailability {
    return this.provider
      ? { available: true, mode: this.provider.description }
      : { available: false, reason: 'needs an image provider (IMAGE_PROVIDER)' };
  }

  async run(task: ToolTask, signal: AbortSignal): Promise<ToolOutput> {
    const provider = this.provider;
    if (!provider) throw new ResultFailure(ResultErrorCode.ProcessingFailed, `This generation ${NO_PROVIDER}.`);
    const request = generationRequestOf(task);
    const references = task.sourceImageUrl ? [await this.reference(task, signal)] : [];
    const shape = request.ratio ? shapeFor(request.ratio) : 'square';
    const image = await this.budget
      .run(GENERATION_PIXELS, async () => {
        const painted = await provider.generate({ prompt: request.prompt, references, shape }, signal);
        const size = await paintedSize(painted);
        return coverTo(painted, request.ratio ? canvasWithin(size, request.ratio) : size);
      })
      .catch((error: unknown) => {
        throw asProviderFailure(error);
      });
    return encodedResult(image, task.format);
  }

  /** The result's reference image, downloaded safely and sent as PNG no larger than the provider paints. */
  private async reference(task: ToolTask, signal: AbortSignal): Promise<Buffer> {
    const source = await this.sources.load(task, signal);
    const plan = photoPlan(source, PROVIDER_LONG_SIDE);
    const limits = resultLimits(this.config, signal);
    return this.budget
      .run(plan.scaled.width * plan.scaled.height, async () => providerPng(await decodePhoto(source, plan, limits)))
      .catch((error: unknown) => {
        throw asResultFailure(error);
      });
  }
}

/** The painted image's upright size; what is not an image is the provider's failure. */
async function paintedSize(painted: Buffer): Promise<Size> {
  const meta = await sharp(painted).metadata().catch(() => null);
  if (!meta?.width || !meta.height) throw new ImageProviderError('provider_error', 'The image provider returned something that is not an image.');
  const turned = (meta.orientation ?? 1) >= 5;
  return turned ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
}
