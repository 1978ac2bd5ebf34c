import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { ImageService } from '../../../core/image/image.service';
import type { SegmentationReport } from '../../../engine/mask/segmentation-report';
import { MASK_POST_PROCESSING_VERSION } from '../../../engine/mask/post-processing-version';
import { ToolId } from '../../catalog/tools';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import {
  cutsSubjectOut,
  isProductPhoto,
  type StoredBackground,
  type StoredPlacement,
  type ToolOptions,
} from '../tool-options';
import type { ToolOutput, ToolRunner, TypedToolTask } from '../tool-runner';
import { pipelineOf } from '../tool-pipelines';
import { SOURCE_ALPHA_SEGMENTATION } from '../shared/existing-alpha';

/** Longest side of a simulated result: small, so sandbox jobs finish in milliseconds. */
const SIMULATED_LONG_SIDE = 512;

export const SANDBOX_FAIL_PREFIX = 'sandbox_fail';
export const SANDBOX_SLOW_PREFIX = 'sandbox_slow';
export const SANDBOX_UNSURE_PREFIX = 'sandbox_unsure';
/** With `existing_alpha` `use`: a source that has no meaningful transparency, as an opaque photo would be. */
export const SANDBOX_OPAQUE_PREFIX = 'sandbox_opaque';

/**
 * The uncertainty of a sandbox cut-out: a sure one, or, for an `external_id` starting with
 * SANDBOX_UNSURE_PREFIX, one a client should send to a person, so its routing can be tested.
 */
export const SANDBOX_UNCERTAINTY = { sure: 0.05, unsure: 0.9 } as const;

/**
 * What every sandbox cut-out reports as its segmentation: no model ran, so the model is `sandbox`
 * at version `1`; the post-processing version is the live one, so a client can read it as it will live.
 */
export const SANDBOX_SEGMENTATION: SegmentationReport = {
  model: 'sandbox',
  version: '1',
  postProcessingVersion: MASK_POST_PROCESSING_VERSION,
};

/** What the live result would be, as far as the sandbox imitates it: a cut-out, a mask, or neither. */
function cutoutKind(job: ToolOptions): 'none' | 'cutout' | 'mask' {
  if (isProductPhoto(job.options)) return pipelineOf(job) === ToolId.RemoveBackground ? 'cutout' : 'none';
  switch (job.tool) {
    case ToolId.RemoveBackground:
      return job.options.output.channels === 'alpha' ? 'mask' : 'cutout';
    case ToolId.ImageEditing:
      return cutsSubjectOut(job.options.operations.background) ? 'cutout' : 'none';
    default:
      return 'none';
  }
}

/** Where a remove-background or edit job keeps its cut-out's choices; null for any other job. */
function cutoutChoices(
  job: ToolOptions,
): { background?: StoredBackground; placement?: StoredPlacement; existingAlpha: boolean } | null {
  if (isProductPhoto(job.options)) return null;
  switch (job.tool) {
    case ToolId.RemoveBackground: {
      const { background, placement, existing_alpha } = job.options;
      return { background, placement, existingAlpha: existing_alpha === 'use' };
    }
    case ToolId.ImageEditing: {
      const { background, placement } = job.options.operations;
      return { background, placement, existingAlpha: job.options.existing_alpha === 'use' };
    }
    default:
      return null;
  }
}

/**
 * What the live result would be composed over, when that is more than a colour: named in the
 * simulated image's label, since the sandbox downloads nothing (a background photo included).
 */
function backdropLabel(job: ToolOptions): string {
  const background = cutoutChoices(job)?.background;
  if (background?.type === 'image') return ' on a background photo';
  if (background?.type === 'blur') return ` on its own background, ${background.blur?.mode ?? 'gaussian'} blur`;
  return '';
}

/** The most pixels a simulated canvas has: a larger one keeps its shape at this size, so sandbox jobs stay quick. */
const SIMULATED_CANVAS_PIXELS = 4_000_000;

/** The canvas a placement asks for, where the job has one with its size given. */
function placementSize(job: ToolOptions): { width: number; height: number } | null {
  const placement = cutoutChoices(job)?.placement;
  if (!placement?.width || !placement.height) return null;
  const factor = Math.min(1, Math.sqrt(SIMULATED_CANVAS_PIXELS / (placement.width * placement.height)));
  return {
    width: Math.max(1, Math.floor(placement.width * factor)),
    height: Math.max(1, Math.floor(placement.height * factor)),
  };
}

