import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import sharp from 'sharp';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { ImageService } from './image.service';
import { PixelBudget } from './pixel-budget';

@Module({
  providers: [ImageService, PixelBudget],
  exports: [ImageService, PixelBudget],
})
export class ImageModule implements OnModuleInit {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * libvips' settings are process-wide. A worker runs several results at once, each a pipeline
   * on its own libuv thread, so each pipeline gets few threads of its own (IMAGE_PIPELINE_THREADS)
   * rather than every core; and every source is a new image, so libvips' operation cache would
   * only hold memory that is never hit again.
   */
  onModuleInit(): void {
    sharp.concurrency(this.config.IMAGE_PIPELINE_THREADS);
    sharp.cache(false);
  }
}
