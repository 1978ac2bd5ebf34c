import { Inject, Injectable } from '@nestjs/common';
import type { SourceImage } from '../../../core/image/source-image';
import { IMAGE_PROVIDER, type ImageProvider } from '../../../core/image-provider/image-provider';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import { ToolId } from '../../catalog/tools';
import { photoPlan } from '../shared/photo-decoding';
import {
  ResultFrame,
  type FramedTool,
  type PipelineOf,
  type PreparedRequest,
  type TaskOf,
} from '../shared/result-frame';
import type { ToolOutput, ToolRunner, TypedToolTask } from '../tool-runner';
import { AD_PHOTO_LONG_SIDE, AD_PIPELINE, type AdPainters, type AdWork } from './ad-pipeline';
import { adRequestOf, type AdRequest } from './ad-request';

/** The photo, its mask, the cut-out, the canvas and its encoded copy. */
const AD_LAYERS = 5;

/**
 * Live `ad_creative` (and the `premium_ad` product photo operation): the product, cut out when a
 * segmenter is configured (else its photo whole), laid out by the service on the platform's
 * canvas with the style's background and the copy set in the bundled fonts. `premium_ad` asks
 * the image provider, when there is one, for the backdrop from its `instructions`. In the result
 * frame:
 *
 * 1. the request (see ad-request.ts);
 * 2. the source; its share of the budget: the photo at AD_PHOTO_LONG_SIDE times AD_LAYERS;
 * 3. AD_STEPS (see ad-pipeline.ts), ending with the image and thumbnail encoded.
 */
@Injectable()
export class AdCreativeRunner implements ToolRunner, FramedTool<ToolId.AdCreative, AdRequest, AdPainters, AdWork> {
  readonly runs: PipelineOf<ToolId.AdCreative> = { name: 'ad', tools: [ToolId.AdCreative] };
  readonly pipeline = AD_PIPELINE;

  constructor(
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    @Inject(IMAGE_PROVIDER) private readonly provider: ImageProvider | null,
    private readonly frame: ResultFrame,
  ) {}

  run(task: TypedToolTask, signal: AbortSignal): Promise<ToolOutput> {
    return this.frame.run(task, signal, this);
  }

  prepare(task: TaskOf<ToolId.AdCreative>): PreparedRequest<AdRequest, AdPainters> {
    return { request: adRequestOf(task.options), dependencies: { segmenter: this.segmenter, provider: this.provider } };
  }

  pixels(source: SourceImage): number {
    const { scaled } = photoPlan(source, AD_PHOTO_LONG_SIDE);
    return scaled.width * scaled.height * AD_LAYERS;
  }
}
