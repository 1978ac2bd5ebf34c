import { Inject, Injectable } from '@nestjs/common';
import { ProductPhotoOperation } from '../catalog/product-photo-presets';
import { ToolId } from '../catalog/tools';
import { SandboxSimulator } from './sandbox/sandbox-simulator';
import { ToolAvailabilityService } from './tool-availability';
import { isProductPhoto, type ProductPhotoOptions, type ToolOptions } from './tool-options';
import type { ToolRunner, TypedToolTask } from './tool-runner';

/** The live pipelines on this worker, each under the tool whose pipeline it is. */
export const LIVE_TOOL_RUNNERS = Symbol('LIVE_TOOL_RUNNERS');
export type LiveToolRunners = ReadonlyMap<ToolId, ToolRunner>;

/**
 * The tool whose pipeline a product photo operation runs on. Its job keeps the tool it is
 * labelled, priced and admitted as (PRODUCT_PHOTO_TOOL); the operations that cut the product out
 * run on the cut-out, whatever their label.
 */
function productPhotoPipeline(options: ProductPhotoOptions): ToolId {
  switch (options.operation) {
    case ProductPhotoOperation.RemoveBackground:
    case ProductPhotoOperation.StudioPackshot:
    case ProductPhotoOperation.MarketplaceClean:
      return ToolId.RemoveBackground;
    case ProductPhotoOperation.ProductPhotoEnhance:
      // Enhancing keeps the photo's background unless its preset replaces it (white or transparent).
      return !options.preset || options.preset.background === 'original' ? ToolId.ImageEditing : ToolId.RemoveBackground;
    case ProductPhotoOperation.NaturalLifestyle:
      return ToolId.AiBackground;
    case ProductPhotoOperation.PremiumAd:
      return ToolId.AdCreative;
  }
}

/** The tool whose pipeline runs a job's results: its own, or for a product photo operation the one that really does it. */
export function pipelineOf(job: ToolOptions): ToolId {
  return isProductPhoto(job.options) ? productPhotoPipeline(job.options) : job.tool;
}

/** Which runner produces a result on this worker. */
@Injectable()
export class ToolRunners {
  constructor(
    private readonly sandbox: SandboxSimulator,
    private readonly availability: ToolAvailabilityService,
    @Inject(LIVE_TOOL_RUNNERS) private readonly live: LiveToolRunners,
  ) {}

  /** Null when the job's tool is not offered to live keys here, or its pipeline is missing from this worker. */
  runnerFor(task: TypedToolTask): ToolRunner | null {
    if (task.sandbox) return this.sandbox;
    if (!this.availability.isAvailable(task.tool, false)) return null;
    return this.live.get(pipelineOf(task)) ?? null;
  }
}
