import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { ImageService } from '../../../core/image/image.service';
import { ResultErrorCode } from '../../jobs/job-status';
import { ResultFailure, type ToolOutput, type ToolRunner, type ToolTask } from '../tool-runner';

/** Longest side of a simulated result: small, so sandbox jobs finish in milliseconds. */
const SIMULATED_LONG_SIDE = 512;

export const SANDBOX_FAIL_PREFIX = 'sandbox_fail';
export const SANDBOX_SLOW_PREFIX = 'sandbox_slow';

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
    const image = await this.images.renderSimulatedResult({
      ...simulatedSize(task.options),
      format: task.format,
      label: `sandbox ${task.tool} #${task.index + 1}`,
      seed: task.resultId,
    });
    return { image, format: task.format };
  }
}
