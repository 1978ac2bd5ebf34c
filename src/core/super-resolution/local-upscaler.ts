import type { OnModuleDestroy } from '@nestjs/common';
import type { Piscina } from 'piscina';
import type { RawImage } from '../../engine/raw-image';
import { revived } from '../../engine/transfer';
import { startSingleThread, threadModule } from '../../engine/thread-module';
import type { ModelScale } from './esrgan-model';
import type { EsrganTask } from './esrgan-thread';
import { UpscalingError, type Upscaler } from './upscaler';

export interface LocalUpscalerSettings {
  modelsDir: string;
  threads: number;
}

/**
 * The slim ESRGAN models on this process's CPU, in a thread of their own (see esrgan-thread.ts:
 * an inference holds the thread that runs it). Each scale's model is prepared (or found
 * prepared) and its session opened there on first use, then kept for the life of the process:
 * an API process, which never enlarges anything, never loads them. Enlargements run one at a
 * time across every result of the process with UPSCALER_THREADS threads, so the cores are the
 * model's alone and only one tile's activations exist at once.
 */
export class LocalUpscaler implements Upscaler, OnModuleDestroy {
  private thread: Piscina<EsrganTask, unknown> | null = null;

  constructor(private readonly settings: LocalUpscalerSettings) {}

  async enlarge(image: RawImage, scale: ModelScale, signal: AbortSignal): Promise<RawImage> {
    signal.throwIfAborted();
    // The thread checks this flag before each tile: a running enlargement stops within one tile.
    const stop = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    const onAbort = () => Atomics.store(new Int32Array(stop), 0, 1);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const task: EsrganTask = {
        kind: 'enlarge',
        image,
        scale,
        stop,
        modelsDir: this.settings.modelsDir,
        intraOpThreads: this.settings.threads,
      };
      const result = revived((await this.started().run(task)) as RawImage);
      signal.throwIfAborted();
      return result;
    } catch (error) {
      signal.throwIfAborted();
      // The model's own text can name files under MODELS_DIR: it stays in the cause, for the log.
      throw new UpscalingError(`The x${scale} super-resolution model failed.`, { cause: error });
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  async onModuleDestroy(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    if (!thread) return;
    await thread.run({ kind: 'release' } satisfies EsrganTask).catch(() => undefined);
    await thread.close();
  }

  /** The models' thread, started on first use. */
  private started(): Piscina<EsrganTask, unknown> {
    this.thread ??= startSingleThread<EsrganTask>(threadModule(__dirname, __filename, 'esrgan-thread'));
    return this.thread;
  }
}
