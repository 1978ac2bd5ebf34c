import { Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Cutout, SubjectHints } from '../../engine/mask/subject-hints';
import type { RawImage } from '../image/raw-image';
import type { PixelEngine } from '../../engine/pixel-engine';
import type { SegmentationMetrics } from '../metrics/segmentation.metrics';
import { prepareIsnetModel } from './isnet-model';
import { IsnetSession } from './isnet-session';
import { SegmentationError, type Segmenter } from './segmenter';

export interface LocalSegmenterSettings {
  modelsDir: string;
  inputSize: number;
  threads: number;
}

/** A tiny image run once after the session opens, so the first real result does not pay for first-run allocations. */
const WARM_UP_IMAGE: RawImage = { data: Buffer.alloc(64 * 64 * 3, 200), width: 64, height: 64, channels: 3 };

/**
 * The ISNet model on this process's CPU: the model is prepared (or found prepared) and its one
 * session opened on first need or at the worker's start, then kept for the life of the process.
 * The session runs one inference at a time with SEGMENTATION_THREADS threads, so running
 * several results at once overlaps their downloads and pixel work, never multiplies the
 * model's memory. Our own post-processing (subject selection, hole filling, edge-aware
 * upsampling) turns its probabilities into the mask, in the image engine's threads.
 */
export class LocalSegmenter implements Segmenter, OnModuleDestroy {
  private readonly logger = new Logger(LocalSegmenter.name);
  private session: Promise<IsnetSession> | null = null;

  constructor(
    private readonly settings: LocalSegmenterSettings,
    private readonly metrics: SegmentationMetrics,
    private readonly engine: PixelEngine,
  ) {}

  async ready(): Promise<void> {
    await this.open();
  }

  async segment(image: RawImage, signal: AbortSignal, hints?: SubjectHints): Promise<Cutout> {
    const session = await this.open();
    signal.throwIfAborted();
    const { map, pixels, timings } = await session.probability(image);
    this.metrics.inferred(timings.inferenceMs / 1000);
    signal.throwIfAborted();
    // The probabilities and the model's view of the photo are this call's own, so they are given, not copied.
    return this.engine.run('subjectMask', [map, pixels, image, hints], [map, pixels]);
  }

  async onModuleDestroy(): Promise<void> {
    const session = this.session;
    this.session = null;
    await session?.then((opened) => opened.release()).catch(() => undefined);
  }

  /** The one session, opened once; a failed opening is forgotten, so the next result tries again. */
  private open(): Promise<IsnetSession> {
    this.session ??= this.start().catch((error: unknown) => {
      this.session = null;
      this.logger.error({ err: error }, 'the segmentation model could not be loaded');
      throw new SegmentationError(`The background removal model could not be loaded: ${String(error)}`, true);
    });
    return this.session;
  }

  private async start(): Promise<IsnetSession> {
    const started = Date.now();
    const model = await prepareIsnetModel({ modelsDir: this.settings.modelsDir, inputSize: this.settings.inputSize });
    const session = await IsnetSession.open(model, { intraOpThreads: this.settings.threads });
    await session.probability(WARM_UP_IMAGE);
    this.logger.log(
      { model: model.path, inputSize: model.inputSize, ms: Date.now() - started },
      'segmentation model ready',
    );
    return session;
  }
}
