import { Injectable, Logger } from '@nestjs/common';
import { UploadMetrics } from '../../core/metrics/upload.metrics';
import { ResultStorage } from '../../core/storage/result-storage';
import { UploadsRepository, type ExpiredUpload } from './uploads.repository';

/** Uploads one page deletes; a sweep reads a few pages, so it stays short however large the backlog. */
const PAGE_SIZE = 100;
const PAGES_PER_SWEEP = 5;

/**
 * Deletes expired uploads, file then row, as part of the retention sweep. An expired upload is
 * already unreadable (the worker checks `expires_at`), so its file can go before its row. Rows
 * are claimed with SKIP LOCKED inside the page's transaction, so sweeps of several workers share
 * the work without waiting on each other; a file whose deletion fails keeps its row, and the
 * next sweep tries again.
 */
@Injectable()
export class UploadRetentionSweeperService {
  private readonly logger = new Logger(UploadRetentionSweeperService.name);

  constructor(
    private readonly uploads: UploadsRepository,
    private readonly storage: ResultStorage,
    private readonly metrics: UploadMetrics,
  ) {}

  async sweep(): Promise<{ deleted: number }> {
    let deleted = 0;
    for (let page = 0; page < PAGES_PER_SWEEP; page++) {
      let claimed = 0;
      const removed = await this.uploads.deleteExpired(PAGE_SIZE, async (due) => {
        claimed = due.length;
        return this.deleteFiles(due);
      });
      deleted += removed;
      // A short page is the end of the backlog; a page with failures waits for the next sweep.
      if (claimed < PAGE_SIZE || removed < claimed) break;
    }
    if (deleted > 0) {
      this.metrics.expiredDeleted(deleted);
      this.logger.log({ deleted }, 'deleted expired uploads');
    }
    return { deleted };
  }

  /** The ids whose files are gone (a missing file counts as gone). */
  private async deleteFiles(due: ExpiredUpload[]): Promise<string[]> {
    const outcomes = await Promise.allSettled(due.map((upload) => this.storage.delete(upload.storageKey)));
    return due.flatMap((upload, index) => {
      const outcome = outcomes[index];
      if (outcome.status === 'fulfilled') return [upload.id];
      this.logger.warn(
        { err: outcome.reason as unknown, upload_id: upload.id },
        'could not delete an expired upload; retrying',
      );
      return [];
    });
  }
}
