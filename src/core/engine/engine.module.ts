import { Inject, Module, type OnModuleDestroy } from '@nestjs/common';
import { INLINE_ENGINE, type PixelEngine } from '../../engine/pixel-engine';
import { ThreadPoolEngine } from '../../engine/thread-pool-engine';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';

/** The process's PixelEngine: the pool of ENGINE_THREADS threads, or the calling thread when it is 0. */
export const PIXEL_ENGINE = Symbol('PIXEL_ENGINE');

function engineFor(config: AppConfig): PixelEngine {
  if (config.ENGINE_THREADS === 0) return INLINE_ENGINE;
  return new ThreadPoolEngine({ threads: config.ENGINE_THREADS, niceIncrement: config.ENGINE_THREAD_NICE });
}

/**
 * The image engine for the tools. Its threads start with the first operation, so a process that
 * never runs a tool (the API) starts none; they end when the module is destroyed, after the
 * worker's drain (modules that import this one are destroyed first), so running results keep them.
 */
@Module({
  providers: [{ provide: PIXEL_ENGINE, inject: [APP_CONFIG], useFactory: engineFor }],
  exports: [PIXEL_ENGINE],
})
export class EngineModule implements OnModuleDestroy {
  constructor(@Inject(PIXEL_ENGINE) private readonly engine: PixelEngine) {}

  async onModuleDestroy(): Promise<void> {
    if (this.engine instanceof ThreadPoolEngine) await this.engine.close();
  }
}
