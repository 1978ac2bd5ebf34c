import { Logger, type OnModuleDestroy } from '@nestjs/common';
import { Mutex } from 'async-mutex';
import type { RawImage } from '../image/raw-image';
import { prepareEsrganModel, type ModelScale } from './esrgan-model';
import { EsrganSession } from './esrgan-session';
import { enlargeTiled, type TilingOptions } from './tiled-enlargement';
import { UpscalingError, type Upscaler } from './upscaler';

export interface LocalUpscalerSettings {
  modelsDir: string;
  threads: number;
}

/**
 * Context around each tile, in input pixels. A pixel of the models' output depends on the input
 * within 10 pixels of it: seven 3 x 3 and one 5 x 5 convolution at the input's resolution (9
 * pixels), and one 3 x 3 convolution after the nearest-neighbour upsampling (at most 1 more); 2
 * more are a margin, should a model of the family reach a little further.
 */
export const TILE_OVERLAP = 12;

/**
 * Each tile's own part is this many output pixels a side (384 input pixels for x2, 192 for x4):
 * the models' widest activation is at the output's resolution (48 channels at x4), so bounding the
 * output side bounds a tile's memory (about 200 MB) for both scales, while the overlap adds a
 * quarter at most to the work.
 */
const TILE_OUTPUT_SIDE = 768;

/** How one scale's image is cut into tiles. */
export function tilingFor(scale: ModelScale, signal?: AbortSignal): TilingOptions {
  return { tileSide: TILE_OUTPUT_SIDE / scale, overlap: TILE_OVERLAP, signal };
}

/**
 * The slim ESRGAN models on this process's CPU. Each scale's model is prepared (or found prepared)
 * and its session opened on first use, then kept for the life of the process: an API process,
 * which never enlarges anything, never loads them. Tiles run one at a time across every result of
 * the process with UPSCALER_THREADS threads, so several results enlarging at once share the cores
 * tile by tile and never hold more than one tile's activations.
 */
export class LocalUpscaler implements Upscaler, OnModuleDestroy {
  private readonly logger = new Logger(LocalUpscaler.name);
  private readonly sessions = new Map<ModelScale, Promise<EsrganSession>>();
  private readonly tiles = new Mutex();

  constructor(private readonly settings: LocalUpscalerSettings) {}

  async enlarge(image: RawImage, scale: ModelScale, signal: AbortSignal): Promise<RawImage> {
    const session = await this.open(scale);
    signal.throwIfAborted();
    return enlargeTiled(
      image,
      scale,
      (tile, width, height) => this.tiles.runExclusive(() => session.enlarge(tile, width, height)),
      tilingFor(scale, signal),
    );
  }

  /** The session of one scale, for a caller that times it alone (the benchmark). */
  session(scale: ModelScale): Promise<EsrganSession> {
    return this.open(scale);
  }

  async onModuleDestroy(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await this.tiles.runExclusive(() =>
      Promise.all(sessions.map((session) => session.then((opened) => opened.release()).catch(() => undefined))),
    );
  }

  /** One session per scale, opened once; a failed opening is forgotten, so the next result tries again. */
  private open(scale: ModelScale): Promise<EsrganSession> {
    let session = this.sessions.get(scale);
    if (!session) {
      session = this.start(scale).catch((error: unknown) => {
        this.sessions.delete(scale);
        this.logger.error({ err: error, scale }, 'the super-resolution model could not be loaded');
        throw new UpscalingError(`The x${scale} super-resolution model could not be loaded: ${String(error)}`);
      });
      this.sessions.set(scale, session);
    }
    return session;
  }

  private async start(scale: ModelScale): Promise<EsrganSession> {
    const started = Date.now();
    const model = await prepareEsrganModel({ modelsDir: this.settings.modelsDir, scale });
    const session = await EsrganSession.open(model, { intraOpThreads: this.settings.threads });
    this.logger.log({ model: model.path, scale, ms: Date.now() - started }, 'super-resolution model ready');
    return session;
  }
}
