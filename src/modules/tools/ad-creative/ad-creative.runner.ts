import { Inject, Injectable } from '@nestjs/common';
import type { SourceImage } from '../../../core/image/source-image';
import { IMAGE_PROVIDER, type ImageProvider } from '../../../core/image-provider/image-provider';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import { ToolId } from '../../catalog/tools';
import { photoPixels } from '../shared/photo-decoding';
import type { FramedTool, PipelineOf, PreparedRequest, TaskOf } from '../shared/result-frame';
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
export class AdCreativeRunner implements FramedTool<ToolId.AdCreative, AdRequest, AdPainters, AdWork> {
  readonly runs: PipelineOf<ToolId.AdCreative> = { name: 'ad', tools: [ToolId.AdCreative] };
  readonly pipeline = AD_PIPELINE;

  constructor(
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    @Inject(IMAGE_PROVIDER) private readonly provider: ImageProvider | null,
  ) {}

  prepare(task: TaskOf<ToolId.AdCreative>): PreparedRequest<AdRequest, AdPainters> {
    return { request: adRequestOf(task.options), dependencies: { segmenter: this.segmenter, provider: this.provider } };
  }

  pixels(source: SourceImage): number {
    return photoPixels(source, AD_PHOTO_LONG_SIDE, AD_LAYERS);
  }
}
