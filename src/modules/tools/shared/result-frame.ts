import { performance } from 'node:perf_hooks';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { PIXEL_ENGINE } from '../../../core/engine/engine.module';
import { readCarriedMetadata, type CarriedMetadata } from '../../../core/image/metadata/carried-metadata';
import { PixelBudget } from '../../../core/image/pixel-budget';
import { encodeSourcePreview } from '../../../core/image/pipeline-steps';
import { JobMetrics } from '../../../core/metrics/job.metrics';
import type { PixelEngine } from '../../../engine/pixel-engine';
import type { SourceImage } from '../../../core/image/source-image';
import type { ToolId } from '../../catalog/tools';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import { fileChoicesOf, type ToolOutput, type ToolRunner, type TypedToolTask } from '../tool-runner';
import { asResultFailure } from './failure-translation';
import { resultLimits, type PipelineLimits } from './pipeline-limits';
import { SourceLoader } from './source-loader';
import { resultChoicesOf, runPipeline, type ToolContext, type ToolPipeline, type ToolStep } from './tool-steps';

/** The pipeline a runner runs, and the tools whose results may run on it. */
export interface PipelineOf<T extends ToolId = ToolId> {
  /** Its name in the refusal of any other tool ("does not run on the image editing pipeline"). */
  name: string;
  tools: readonly T[];
}

/** A task of one of the tools `T`. */
export type TaskOf<T extends ToolId> = TypedToolTask & { tool: T };

/** A result's typed request and what its steps run with, both checked before the download. */
export interface PreparedRequest<R, D> {
  request: R;
  dependencies: D;
}

/**
 * A tool as the frame runs it. The frame's order is fixed:
 *
 * 1. a task of a tool that does not run on `runs` is refused (refuseOtherTools);
 * 2. `prepare`: the result's typed request and the tool's dependencies; what this deployment
 *    cannot do is refused here, before the download, since nothing about the source could change
 *    the answer;
 * 3. the source downloaded, checked to be an image and within the pixel limit (SourceLoader);
 * 4. `pixels`: how many pixels the tool holds at once, its share of the worker's PixelBudget;
 * 5. within that share, what the result keeps of the source's metadata (`output.metadata`
 *    `keep`), read in the engine's threads, each block within its bounds or left out (and logged);
 * 6. `pipeline`: the tool's named steps in order over one ToolContext, from
 *    decoding to the encoded image and its thumbnail, the signal checked before each step;
 * 7. any failure on the way translated into the result's error code.
 *
 * `S` is null for a tool that may run without a source (a generation without a reference image).
 */
export interface FramedTool<T extends ToolId, R, D, W, S extends SourceImage | null = SourceImage> {
  readonly runs: PipelineOf<T>;
  prepare(task: TaskOf<T>): PreparedRequest<R, D>;
  pixels(source: S, request: R): number;
  readonly pipeline: ToolPipeline<ToolContext<R, D, S>, W>;
}

/** Refuses a task whose tool does not run on `pipeline`: written once, for every runner. */
export function refuseOtherTools<T extends ToolId>(
  task: TypedToolTask,
  pipeline: PipelineOf<T>,
): asserts task is TaskOf<T> {
  if (!(pipeline.tools as readonly ToolId[]).includes(task.tool)) {
    throw new ResultFailure(
      ResultErrorCode.ProcessingFailed,
      `The ${task.tool} tool does not run on the ${pipeline.name} pipeline.`,
    );
  }
}

/** The frame every live tool's result runs in (see FramedTool for its order). */
@Injectable()
export class ResultFrame {
  private readonly logger = new Logger(ResultFrame.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sources: SourceLoader,
    private readonly budget: PixelBudget,
    @Inject(PIXEL_ENGINE) private readonly engine: PixelEngine,
    private readonly metrics: JobMetrics,
  ) {}

  /** The worker's runner of `tool`, whose results are made from their source images, each in this frame. */
  runnerOf<T extends ToolId, R, D, W>(tool: FramedTool<T, R, D, W>): ToolRunner {
    return { run: (task, signal) => this.framed(task, signal, tool, () => this.sources.load(task, signal)) };
  }

