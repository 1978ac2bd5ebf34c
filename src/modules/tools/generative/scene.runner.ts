import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { withLongSide } from '../../../core/image/aspect-ratio';
import type { Size } from '../../../core/image/raw-image';
import type { SourceImage } from '../../../core/image/source-image';
import { IMAGE_PROVIDER, type ImageProvider } from '../../../core/image-provider/image-provider';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import { ToolId } from '../../catalog/tools';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { NO_PROVIDER, NO_SEGMENTER } from '../shared/failure-translation';
import { photoPlan } from '../shared/photo-decoding';
import { ResultFrame, type FramedTool, type ResultContext } from '../shared/result-frame';
import { fileChoicesOf, variantOf, type ToolOutput, type ToolRunner, type TypedToolTask } from '../tool-runner';
import { exactCanvas, sceneRequestOf, type SceneRequest } from './generative-request';
import { runScene } from './scene-pipeline';

/** A scene's longer side without a preset: the largest side the providers paint natively. */
const SCENE_LONG_SIDE = 1536;
/** The photo is decoded no larger than this: the subject fills well under it on the scene's canvas. */
const PHOTO_LONG_SIDE = 2048;
/** The photo, its mask, the cut-out layers and the canvas with its backdrop. */
const SCENE_LAYERS = 5;

type SceneWork = SceneRequest & { segmenter: Segmenter };

/**
 * Live `ai_background` (and the `natural_lifestyle` product photo operation): the product cut
 * out by the segmenter and placed in a scene whose backdrop the image provider paints around it
 * from `scene.prompt`, or, without a provider and with STUDIO_BACKDROPS on, one of the built-in
 * studio backdrops (drawn, not generated). The product's pixels are always the photo's own.
 * In the result frame:
 *
 * 1. the request, refused before the download without a segmenter, or without both a provider
 *    and the studio backdrops;
 * 2. the source; its share of the budget: the larger of the photo and the canvas, times SCENE_LAYERS;
 * 3. runScene's steps (see scene-pipeline.ts), ending with the image and thumbnail encoded.
 */
@Injectable()
export class SceneRunner implements ToolRunner, FramedTool<SceneWork> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    @Inject(IMAGE_PROVIDER) private readonly provider: ImageProvider | null,
    private readonly frame: ResultFrame,
  ) {}

  run(task: TypedToolTask, signal: AbortSignal): Promise<ToolOutput> {
    return this.frame.run(task, signal, this);
  }

  request(task: TypedToolTask): SceneWork {
    const segmenter = this.segmenter;
    if (!segmenter) throw new ResultFailure(ResultErrorCode.ProcessingFailed, `This scene ${NO_SEGMENTER}.`);
    if (!this.provider && !this.config.STUDIO_BACKDROPS) {
      throw new ResultFailure(ResultErrorCode.ProcessingFailed, `This scene ${NO_PROVIDER}.`);
    }
    if (task.tool !== ToolId.AiBackground) {
      throw new ResultFailure(
        ResultErrorCode.ProcessingFailed,
        `The ${task.tool} tool does not run on the scene pipeline.`,
      );
    }
    return { ...sceneRequestOf(task.options), segmenter };
  }

  pixels(source: SourceImage, request: SceneRequest): number {
    const { scaled } = photoPlan(source, PHOTO_LONG_SIDE);
    const canvas = sceneCanvas(request, scaled);
    return Math.max(scaled.width * scaled.height, canvas.width * canvas.height) * SCENE_LAYERS;
  }

  pipeline({ task, source, request, limits }: ResultContext<SceneWork>) {
    const plan = photoPlan(source, PHOTO_LONG_SIDE);
    const job = {
      request,
      canvas: sceneCanvas(request, plan.scaled),
      variant: variantOf(task),
      hints: task.subjectHints,
      format: task.format,
      file: fileChoicesOf(task),
    };
    return runScene(source, plan, job, { segmenter: request.segmenter, provider: this.provider }, limits);
  }
}

/** The preset's canvas; else the requested ratio exactly; else the photo's own shape. */
function sceneCanvas(request: SceneRequest, photo: Size): Size {
  if (request.canvas) return request.canvas;
  if (request.ratio) return exactCanvas(request.ratio, SCENE_LONG_SIDE);
  return withLongSide(photo, SCENE_LONG_SIDE);
}
