import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { inspectSource, type SourceImage } from '../../../core/image/source-image';
import { SourceFetcher } from '../../../core/outbound/source-fetcher';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import type { ToolTask } from '../tool-runner';
import { asSourceFailure } from './failure-translation';

/** How long downloaded bytes are kept for the other variants of the same source. */
const CACHE_TTL_MS = 60_000;

/**
 * A result's source image: downloaded safely, decided to be an image by its bytes, and checked
 * against the pixel limit before any decoding. The variants of one source (`number_of_images`)
 * usually run in the same worker at the same time; they share one download, in flight or kept
 * for a minute, instead of fetching the same URL once each.
 */
@Injectable()
export class SourceLoader {
  private readonly maxPixels: number;
  private readonly downloads: LRUCache<string, Buffer, AbortSignal | undefined> | null;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly fetcher: SourceFetcher,
  ) {
    this.maxPixels = config.SOURCE_MAX_MEGAPIXELS * 1_000_000;
    this.downloads =
      config.SOURCE_CACHE_MEGABYTES > 0
        ? new LRUCache<string, Buffer, AbortSignal | undefined>({
            maxSize: config.SOURCE_CACHE_MEGABYTES * 1024 * 1024,
            sizeCalculation: (bytes) => Math.max(1, bytes.length),
            ttl: CACHE_TTL_MS,
            fetchMethod: (key, _stale, { context }) => this.fetcher.fetch(key.slice(key.indexOf(' ') + 1), context),
          })
        : null;
  }

  async load(task: ToolTask, signal: AbortSignal): Promise<SourceImage> {
    const url = task.sourceImageUrl;
    if (!url) throw new ResultFailure(ResultErrorCode.SourceFetchFailed, 'The result has no source image URL.');
    try {
      return await inspectSource(await this.download(task.jobId, url, signal), this.maxPixels);
    } catch (error) {
      throw asSourceFailure(error);
    }
  }

  /** Scoped by job: the same URL in another job is downloaded again, in case it changed. */
  private async download(jobId: string, url: string, signal: AbortSignal): Promise<Buffer> {
    if (!this.downloads) return this.fetcher.fetch(url, signal);
    const bytes = await this.downloads.fetch(`${jobId} ${url}`, { context: signal });
    if (!bytes) throw new Error(`The download of ${new URL(url).host} ended without a body`);
    return bytes;
  }
}
