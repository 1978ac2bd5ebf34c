import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { shapeFor, withLongSide } from '../../../core/image/aspect-ratio';
import { composite } from '../../../core/image/compose/composite';
import { renderStudioBackdrop, studioBackdropFor } from '../../../core/image/compose/studio-backdrop';
import { PixelBudget } from '../../../core/image/pixel-budget';
import type { Size } from '../../../core/image/raw-image';
import { IMAGE_PROVIDER, type ImageProvider } from '../../../core/image-provider/image-provider';
import { SEGMENTER, type Segmenter } from '../../../core/segmentation/segmenter';
import { ResultErrorCode } from '../../jobs/job-status';
import { shadowStyle } from '../background-removal/cutout-request';
import { decodePhoto } from '../background-removal/cutout-pipeline';
import { NO_SEGMENTER } from '../background-removal/segmentation-failures';
import { resultLimits } from '../image-editing/edit-pipeline';
import { SourceLoader } from '../sources/source-loader';
import { ResultFailure, variantOf, type ToolOutput, type ToolRunner, type ToolTask } from '../tool-runner';
import type { ToolAvailability } from '../tool-runners';
import { exactCanvas, sceneRequestOf, type SceneRequest } from './generative-request';
import { asComposingFailure, encodedResult, photoPlan } from './generative-steps';
import { NO_PROVIDER } from './provider-failures';
import { coverTo, keepMaskPng, providerPng } from './provider-images';
import { composeScene, type BackdropPainter } from './scene-pipeline';

/** A scene's longer side without a preset: the largest side the providers paint natively. */
const SCENE_LONG_SIDE = 1536;
/** The photo is decoded no larger than this: the subject fills well under it on the scene's canvas. */
const PHOTO_LONG_SIDE = 2048;
/** A provider's backdrop puts the subject's base here, leaving the floor in front of it. */
const PROVIDER_FLOOR_LINE = 0.86;
/** The photo, its mask, the cut-out layers and the canvas with its backdrop. */
const SCENE_LAYERS = 5;

/**
 * Live `ai_background` (and the `natural_lifestyle` product photo operation): the product cut
 * out by the segmenter and placed in a scene whose backdrop the image provider paints around it
 * from `scene.prompt`, or, without a provider and with STUDIO_BACKDROPS on, one of the built-in
 * studio backdrops (drawn, not generated). The product's pixels are always the photo's own.
 */
@Injectable()
export class SceneRunner implements ToolRunner {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    @Inject(IMAGE_PROVIDER) private readonly provider: ImageProvider | null,
    private readonly sources: SourceLoader,
    private readonly budget: PixelBudget,
  ) {}

  get availability(): ToolAvailability {
    if (!this.segmenter) return { available: false, reason: 'needs background removal (SEGMENTER is none)' };
    if (this.provider) return { available: true, mode: `generated scenes (${this.provider.description})` };
    if (this.config.STUDIO_BACKDROPS) {
      return { available: true, mode: 'built-in studio backdrops (drawn, not generated: no image provider is configured)' };
    }
    return { available: false, reason: 'needs an image provider (IMAGE_PROVIDER), or STUDIO_BACKDROPS=true for built-in backdrops' };
  }

  async run(task: ToolTask, signal: AbortSignal): Promise<ToolOutput> {
    const segmenter = this.segmenter;
    if (!segmenter) throw new ResultFailure(ResultErrorCode.ProcessingFailed, `This scene ${NO_SEGMENTER}.`);
    if (!this.provider && !this.config.STUDIO_BACKDROPS) {
      throw new ResultFailure(ResultErrorCode.ProcessingFailed, `This scene ${NO_PROVIDER}.`);
    }
    const request = sceneRequestOf(task);
    const variant = variantOf(task);
    const source = await this.sources.load(task, signal);
    const plan = photoPlan(source, PHOTO_LONG_SIDE);
    const canvas = sceneCanvas(request, plan.scaled);
    const pixels = Math.max(plan.scaled.width * plan.scaled.height, canvas.width * canvas.height) * SCENE_LAYERS;
    const limits = resultLimits(this.config, signal);
    const image = await this.budget
      .run(pixels, async () => {
        const photo = await decodePhoto(source, plan, limits);
        const { mask: alpha } = await segmenter.segment(photo, signal, task.subjectHints);
        const studio = this.provider ? null : studioBackdropFor(variant);
        const painter: BackdropPainter = studio
          ? (_placed, size) => renderStudioBackdrop(studio, size)
          : this.providerPainter(this.provider as ImageProvider, request.prompt, signal);
        const floorLine = studio?.floorLine ?? PROVIDER_FLOOR_LINE;
        return composeScene(photo, alpha, { canvas, shadow: shadowStyle(request.shadow, variant), floorLine, variant }, painter, limits);
      })
      .catch((error: unknown) => {
        throw asComposingFailure(error);
      });
    return encodedResult(image, task.format);
  }

  /**
   * The provider paints the scene around the placed product: it is sent the product alone on a
   * transparent canvas with a mask that keeps the product, and whatever it returns is fitted to
   * the canvas; the product is composited over it from the photo's own pixels afterwards.
   */
  private providerPainter(provider: ImageProvider, prompt: string, signal: AbortSignal): BackdropPainter {
    return async (placed, size) => {
      const subject = composite({ ...placed, shadow: null }, null);
      const [image, mask] = await Promise.all([providerPng(subject), keepMaskPng(placed.alpha)]);
      const painted = await provider.edit({ image, mask, prompt, shape: shapeFor(size) }, signal);
      return coverTo(painted, size);
    };
  }
}

/** The preset's canvas; else the requested ratio exactly; else the photo's own shape. */
function sceneCanvas(request: SceneRequest, photo: Size): Size {
  if (request.canvas) return request.canvas;
  if (request.ratio) return exactCanvas(request.ratio, SCENE_LONG_SIDE);
  return withLongSide(photo, SCENE_LONG_SIDE);
}
