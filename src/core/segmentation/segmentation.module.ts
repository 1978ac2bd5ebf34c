import { Inject, Injectable, Logger, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { EngineModule, PIXEL_ENGINE } from '../engine/engine.module';
import { HealthModule } from '../health/health.module';
import type { PixelEngine } from '../../engine/pixel-engine';
import { HealthService, type CheckState } from '../health/health.service';
import { SegmentationMetrics } from '../metrics/segmentation.metrics';
import { OutboundHttps } from '../outbound/outbound-https';
import { LocalSegmenter } from './local-segmenter';
import { RemoteSegmenter } from './remote-segmenter';
import { SEGMENTATION_MODELS, type ConfiguredModels } from './segmentation-models';
import { SEGMENTER, type Segmenter } from './segmenter';

const WARM_UP_RETRY_MS = 30_000;

function segmenterFor(
  config: AppConfig,
  models: ConfiguredModels,
  outbound: OutboundHttps,
  metrics: SegmentationMetrics,
  engine: PixelEngine,
): Segmenter | null {
  switch (config.SEGMENTER) {
    case 'local':
      return new LocalSegmenter(
        {
          modelsDir: config.MODELS_DIR,
          threads: config.SEGMENTATION_THREADS,
          providers: config.SEGMENTATION_PROVIDERS,
        },
        models,
        metrics,
        engine,
      );
    case 'remote': {
      // The configuration schema requires SEGMENTER_URL when SEGMENTER is remote.
      const url = new URL(config.SEGMENTER_URL as string);
      return new RemoteSegmenter(
        { url, timeoutSeconds: config.SEGMENTER_TIMEOUT_SECONDS, model: config.SEGMENTER_MODEL },
        outbound.operatorDestination(url),
      );
    }
    case 'none':
      return null;
  }
}

/**
 * The configured segmenter, over the configured models (SegmentationModelsModule). Creating it
 * loads nothing: the local models load on first use, or at a worker's start through
 * SegmenterWarmUp, so an API process never loads one.
 */
@Module({
  imports: [EngineModule],
  providers: [
    {
      provide: SEGMENTER,
      inject: [APP_CONFIG, SEGMENTATION_MODELS, OutboundHttps, SegmentationMetrics, PIXEL_ENGINE],
      useFactory: segmenterFor,
    },
  ],
  exports: [SEGMENTER],
})
export class SegmentationModule {}

/**
 * A worker that consumes the background-removal queue warms the segmenter as it starts (every
 * model it serves, each checked first) and is not ready (`/health/ready` answers 503 with
 * `segmenter: starting`, or `down` after a refusal) until it is: the first result it takes does
 * not wait for a model, and an orchestrator sees a slow, failed or refused model load. Other
 * workers (the processing queue's `image_editing` background operations) load a model on first use.
 */
@Injectable()
export class SegmenterWarmUp implements OnApplicationBootstrap {
  private readonly logger = new Logger(SegmenterWarmUp.name);
  private state: CheckState = 'starting';

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SEGMENTER) private readonly segmenter: Segmenter | null,
    private readonly health: HealthService,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.segmenter) return;
    const { segmenter } = this;
    // Which provider each served model runs on (null until it is loaded): `/health` says it plainly.
    if (segmenter.servedModels) this.health.addFact('segmentation_models', () => segmenter.servedModels?.());
    if (!this.config.WORKER_QUEUES.includes('background-removal')) return;
    this.health.addCheck('segmenter', () => this.state);
    // Not awaited: the health port must answer (live, not ready) while the model loads.
    this.warm(this.segmenter);
  }

  /** Tries again every WARM_UP_RETRY_MS after a failure, so a transient problem does not leave the worker unready. */
  private warm(segmenter: Segmenter): void {
    segmenter.ready().then(
      () => (this.state = 'up'),
      (error: unknown) => {
        this.state = 'down';
        // The model that failed logged why, in one line of its own.
        this.logger.error({ err: error }, 'the segmenter is not available; trying again shortly');
        setTimeout(() => this.warm(segmenter), WARM_UP_RETRY_MS).unref();
      },
    );
  }
}

/** The warm-up, for the worker role only. */
@Module({ imports: [SegmentationModule, HealthModule], providers: [SegmenterWarmUp] })
export class SegmentationWorkerModule {}
