import type { OutputFormat } from '../../core/image/output-format';
import type { SegmentationReport } from '../../engine/mask/segmentation-report';
import type { SubjectHints } from '../../engine/mask/subject-hints';
import type { ToolId } from '../catalog/tools';
import type { MetadataChoice, StoredOutput, ToolOptions } from './tool-options';

/** How a result's file is written beyond its format: `output.quality`, `output.dpi` and `output.metadata`. */
export interface FileChoices {
  /** 1 to 100 for jpg and webp; null for the encoder's default. */
  quality: number | null;
  /** Pixels per inch written into the file; null for none. */
  dpi: number | null;
  metadata: MetadataChoice;
  /** A lossless webp (the quality then does not apply); false for every other format. */
  lossless: boolean;
}

/** A result's format and file choices. */
export interface ResultOutput {
  format: OutputFormat;
  file: FileChoices;
}

/** One result's work as its job stored it: the tool's options as the jsonb column gives them back. */
export interface ToolTask {
  jobId: string;
  resultId: string;
  /** Whose job it is: an uploaded source (`upload://`) is read only for its own account. */
  accountId: string;
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
   * The WebP preview of the source the tool read (pipeline-steps `encodeSourcePreview`), shown as
   * the result's original; absent for a result made without a source image.
   */
  sourcePreview?: Buffer;
  /**
   * For a result that is a cut-out (remove_background, a background edit), how unsure the
   * segmenter was of it, from 0 (sure) to 1; absent for every other result.
   */
  uncertainty?: number;
  /**
   * For a result that is a cut-out, which model made its mask (and its weights' version) and
   * which version of our mask post-processing; absent for every other result.
   */
  segmentation?: SegmentationReport;
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

/** A task's format and file choices. */
export function resultOutputOf(task: Pick<ToolTask, 'format'> & { options: { output: StoredOutput } }): ResultOutput {
  return { format: task.format, file: fileChoicesOf(task) };
}

/** The choices of a request that makes none: the encoder's quality, no dpi, metadata stripped. */
export const DEFAULT_FILE_CHOICES: FileChoices = { quality: null, dpi: null, metadata: 'strip', lossless: false };

/** A task's file choices; jobs stored before they existed have none, so they get DEFAULT_FILE_CHOICES. */
export function fileChoicesOf(task: { options: { output: StoredOutput } }): FileChoices {
  const { quality, dpi, metadata, lossless } = task.options.output;
  return {
    quality: quality ?? DEFAULT_FILE_CHOICES.quality,
    dpi: dpi ?? DEFAULT_FILE_CHOICES.dpi,
    metadata: metadata ?? DEFAULT_FILE_CHOICES.metadata,
    lossless: lossless ?? DEFAULT_FILE_CHOICES.lossless,
  };
}
