import { Inject, Injectable } from '@nestjs/common';
import { Semaphore } from 'async-mutex';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';

/**
 * Decoded pixels one process works on at once. libvips streams most pipelines, but orienting,
 * cropping at the most interesting place and the raw steps between pipelines hold whole images;
 * with several results in flight, memory would grow with their sizes. Each image waits for its
 * share, so memory stays bounded whatever arrives: many small images run side by side, a huge
 * one runs alone.
 */
@Injectable()
export class PixelBudget {
  private readonly capacity: number;
  private readonly semaphore: Semaphore;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'IMAGE_MEMORY_BUDGET_MEGAPIXELS'>) {
    this.capacity = config.IMAGE_MEMORY_BUDGET_MEGAPIXELS;
    this.semaphore = new Semaphore(this.capacity);
  }

  /** Runs `work` once `pixels` fit in the budget (an image larger than the whole budget waits for all of it). */
  run<T>(pixels: number, work: () => Promise<T>): Promise<T> {
    const megapixels = Math.min(this.capacity, Math.max(1, Math.ceil(pixels / 1e6)));
    return this.semaphore.runExclusive(work, megapixels);
  }
}
