import { Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Cutout, SubjectHints } from '../../engine/mask/subject-hints';
import type { RawImage } from '../image/raw-image';
import type { PixelEngine } from '../../engine/pixel-engine';
import type { SegmentationMetrics } from '../metrics/segmentation.metrics';
import type { Piscina } from 'piscina';
import { MASK_POST_PROCESSING_VERSION } from '../../engine/mask/post-processing-version';
import { revived } from '../../engine/transfer';
import { startSingleThread, threadModule } from '../../engine/thread-module';
import { prepareIsnetModel, type PreparedModel } from './isnet-model';
import type { ProbabilityResult } from './isnet-session';
import type { IsnetSettings, IsnetTask } from './isnet-thread';
import type { SegmentationReport } from './segmentation-report';
import { SegmentationError, type Segmenter } from './segmenter';

export interface LocalSegmenterSettings {
  modelsDir: string;
  inputSize: number;
  threads: number;
}

/** The thread that holds the model's session, and the session it opens there. */
interface IsnetThread {
  pool: Piscina<IsnetTask, unknown>;
  settings: IsnetSettings;
}

/** What a cut-out of the loaded model reports: its name, its weights and our post-processing. */
function reportOf(model: PreparedModel): SegmentationReport {
  return { model: model.name, version: model.weights, postProcessingVersion: MASK_POST_PROCESSING_VERSION };
}

/**
 * The ISNet model on this process's CPU: the model is prepared (or found prepared) and its one
 * session opened on first need or at the worker's start, then kept for the life of the process,
 * in a thread of its own (see isnet-thread.ts: an inference holds the thread that runs it). The
 * session runs one inference at a time with SEGMENTATION_THREADS threads, so running several
 * results at once overlaps their downloads and pixel work, never multiplies the model's memory.
 * Our own post-processing (subject selection, hole filling, edge-aware upsampling) turns its
 * probabilities into the mask, in the image engine's threads.
 */
export class LocalSegmenter implements Segmenter, OnModuleDestroy {
  private readonly logger = new Logger(LocalSegmenter.name);
  private thread: Promise<IsnetThread> | null = null;

  constructor(
    private readonly settings: LocalSegmenterSettings,
    private readonly metrics: SegmentationMetrics,
    private readonly engine: PixelEngine,
  ) {}

  async ready(): Promise<void> {
    await this.open();
  }

  async segment(image: RawImage, signal: AbortSignal, hints?: SubjectHints): Promise<Cutout> {
    const { pool, settings } = await this.open();
    signal.throwIfAborted();
    // The image is copied to the model's thread: the caller still composes the cut-out from it.
    const { map, pixels, timings } = revived(
      (await pool.run({ kind: 'probability', image, ...settings } satisfies IsnetTask)) as ProbabilityResult,
    );
    this.metrics.inferred(timings.inferenceMs / 1000);
    signal.throwIfAborted();
    // The probabilities and the model's view of the photo are this call's own, so they are given, not copied.
    const subject = await this.engine.run('subjectMask', [map, pixels, image, hints], [map, pixels]);
    return { ...subject, segmentation: reportOf(settings.model) };
  }

  async onModuleDestroy(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    await thread
      ?.then(async ({ pool }) => {
        await pool.run({ kind: 'release' } satisfies IsnetTask);
        await pool.close();
      })
      .catch(() => undefined);
  }

  /** The model's thread with its session open, started once; a failed start is forgotten and tried again. */
  private open(): Promise<IsnetThread> {
    this.thread ??= this.start().catch((error: unknown) => {
      this.thread = null;
      this.logger.error({ err: error }, 'the segmentation model could not be loaded');
      throw new SegmentationError('The background removal model could not be loaded.', true, false, { cause: error });
    });
    return this.thread;
  }

  private async start(): Promise<IsnetThread> {
    const started = Date.now();
    const model = await prepareIsnetModel({ modelsDir: this.settings.modelsDir, inputSize: this.settings.inputSize });
    const pool = startSingleThread<IsnetTask>(threadModule(__dirname, __filename, 'isnet-thread'));
    const settings = { model, intraOpThreads: this.settings.threads };
    try {
      await pool.run({ kind: 'open', ...settings } satisfies IsnetTask);
    } catch (error) {
      await pool.close();
      throw error;
    }
    this.logger.log(
      { model: model.path, inputSize: model.inputSize, ms: Date.now() - started },
      'segmentation model ready',
    );
    return { pool, settings };
  }
}
