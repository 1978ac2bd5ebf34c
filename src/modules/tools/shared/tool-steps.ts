import type { CarriedMetadata } from '../../../core/image/metadata/carried-metadata';
import type { SourceImage } from '../../../core/image/source-image';
import type { SubjectHints } from '../../../engine/mask/subject-hints';
import { resultOutputOf, variantOf, type ResultOutput, type TypedToolTask } from '../tool-runner';
import type { EncodedImage } from './encoding';
import type { PipelineLimits } from './pipeline-limits';

/** What the client chose for this one result, the same for every tool. */
export interface ResultChoices {
  /** Which of its source's `number_of_images` variants the result is (0 for the first). */
  variant: number;
  /** Where the client says the product is in the source (NO_HINTS when it said nothing). */
  hints: SubjectHints;
  /** The result's format and file choices. */
  output: ResultOutput;
  /** What the result's file keeps of its source's metadata (`output.metadata` `keep`); null for nothing. */
  carried: CarriedMetadata | null;
}

/** A task's per-result choices, with what its file keeps of the source's metadata. */
export function resultChoicesOf(task: TypedToolTask, carried: CarriedMetadata | null): ResultChoices {
  return { variant: variantOf(task), hints: task.subjectHints, output: resultOutputOf(task), carried };
}

/**
 * What every step of a tool runs over: its typed request, the result's source (null for a tool
 * that may run without one), the limits, what the tool runs with (segmenter, upscaler,
 * provider...), the result's abort signal and its per-result choices.
 */
export interface ToolContext<R, D, S extends SourceImage | null = SourceImage> {
  request: R;
  source: S;
  limits: PipelineLimits;
  dependencies: D;
  /** Aborts when the result is cancelled or out of time; the same signal as `limits.signal`. */
  signal: AbortSignal;
  choices: ResultChoices;
}

/**
 * One named step of a pipeline: the working state after it, from the context and the state
 * before it. A step that does not apply to the request returns the state unchanged. Steps are
 * named functions, so a list of them reads as the pipeline's order and `step.name` names one.
 */
export type ToolStep<C, W> = (context: C, work: W) => W | Promise<W>;

/** A tool's pipeline: its working state before the first step, its steps in order, and what the last one leaves. */
export interface ToolPipeline<C, W> {
  /** What is planned from the request and the source's header, before any pixel is decoded. */
  start(context: C): W;
  steps: readonly ToolStep<C, W>[];
  /** The encoded result in the state the last step left. */
  result(work: W): EncodedImage;
}

/** Runs `steps` in order from `work`, stopping with the signal's reason before any step once it has aborted. */
export async function runSteps<C extends { signal: AbortSignal }, W>(
  steps: readonly ToolStep<C, W>[],
  context: C,
  work: W,
): Promise<W> {
  let state = work;
  for (const step of steps) {
    context.signal.throwIfAborted();
    state = await step(context, state);
  }
  return state;
}

/** A pipeline run over one context: its start, its steps, its result. */
export async function runPipeline<C extends { signal: AbortSignal }, W>(
  pipeline: ToolPipeline<C, W>,
  context: C,
): Promise<EncodedImage> {
  return pipeline.result(await runSteps(pipeline.steps, context, pipeline.start(context)));
}

/** A working state's member that an earlier step fills; missing only when the steps are out of order. */
export function made<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`No ${what} yet: the steps run out of order`);
  return value;
}
