import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import type { SourceImage } from '../../../core/image/source-image';
import { IMAGE_PROVIDER, type ImageProvider } from '../../../core/image-provider/image-provider';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import { ToolId } from '../../catalog/tools';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { NO_PROVIDER, NO_SEGMENTER } from '../shared/failure-translation';
import { photoPlan } from '../shared/photo-decoding';
import type { FramedTool, PipelineOf, PreparedRequest, TaskOf } from '../shared/result-frame';
import { sceneRequestOf, type SceneRequest } from './generative-request';
import {
  SCENE_PHOTO_LONG_SIDE,
  SCENE_PIPELINE,
  sceneCanvas,
  type ScenePainters,
  type SceneWork,
} from './scene-pipeline';

/** The photo, its mask, the cut-out layers and the canvas with its backdrop. */
const SCENE_LAYERS = 5;

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
 * 3. SCENE_STEPS (see scene-pipeline.ts), ending with the image and thumbnail encoded.
 */
@Injectable()
export class SceneRunner implements FramedTool<ToolId.AiBackground, SceneRequest, ScenePainters, SceneWork> {
  readonly runs: PipelineOf<ToolId.AiBackground> = { name: 'scene', tools: [ToolId.AiBackground] };
  readonly pipeline = SCENE_PIPELINE;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    @Inject(IMAGE_PROVIDER) private readonly provider: ImageProvider | null,
  ) {}

  prepare(task: TaskOf<ToolId.AiBackground>): PreparedRequest<SceneRequest, ScenePainters> {
    const segmenter = this.segmenter;
    if (!segmenter) throw new ResultFailure(ResultErrorCode.ProcessingFailed, `This scene ${NO_SEGMENTER}.`);
    if (!this.provider && !this.config.STUDIO_BACKDROPS) {
      throw new ResultFailure(ResultErrorCode.ProcessingFailed, `This scene ${NO_PROVIDER}.`);
    }
    return { request: sceneRequestOf(task.options), dependencies: { segmenter, provider: this.provider } };
  }

  pixels(source: SourceImage, request: SceneRequest): number {
    const { scaled } = photoPlan(source, SCENE_PHOTO_LONG_SIDE);
    const canvas = sceneCanvas(request, scaled);
    return Math.max(scaled.width * scaled.height, canvas.width * canvas.height) * SCENE_LAYERS;
  }
}
