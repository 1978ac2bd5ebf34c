import { Module } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { LocalUpscaler } from './local-upscaler';
import { UPSCALER, type Upscaler } from './upscaler';

function upscalerFor(config: AppConfig): Upscaler | null {
  switch (config.UPSCALER) {
    case 'local':
      return new LocalUpscaler({ modelsDir: config.MODELS_DIR, threads: config.UPSCALER_THREADS });
    case 'none':
      return null;
  }
}

/**
 * The configured upscaler. Creating it costs nothing: each model loads on its first use, in a
 * worker, so an API process never loads one.
 */
@Module({
  providers: [{ provide: UPSCALER, inject: [APP_CONFIG], useFactory: upscalerFor }],
  exports: [UPSCALER],
})
export class SuperResolutionModule {}
