import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { PIXEL_ENGINE } from '../../../core/engine/engine.module';
import { PixelBudget } from '../../../core/image/pixel-budget';
import type { PixelEngine } from '../../../engine/pixel-engine';
import type { SourceImage } from '../../../core/image/source-image';
import type { ToolOutput, TypedToolTask } from '../tool-runner';
import type { EncodedImage } from './encoding';
import { asResultFailure } from './failure-translation';
import { resultLimits, type PipelineLimits } from './pipeline-limits';
import { SourceLoader } from './source-loader';

/** What a tool's steps run over: its typed request, the result's source and limits. */
export interface ResultContext<R, S extends SourceImage | null = SourceImage> {
  task: TypedToolTask;
  request: R;
  source: S;
  limits: PipelineLimits & { signal: AbortSignal };
}

/**
 * A tool as the frame runs it. The frame's order is fixed:
 *
 * 1. `request`: the result's typed request; what this deployment cannot do is refused here,
 *    before the download, since nothing about the source could change the answer;
 * 2. the source downloaded, checked to be an image and within the pixel limit (SourceLoader);
 * 3. `pixels`: how many pixels the tool holds at once, its share of the worker's PixelBudget;
 * 4. `pipeline`, within that share: the tool's own named steps, from decoding to the encoded
 *    image and its thumbnail;
 * 5. any failure on the way translated into the result's error code.
 *
 * `S` is null for a tool that may run without a source (a generation without a reference image).
 */
export interface FramedTool<R, S extends SourceImage | null = SourceImage> {
  request(task: TypedToolTask): R;
  pixels(source: S, request: R): number;
  pipeline(context: ResultContext<R, S>): Promise<EncodedImage>;
}

/** The frame every live tool's result runs in (see FramedTool for its order). */
@Injectable()
export class ResultFrame {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sources: SourceLoader,
    private readonly budget: PixelBudget,
    @Inject(PIXEL_ENGINE) private readonly engine: PixelEngine,
  ) {}

  /** A result made from its source image. */
  run<R>(task: TypedToolTask, signal: AbortSignal, tool: FramedTool<R>): Promise<ToolOutput> {
    return this.framed(task, signal, tool, () => this.sources.load(task, signal));
  }

  /** A result whose source image is optional: loaded when the result has one. */
  runWithOptionalSource<R>(
    task: TypedToolTask,
    signal: AbortSignal,
    tool: FramedTool<R, SourceImage | null>,
  ): Promise<ToolOutput> {
    return this.framed(task, signal, tool, async () => (task.sourceImageUrl ? this.sources.load(task, signal) : null));
  }

  private async framed<R, S extends SourceImage | null>(
    task: TypedToolTask,
    signal: AbortSignal,
    tool: FramedTool<R, S>,
    load: () => Promise<S>,
  ): Promise<ToolOutput> {
    const request = tool.request(task);
    const source = await load();
    const limits = resultLimits(this.config, signal, this.engine);
    const encoded = await this.budget
      .run(tool.pixels(source, request), () => {
        signal.throwIfAborted();
        return tool.pipeline({ task, request, source, limits });
      })
      .catch((error: unknown) => {
        throw asResultFailure(error);
      });
    return { ...encoded, format: task.format };
  }
}
