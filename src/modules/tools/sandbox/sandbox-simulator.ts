import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { ImageService } from '../../../core/image/image.service';
import { ToolId } from '../../catalog/tools';
import { ResultErrorCode } from '../../jobs/job-status';
import { cutoutRequestOf } from '../background-removal/cutout-request';
import { editRequestOf } from '../image-editing/edit-request';
import { ResultFailure, type ToolOutput, type ToolRunner, type ToolTask } from '../tool-runner';

/** Longest side of a simulated result: small, so sandbox jobs finish in milliseconds. */
const SIMULATED_LONG_SIDE = 512;

export const SANDBOX_FAIL_PREFIX = 'sandbox_fail';
export const SANDBOX_SLOW_PREFIX = 'sandbox_slow';
export const SANDBOX_UNSURE_PREFIX = 'sandbox_unsure';

/**
 * The uncertainty of a sandbox cut-out: a sure one, or, for an `external_id` starting with
 * SANDBOX_UNSURE_PREFIX, one a client should send to a person, so its routing can be tested.
 */
export const SANDBOX_UNCERTAINTY = { sure: 0.05, unsure: 0.9 } as const;

/** What the live result would be, as far as the sandbox imitates it: a cut-out, a mask, or neither. */
function cutoutKind(task: ToolTask): 'none' | 'cutout' | 'mask' {
  switch (task.tool) {
    case ToolId.RemoveBackground: {
      const cutout = cutoutRequestOf(task);
      if (!cutout) return 'none';
      return cutout.channels === 'alpha' ? 'mask' : 'cutout';
    }
    case ToolId.ImageEditing: {
      // As ImageEditingRunner decides: a product photo operation that cuts out, or a background operation.
      const product = typeof task.options.operation === 'string';
      return (product ? cutoutRequestOf(task) : editRequestOf(task).cutout) ? 'cutout' : 'none';
    }
    default:
      return 'none';
  }
}

/** The requested shape, from `resizing` or an `aspect_ratio`, scaled to the simulated size. */
export function simulatedSize(options: Record<string, unknown>): { width: number; height: number } {
  let ratio = 1;
  const resizing = (options.operations as { resizing?: { width?: number; height?: number } } | undefined)?.resizing;
  if (resizing?.width && resizing.height) ratio = resizing.width / resizing.height;
  const aspect = [options.aspect_ratio, (options.options as { aspect_ratio?: unknown } | undefined)?.aspect_ratio,
    (options.scene as { aspect_ratio?: unknown } | undefined)?.aspect_ratio].find((value) => typeof value === 'string');
  if (typeof aspect === 'string') {
    const [w, h] = aspect.split(':').map(Number);
    if (w > 0 && h > 0) ratio = w / h;
  }
  return ratio >= 1
    ? { width: SIMULATED_LONG_SIDE, height: Math.max(1, Math.round(SIMULATED_LONG_SIDE / ratio)) }
    : { width: Math.max(1, Math.round(SIMULATED_LONG_SIDE * ratio)), height: SIMULATED_LONG_SIDE };
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

  async run(task: ToolTask): Promise<ToolOutput> {
    if (task.externalId?.startsWith(SANDBOX_FAIL_PREFIX)) {
      throw new ResultFailure(
        ResultErrorCode.SandboxSimulatedFailure,
        `Simulated failure: external_id starts with "${SANDBOX_FAIL_PREFIX}".`,
      );
    }
    if (task.externalId?.startsWith(SANDBOX_SLOW_PREFIX)) await sleep(this.config.SANDBOX_SLOW_SECONDS * 1000);
    const kind = cutoutKind(task);
    const image = await this.images.renderSimulatedResult({
      ...simulatedSize(task.options),
      format: task.format,
      label: `sandbox ${task.tool} #${task.index + 1}`,
      seed: task.resultId,
      greyscale: kind === 'mask',
    });
    if (kind === 'none') return { image, format: task.format };
    const unsure = task.externalId?.startsWith(SANDBOX_UNSURE_PREFIX) === true;
    return { image, format: task.format, uncertainty: unsure ? SANDBOX_UNCERTAINTY.unsure : SANDBOX_UNCERTAINTY.sure };
  }
}
