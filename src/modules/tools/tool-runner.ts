import { UnrecoverableError } from 'bullmq';
import type { SubjectHints } from '../../core/image/mask/subject-hints';
import type { ToolId } from '../catalog/tools';
import type { ResultErrorCode } from '../jobs/job-status';

export type OutputFormat = 'jpg' | 'png' | 'webp';

/** Everything a tool needs to produce one result. */
export interface ToolTask {
  jobId: string;
  resultId: string;
  tool: ToolId;
  sandbox: boolean;
  index: number;
  sourceImageUrl: string | null;
  externalId: string | null;
  /** Where the client says the product is in the source (NO_HINTS when it said nothing); for the tools that cut it out. */
  subjectHints: SubjectHints;
  format: OutputFormat;
  options: Record<string, unknown>;
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
  run(task: ToolTask, signal: AbortSignal): Promise<ToolOutput>;
}

/**
 * Which of a source's `number_of_images` variants a result is (0 for the first). Results are
 * indexed source by source, so the variant is the index within its source's run.
 */
export function variantOf(task: Pick<ToolTask, 'index' | 'options'>): number {
  const perSource = (task.options.output as { number_of_images?: unknown } | undefined)?.number_of_images;
  return typeof perSource === 'number' && perSource > 1 ? task.index % perSource : 0;
}

/**
 * A failure that retrying cannot fix (a source that is not an image, a simulated failure).
 * BullMQ fails the job at once; the code is what the client sees on the result.
 */
export class ResultFailure extends UnrecoverableError {
  constructor(
    readonly code: ResultErrorCode,
    message: string,
  ) {
    super(message);
    this.name = ResultFailure.name;
  }
}

/**
 * A failure that may pass (a source answering 503, a reset connection): BullMQ retries with
 * backoff, and if the last attempt fails too, the result fails with this code.
 */
export class TransientResultFailure extends Error {
  constructor(
    readonly code: ResultErrorCode,
    message: string,
  ) {
    super(message);
    this.name = TransientResultFailure.name;
  }
}