  /** The worker's runner of `tool`, whose source image is optional: loaded when the result has one. */
  runnerWithOptionalSourceOf<T extends ToolId, R, D, W>(tool: FramedTool<T, R, D, W, SourceImage | null>): ToolRunner {
    return {
      run: (task, signal) =>
        this.framed(task, signal, tool, async () => (task.sourceImageUrl ? this.sources.load(task, signal) : null)),
    };
  }

  private async framed<T extends ToolId, R, D, W, S extends SourceImage | null>(
    task: TypedToolTask,
    signal: AbortSignal,
    tool: FramedTool<T, R, D, W, S>,
    load: () => Promise<S>,
  ): Promise<ToolOutput> {
    refuseOtherTools(task, tool.runs);
    const { request, dependencies } = tool.prepare(task);
    const timed = <V>(step: string, work: () => Promise<V>) => this.timed(task.tool, step, work);
    const source = await timed('source', load);
    const limits = resultLimits(this.config, signal, this.engine);
    const pipeline = { ...tool.pipeline, steps: tool.pipeline.steps.map((step) => this.timedStep(task.tool, step)) };
    const encoded = await this.budget
      .run(tool.pixels(source, request), async () => {
        signal.throwIfAborted();
        const choices = resultChoicesOf(task, await timed('metadata', () => this.carriedMetadata(task, source)));
        const result = await runPipeline(pipeline, { request, source, limits, dependencies, signal, choices });
        signal.throwIfAborted();
        return {
          ...result,
          sourcePreview: await timed('source_preview', () => this.sourcePreview(task, source, limits)),
        };
      })
      .catch((error: unknown) => {
        throw asResultFailure(error);
      });
    return { ...encoded, format: task.format };
  }

  /**
   * The preview of the source the result was made from, within the result's pixel share (after the
   * pipeline, so the two decodes never hold their pixels at once). The result is what was paid
   * for: a preview that cannot be made is logged and left out, and the result still completes.
   */
  private async sourcePreview(
    task: TypedToolTask,
    source: SourceImage | null,
    limits: PipelineLimits,
  ): Promise<Buffer | undefined> {
    if (!source) return undefined;
    try {
      return await encodeSourcePreview(source, limits);
    } catch (error) {
      limits.signal.throwIfAborted();
      this.logger.warn({ result_id: task.resultId, job_id: task.jobId, err: error }, 'no preview of the source');
      return undefined;
    }
  }

  /** `work`, its time recorded as `step` of the tool's results (imgjobs_result_step_seconds), however it ends. */
  private async timed<V>(tool: ToolId, step: string, work: () => Promise<V>): Promise<V> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.metrics.resultStep(tool, step, (performance.now() - started) / 1000);
    }
  }

  /** A pipeline step timed under its function's name. */
  private timedStep<C, W>(tool: ToolId, step: ToolStep<C, W>): ToolStep<C, W> {
    return (context, work) => this.timed(tool, step.name, async () => step(context, work));
  }

  /**
   * What the result keeps of its source's metadata, when the client keeps it. A block left out,
   * and a colour profile the source's pixels are not converted by, are logged: the result still
   * completes, and the client sees only that its file does not carry them.
   */
  private async carriedMetadata(task: TypedToolTask, source: SourceImage | null): Promise<CarriedMetadata | null> {
    if (!source) return null;
    const ids = { result_id: task.resultId, job_id: task.jobId };
    if (source.unusedProfile) {
      this.logger.warn({ ...ids, reason: source.unusedProfile }, "the source's ICC profile is not applied");
    }
    if (fileChoicesOf(task).metadata !== 'keep') return null;
    const { carried, dropped } = await readCarriedMetadata(source, task.format, this.engine);
    for (const reason of dropped) this.logger.warn({ ...ids, reason }, 'a metadata block is left out of the result');
    return carried;
  }
}
