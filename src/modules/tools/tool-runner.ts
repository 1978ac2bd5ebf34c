import type { SubjectHints } from '../../core/image/mask/subject-hints';
import type { ToolId } from '../catalog/tools';
import type { StoredOutput, ToolOptions } from './tool-options';

export type OutputFormat = 'jpg' | 'png' | 'webp';

/** One result's work as its job stored it: the tool's options as the jsonb column gives them back. */
export interface ToolTask {
  jobId: string;
  resultId: string;
  tool: ToolId;
  sandbox: boolean;
  index: number;
  sourceImageUrl: string | null;
  externalId: string | null;
  /**
   * Where the client says the product is in the source (NO_HINTS when it said nothing); for the tools that cut it out.
   */
  subjectHints: SubjectHints;
  format: OutputFormat;
  options: Record<string, unknown>;
}

/** Everything a tool needs to produce one result, its options typed by its tool. */
export type TypedToolTask = Omit<ToolTask, 'tool' | 'options'> & ToolOptions;

/**
 * A stored task with its options typed. The jsonb column holds what the create builders wrote
 * for the job's tool (jobs/dto/job-request.ts), so the type is restored here, once, for every
 * runner; members added after a job was stored are optional in ToolOptions.
 */
export function typedTask(task: ToolTask): TypedToolTask {
  return task as TypedToolTask;
}

export interface ToolOutput {
  image: Buffer;
  format: OutputFormat;
  /** The 256 px WebP thumbnail, when the tool made it from its own pixels; otherwise it is derived from `image`. */
  thumbnail?: Buffer;
  /**
   * For a result that is a cut-out (remove_background, a background edit), how unsure the
   * segmenter was of it, from 0 (sure) to 1; absent for every other result.
   */
  uncertainty?: number;
}

/** The worker's tool step: the sandbox simulator, or a live pipeline. */
export interface ToolRunner {
  /** `signal` aborts when the result's time limit is reached; a runner stops as soon as it can. */
  run(task: TypedToolTask, signal: AbortSignal): Promise<ToolOutput>;
}

/**
 * Which of a source's `number_of_images` variants a result is (0 for the first). Results are
 * indexed source by source, so the variant is the index within its source's run.
 */
export function variantOf(task: { index: number; options: { output: StoredOutput } }): number {
  const perSource = task.options.output.number_of_images;
  return perSource > 1 ? task.index % perSource : 0;
}
