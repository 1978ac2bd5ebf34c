import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { shapeFor } from '../../../core/image/aspect-ratio';
import { subjectBounds } from '../../../core/image/mask/alpha-mask';
import { PixelBudget } from '../../../core/image/pixel-budget';
import { IMAGE_PROVIDER, type ImageProvider } from '../../../core/image-provider/image-provider';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import { ResultErrorCode } from '../../jobs/job-status';
import { decodePhoto } from '../background-removal/cutout-pipeline';
import { NO_SEGMENTER } from '../background-removal/segmentation-failures';
import { resultLimits } from '../image-editing/edit-pipeline';
import { SourceLoader } from '../sources/source-loader';
import { ResultFailure, type ToolOutput, type ToolRunner, type ToolTask } from '../tool-runner';
import type { ToolAvailability } from '../tool-runners';
import { finishEdit, photoArea, photoOnCanvas, placeOnCanvas, providerInputs } from './ai-edit-pipeline';
import { aiEditRequestOf } from './generative-request';
import { asComposingFailure, encodedResult, photoPlan } from './generative-steps';
import { NO_PROVIDER } from './provider-failures';
import { coverTo, keepMaskPng, providerPng } from './provider-images';

/** The photo is decoded no larger than this: providers paint at about 1.5k a side. */
const PHOTO_LONG_SIDE = 2048;
/** The photo, its mask, the placed layers, the provider's image and the result. */
const EDIT_LAYERS = 5;

/**
 * Live `image_ai_edit`: the provider edits the photo from the prompt; the service fits its answer
 * to the exact aspect ratio asked for (extending the canvas around the subject, never cropping
 * the photo) and keeps as much of the product's own pixels as the preservation level promises.
 */
@Injectable()
export class AiEditRunner implements ToolRunner {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    @Inject(IMAGE_PROVIDER) private readonly provider: ImageProvider | null,
    private readonly sources: SourceLoader,
    private readonly budget: PixelBudget,
  ) {}

  get availability(): ToolAvailability {
    if (!this.provider) return { available: false, reason: 'needs an image provider (IMAGE_PROVIDER)' };
    const preservation = this.segmenter ? '' : '; strict and balanced preservation need background removal (SEGMENTER is none)';
    return { available: true, mode: `${this.provider.description}${preservation}` };
  }

  async run(task: ToolTask, signal: AbortSignal): Promise<ToolOutput> {
    const provider = this.provider;
    if (!provider) throw new ResultFailure(ResultErrorCode.ProcessingFailed, `This edit ${NO_PROVIDER}.`);
    const request = aiEditRequestOf(task);
    const segmenter = request.preservation === 'creative' ? null : this.segmenter;
    if (request.preservation !== 'creative' && !segmenter) {
      throw new ResultFailure(ResultErrorCode.ProcessingFailed, `The ${request.preservation} preservation level ${NO_SEGMENTER}.`);
    }
    const source = await this.sources.load(task, signal);
    const plan = photoPlan(source, PHOTO_LONG_SIDE);
    const limits = resultLimits(this.config, signal);
    const image = await this.budget
      .run(plan.scaled.width * plan.scaled.height * EDIT_LAYERS, async () => {
        const photo = await decodePhoto(source, plan, limits);
        const alpha = segmenter
          ? (await segmenter.segment(photo, signal)).mask
          : { data: new Uint8Array(photo.width * photo.height).fill(255), width: photo.width, height: photo.height };
        const placement = placeOnCanvas(photo, segmenter ? subjectBounds(alpha) : null, request.ratio);
        const placed = await photoOnCanvas(photo, alpha, placement);
        const inputs = providerInputs(placed, photoArea(placement, photo), request.preservation);
        const [png, mask] = await Promise.all([providerPng(inputs.image), keepMaskPng(inputs.keep)]);
        const painted = await provider.edit({ image: png, mask, prompt: request.prompt, shape: shapeFor(placement.canvas) }, signal);
        return finishEdit(placed, await coverTo(painted, placement.canvas), request.preservation);
      })
      .catch((error: unknown) => {
        throw asComposingFailure(error);
      });
    return encodedResult(image, task.format);
  }
}
