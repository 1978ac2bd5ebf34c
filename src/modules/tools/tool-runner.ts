import { UnrecoverableError } from 'bullmq';
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
  format: OutputFormat;
  options: Record<string, unknown>;
}

export interface ToolOutput {
  image: Buffer;
  format: OutputFormat;
}

/** The worker's tool step: the sandbox simulator now, provider-backed pipelines behind it later. */
export interface ToolRunner {
  run(task: ToolTask): Promise<ToolOutput>;
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
