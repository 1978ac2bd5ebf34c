import { Inject, Injectable } from '@nestjs/common';
import type { SourceImage } from '../../../core/image/source-image';
import { IMAGE_PROVIDER, type ImageProvider } from '../../../core/image-provider/image-provider';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import { ToolId } from '../../catalog/tools';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { photoPlan } from '../shared/photo-decoding';
import { ResultFrame, type FramedTool, type ResultContext } from '../shared/result-frame';
import { fileChoicesOf, variantOf, type ToolOutput, type ToolRunner, type TypedToolTask } from '../tool-runner';
import { runAd } from './ad-pipeline';
import { adRequestOf, type AdRequest } from './ad-request';

/** The product photo is decoded no larger than this: an ad canvas is at most 1920 a side. */
const PHOTO_LONG_SIDE = 2048;
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
 * 2. the source; its share of the budget: the photo at PHOTO_LONG_SIDE times AD_LAYERS;
 * 3. runAd's steps (see ad-pipeline.ts), ending with the image and thumbnail encoded.
 */
@Injectable()
export class AdCreativeRunner implements ToolRunner, FramedTool<AdRequest> {
  constructor(
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    @Inject(IMAGE_PROVIDER) private readonly provider: ImageProvider | null,
    private readonly frame: ResultFrame,
  ) {}

  run(task: TypedToolTask, signal: AbortSignal): Promise<ToolOutput> {
    return this.frame.run(task, signal, this);
  }

  request(task: TypedToolTask): AdRequest {
    if (task.tool !== ToolId.AdCreative) {
      throw new ResultFailure(
        ResultErrorCode.ProcessingFailed,
        `The ${task.tool} tool does not run on the ad pipeline.`,
      );
    }
    return adRequestOf(task.options);
  }

  pixels(source: SourceImage): number {
    const { scaled } = photoPlan(source, PHOTO_LONG_SIDE);
    return scaled.width * scaled.height * AD_LAYERS;
  }

  pipeline({ task, source, request, limits }: ResultContext<AdRequest>) {
    const job = { variant: variantOf(task), hints: task.subjectHints, format: task.format, file: fileChoicesOf(task) };
    return runAd(
      source,
      photoPlan(source, PHOTO_LONG_SIDE),
      request,
      job,
      { segmenter: this.segmenter, provider: this.provider },
      limits,
    );
  }
}
