import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { ResultStorage } from '../../../core/storage/result-storage';
import { ResultSweepsRepository, type ExpiringResult } from './result-sweeps.repository';

/** Results whose files one page deletes; a sweep reads a few pages, so it stays short however large the backlog. */
const PAGE_SIZE = 200;
const PAGES_PER_SWEEP = 5;

/**
 * Deletes result images, thumbnails and source previews RESULT_RETENTION_DAYS after their result completed,
 * whichever driver holds them. Per result, in this order:
 *
 * 1. `files_expired_at` is set, so from then on a read answers the result with null URLs
 *    rather than a URL to a file that is being deleted;
 * 2. its files are deleted;
 * 3. the keys are cleared, which takes the result out of the sweep.
 *
 * A deletion that fails leaves the keys in place, so the next sweep tries again. Rows are
 * claimed with SKIP LOCKED, so overlapping sweeps of several workers do not block each other.
 */
@Injectable()
export class ResultRetentionSweeperService {
  private readonly logger = new Logger(ResultRetentionSweeperService.name);

  constructor(
    private readonly sweeps: ResultSweepsRepository,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'RESULT_RETENTION_DAYS'>,
    private readonly storage: ResultStorage,
  ) {}

  async sweep(): Promise<{ expired: number; failed: number }> {
    let expired = 0;
    let failed = 0;
    for (let page = 0; page < PAGES_PER_SWEEP; page++) {
      const due = await this.sweeps.markFilesExpired(this.config.RESULT_RETENTION_DAYS, PAGE_SIZE);
      const deleted: string[] = [];
      for (const result of due) {
        if (await this.deleteFiles(result)) deleted.push(result.id);
      }
      if (deleted.length > 0) await this.sweeps.clearFileKeys(deleted);
      expired += deleted.length;
      failed += due.length - deleted.length;
      // A page with failures stops the sweep: those results come first again next time.
      if (due.length < PAGE_SIZE || deleted.length < due.length) break;
    }
    if (expired > 0) this.logger.log({ expired }, 'deleted the files of results past their retention');
    return { expired, failed };
  }

  private async deleteFiles(result: ExpiringResult): Promise<boolean> {
    const keys = [result.resultKey, result.thumbnailKey, result.sourcePreviewKey].filter(
      (key): key is string => key !== null,
    );
    try {
      await Promise.all(keys.map((key) => this.storage.delete(key)));
      return true;
    } catch (error) {
      this.logger.warn(
        { err: error, result_id: result.id },
        'could not delete the files of an expired result; retrying next sweep',
      );
      return false;
    }
  }
}
