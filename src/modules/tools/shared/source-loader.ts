import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { inspectSource, type SourceImage } from '../../../core/image/source-image';
import { SourceFetcher, SourceFetchError, SourceFetchFailure } from '../../../core/outbound/source-fetcher';
import { UploadedSources } from '../../../core/uploads/uploaded-sources';
import { isUploadScheme, uploadIdOf } from '../../../core/uploads/upload-url';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import type { ToolTask } from '../tool-runner';
import { asBackgroundFailure, asSourceFailure } from './failure-translation';

/** How long downloaded bytes are kept for the other variants of the same source. */
const CACHE_TTL_MS = 60_000;
/** A background photo serves every result of its job, so it is kept for as long as a job usually runs. */
const BACKDROP_TTL_MS = 15 * 60_000;
/** Room for background photos, whatever the sources' cache is given: they are few and shared by many results. */
const BACKDROP_CACHE_MEGABYTES = 64;

/** What a cached load needs beside its key. */
interface LoadContext {
  accountId: string;
  signal: AbortSignal;
}

/**
 * A result's source image: downloaded safely (or, for an `upload://` URL, read from storage),
 * decided to be an image by its bytes, and checked against the pixel limit before any decoding.
 * The variants of one source (`number_of_images`) usually run in the same worker at the same
 * time; they share one download, in flight or kept for a minute, instead of fetching the same
 * URL once each.
 */
@Injectable()
export class SourceLoader {
  private readonly maxPixels: number;
  private readonly downloads: LRUCache<string, Buffer, LoadContext> | null;
  private readonly backdrops: LRUCache<string, Buffer, LoadContext>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly fetcher: SourceFetcher,
    private readonly uploads: UploadedSources,
  ) {
    this.maxPixels = config.SOURCE_MAX_MEGAPIXELS * 1_000_000;
    this.downloads =
      config.SOURCE_CACHE_MEGABYTES > 0
        ? new LRUCache<string, Buffer, LoadContext>({
            maxSize: config.SOURCE_CACHE_MEGABYTES * 1024 * 1024,
            sizeCalculation: (bytes) => Math.max(1, bytes.length),
            ttl: CACHE_TTL_MS,
            // Dropped when they expire, not when space is next needed: a busy worker would
            // otherwise hold up to the cache's size in old downloads (seen in the soak benchmark).
            ttlAutopurge: true,
            fetchMethod: (key, _stale, { context }) => this.bytesAt(key.slice(key.indexOf(' ') + 1), context),
          })
        : null;
    this.backdrops = new LRUCache<string, Buffer, LoadContext>({
      maxSize: BACKDROP_CACHE_MEGABYTES * 1024 * 1024,
      sizeCalculation: (bytes) => Math.max(1, bytes.length),
      ttl: BACKDROP_TTL_MS,
      ttlAutopurge: true,
      fetchMethod: (key, _stale, { context }) => this.bytesAt(key.slice(key.indexOf(' ') + 1), context),
    });
  }

  async load(task: ToolTask, signal: AbortSignal): Promise<SourceImage> {
    const url = task.sourceImageUrl;
    if (!url) throw new ResultFailure(ResultErrorCode.SourceFetchFailed, 'The result has no source image URL.');
    try {
      return await inspectSource(await this.download(task, url, signal), this.maxPixels);
    } catch (error) {
      throw asSourceFailure(error);
    }
  }

  /**
   * A result's background photo (`background.image_url`), with the source's rules, limits and
   * deadline, failing with the background's own codes. Fetched once per job in each worker
   * process: concurrent results of the job wait for the same download, later ones reuse its bytes.
   */
  async loadBackdrop(task: ToolTask, url: string, signal: AbortSignal): Promise<SourceImage> {
    try {
      const bytes = await this.backdrops.fetch(`${task.jobId} ${url}`, {
        context: { accountId: task.accountId, signal },
      });
      if (!bytes) throw new Error('A background load ended without a body');
      return await inspectSource(bytes, this.maxPixels);
    } catch (error) {
      throw asBackgroundFailure(error);
    }
  }

  /** Scoped by job: the same URL in another job is downloaded again, in case it changed. */
  private async download(task: ToolTask, url: string, signal: AbortSignal): Promise<Buffer> {
    const context = { accountId: task.accountId, signal };
    if (!this.downloads) return this.bytesAt(url, context);
    const bytes = await this.downloads.fetch(`${task.jobId} ${url}`, { context });
    if (!bytes) throw new Error('A source load ended without a body');
    return bytes;
  }

  /**
   * The bytes behind a source URL. An upload is read from storage, never over HTTP, and only
   * for its own account while it has not expired; any other upload fails exactly as a source
   * URL answering 404 does (`source_fetch_failed`, not retried, not charged), so a caller learns
   * nothing about another account's uploads.
   */
  private async bytesAt(url: string, { accountId, signal }: LoadContext): Promise<Buffer> {
    if (!isUploadScheme(url)) return this.fetcher.fetch(url, signal);
    const uploadId = uploadIdOf(url);
    const bytes = uploadId ? await this.uploads.read(uploadId, accountId) : null;
    if (!bytes) {
      throw new SourceFetchError(
        SourceFetchFailure.FetchFailed,
        false,
        'The uploaded source does not exist or has expired (uploads are kept for a limited time).',
      );
    }
    return bytes;
  }
}
