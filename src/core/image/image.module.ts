import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { applyLibvipsSettings } from '../../engine/libvips-settings';
import { ImageService } from './image.service';
import { PixelBudget } from './pixel-budget';

@Module({
  providers: [ImageService, PixelBudget],
  exports: [ImageService, PixelBudget],
})
export class ImageModule implements OnModuleInit {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * libvips' settings are process-wide (and applied again by each worker thread, see
   * libvips-settings.ts). A worker runs several results at once, each a pipeline on its own libuv
   * thread, so each pipeline gets few threads of its own (IMAGE_PIPELINE_THREADS) rather than
   * every core; libvips' operation cache stays off.
   */
  onModuleInit(): void {
    applyLibvipsSettings({ pipelineThreads: this.config.IMAGE_PIPELINE_THREADS });
  }
}
