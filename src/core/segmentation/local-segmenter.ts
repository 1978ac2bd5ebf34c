import { Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Cutout, SubjectHints } from '../../engine/mask/subject-hints';
import type { RawImage } from '../../engine/raw-image';
import type { PixelEngine } from '../../engine/pixel-engine';
import type { SegmentationMetrics } from '../metrics/segmentation.metrics';
import type { Piscina } from 'piscina';
import { MASK_POST_PROCESSING_VERSION } from '../../engine/mask/post-processing-version';
import { revived } from '../../engine/transfer';
import { startSingleThread, threadModule } from '../../engine/thread-module';
import type { ProviderName } from './execution-providers';
import { prepareIsnetModel } from './isnet-model';
import type { ModelPlan } from './model-checks';
import type { ModelManifest } from './model-manifest';
import type { ProbabilityResult } from './model-session';
import type { ModelSettings, ModelTask, OpenedModel } from './model-thread';
import { reportedVersion, type ConfiguredModels } from './segmentation-models';
import type { SegmentationReport } from '../../engine/mask/segmentation-report';
import { SegmentationError, type Segmenter, type ServedModel } from './segmenter';

export interface LocalSegmenterSettings {
  modelsDir: string;
  threads: number;
  providers: ProviderName[];
}

/**
 * The configured models on this process's CPU (or GPU): each served model is prepared where it
 * is the shipped one, checked and opened on first need or at the worker's start, then kept for
 * the life of the process, all in one thread of their own (see model-thread.ts: an inference
 * holds the thread that runs it). A session runs one inference at a time with
 * SEGMENTATION_THREADS threads, so running several results at once overlaps their downloads and
 * pixel work, never multiplies a model's memory. Our own post-processing (subject selection,
 * hole filling, edge-aware upsampling) turns its probabilities into the mask, in the image
 * engine's threads.
 */
export class LocalSegmenter implements Segmenter, OnModuleDestroy {
  private readonly logger = new Logger(LocalSegmenter.name);
  private thread: Piscina<ModelTask, unknown> | null = null;
  private readonly opening = new Map<string, Promise<ModelSettings>>();
  /** The provider each served model opened on, once it has. */
  private readonly providers = new Map<string, string>();

  constructor(
    private readonly settings: LocalSegmenterSettings,
    private readonly models: ConfiguredModels,
    private readonly metrics: SegmentationMetrics,
    private readonly engine: PixelEngine,
  ) {}

  /** Opens and checks every served model; rejects when any of them cannot be served. */
  async ready(): Promise<void> {
    for (const name of this.models.served) await this.open(name);
  }

  async segment(image: RawImage, signal: AbortSignal, hints?: SubjectHints, model?: string): Promise<Cutout> {
    const name = model ?? this.models.defaultModel.name;
    if (!this.models.served.includes(name)) {
      throw new SegmentationError(`The model ${name} is not served here.`, false);
    }
    const settings = await this.open(name);
    signal.throwIfAborted();
    // The image is copied to the model's thread: the caller still composes the cut-out from it.
    const { map, pixels, timings } = revived(
      (await this.modelThread().run({
        kind: 'probability',
        image,
        ...settings,
      } satisfies ModelTask)) as ProbabilityResult,
    );
    this.metrics.inferred(timings.inferenceMs / 1000);
    signal.throwIfAborted();
    // The probabilities and the model's view of the photo are this call's own, so they are given, not copied.
    const subject = await this.engine.run('subjectMask', [map, pixels, image, hints], [map, pixels]);
    return { ...subject, segmentation: this.reportOf(name) };
  }

  servedModels(): ServedModel[] {
    return this.models.served.map((model) => ({ model, provider: this.providers.get(model) ?? null }));
  }

  async onModuleDestroy(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    this.opening.clear();
    if (!thread) return;
    await thread
      .run({ kind: 'release' } satisfies ModelTask)
      .then(() => thread.close())
      .catch(() => undefined);
  }

  /** What a cut-out of `name` reports: its name, its weights and our post-processing. */
  private reportOf(name: string): SegmentationReport {
    const info = this.models.byName(name);
    return {
      model: name,
      version: info ? reportedVersion(info) : null,
      postProcessingVersion: MASK_POST_PROCESSING_VERSION,
    };
  }

  private modelThread(): Piscina<ModelTask, unknown> {
    this.thread ??= startSingleThread<ModelTask>(threadModule(__dirname, __filename, 'model-thread'));
    return this.thread;
  }

  /** The served model `name` checked and opened in the thread, once; a failed opening is forgotten and tried again. */
  private open(name: string): Promise<ModelSettings> {
    let opening = this.opening.get(name);
    if (!opening) {
      opening = this.start(name).catch((error: unknown) => {
        this.opening.delete(name);
        // One line that names the model, its manifest and what is wrong (the refusal's message).
        this.logger.error({ model: name, err: error }, (error as Error).message);
        throw new SegmentationError('The background removal model could not be loaded.', true, false, { cause: error });
      });
      this.opening.set(name, opening);
    }
    return opening;
  }

  private async start(name: string): Promise<ModelSettings> {
    const started = Date.now();
    // A served model of a local configuration always has a manifest (only a remote model has none).
    const manifest = this.models.manifest(name) as ModelManifest;
    const settings: ModelSettings = {
      plan: await this.planOf(manifest),
      intraOpThreads: this.settings.threads,
      providers: this.settings.providers,
    };
    const opened = (await this.modelThread().run({ kind: 'open', ...settings } satisfies ModelTask)) as OpenedModel;
    for (const warning of opened.warnings) this.logger.warn({ model: name }, `model ${name}: ${warning}`);
    this.providers.set(name, opened.provider);
    this.logger.log(
      {
        model: name,
        provider: opened.provider,
        weights: settings.plan.weightsPath,
        inputSize: this.models.byName(name)?.inputSize,
        ms: Date.now() - started,
      },
      `segmentation model ${name} ready on ${opened.provider}`,
    );
    return settings;
  }

  /** Where the model's weights are: the shipped ISNet is prepared (or found prepared) at its input size first. */
  private async planOf(manifest: ModelManifest): Promise<ModelPlan> {
    if (manifest.weights.kind === 'file') return { manifest, weightsPath: manifest.weights.path };
    const prepared = await prepareIsnetModel({
      modelsDir: this.settings.modelsDir,
      // The manifest refuses the shipped weights with a dynamic size.
      inputSize: manifest.input.size as number,
    });
    return { manifest, weightsPath: prepared.path };
  }
}