/**
 * The requested shape, from `resizing` or an `aspect_ratio`, scaled to the simulated size; a
 * placement's canvas exactly (up to SIMULATED_CANVAS_PIXELS), since a client lays out its pages by that size.
 */
export function simulatedSize(job: ToolOptions): { width: number; height: number } {
  const canvas = placementSize(job);
  if (canvas) return canvas;
  let ratio = 1;
  const resizing =
    job.tool === ToolId.ImageEditing && !isProductPhoto(job.options) ? job.options.operations.resizing : undefined;
  if (resizing?.width && resizing.height) ratio = resizing.width / resizing.height;
  const aspect = aspectRatioOf(job);
  if (aspect) {
    const [w, h] = aspect.split(':').map(Number);
    if (w > 0 && h > 0) ratio = w / h;
  }
  return ratio >= 1
    ? { width: SIMULATED_LONG_SIDE, height: Math.max(1, Math.round(SIMULATED_LONG_SIDE / ratio)) }
    : { width: Math.max(1, Math.round(SIMULATED_LONG_SIDE * ratio)), height: SIMULATED_LONG_SIDE };
}

/** The `aspect_ratio` a job asked for, where its tool takes one. */
function aspectRatioOf(job: ToolOptions): string | undefined {
  if (isProductPhoto(job.options)) return undefined;
  switch (job.tool) {
    case ToolId.ImageAiEdit:
    case ToolId.ImageGeneration:
      return job.options.options.aspect_ratio;
    case ToolId.AiBackground:
      return job.options.scene.aspect_ratio;
    default:
      return undefined;
  }
}

/**
 * Sandbox results: a generated image instead of a download and a model (contract section 12),
 * with deterministic scenarios chosen by the `external_id` prefix.
 */
@Injectable()
export class SandboxSimulator implements ToolRunner {
  constructor(
    private readonly images: ImageService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async run(task: TypedToolTask, signal: AbortSignal): Promise<ToolOutput> {
    if (task.externalId?.startsWith(SANDBOX_FAIL_PREFIX)) {
      throw new ResultFailure(
        ResultErrorCode.SandboxSimulatedFailure,
        `Simulated failure: external_id starts with "${SANDBOX_FAIL_PREFIX}".`,
      );
    }
    const existingAlpha = cutoutChoices(task)?.existingAlpha === true;
    if (existingAlpha && task.externalId?.startsWith(SANDBOX_OPAQUE_PREFIX)) {
      throw new ResultFailure(
        ResultErrorCode.SourceNotTransparent,
        `Simulated source without meaningful transparency: external_id starts with "${SANDBOX_OPAQUE_PREFIX}".`,
      );
    }
    if (task.externalId?.startsWith(SANDBOX_SLOW_PREFIX)) {
      await sleep(this.config.SANDBOX_SLOW_SECONDS * 1000, undefined, { signal });
    }
    const kind = cutoutKind(task);
    const [image, sourcePreview] = await Promise.all([
      this.images.renderSimulatedResult({
        ...simulatedSize(task),
        format: task.format,
        label: `sandbox ${task.tool} #${task.index + 1}${backdropLabel(task)}`,
        seed: task.resultId,
        greyscale: kind === 'mask',
      }),
      this.simulatedSourcePreview(task),
    ]);
    const produced = { image, format: task.format, sourcePreview };
    if (kind === 'none') return produced;
    // The source's own alpha is taken as it is: nothing to be unsure of.
    if (existingAlpha) return { ...produced, uncertainty: 0, segmentation: SOURCE_ALPHA_SEGMENTATION };
    const unsure = task.externalId?.startsWith(SANDBOX_UNSURE_PREFIX) === true;
    return {
      ...produced,
      uncertainty: unsure ? SANDBOX_UNCERTAINTY.unsure : SANDBOX_UNCERTAINTY.sure,
      segmentation: SANDBOX_SEGMENTATION,
    };
  }

  /**
   * The sandbox downloads no source, so its preview of one is a stand-in: a labelled WebP picked by
   * the source URL (the variants of one source show the same original), made only where a live
   * result would have read a source, so `source_preview_url` is null exactly where it would be live.
   */
  private async simulatedSourcePreview(task: TypedToolTask): Promise<Buffer | undefined> {
    if (!task.sourceImageUrl) return undefined;
    return this.images.renderSimulatedResult({
      width: SIMULATED_LONG_SIDE,
      height: SIMULATED_LONG_SIDE,
      format: 'webp',
      label: 'sandbox source',
      seed: task.sourceImageUrl,
    });
  }
}
