import { Injectable } from '@nestjs/common';
import { ResultUrls } from '../../core/storage/result-urls';
import { needsReview, reviewOf } from './result-review';
import type { ReviewItemDto } from './review.dto';
import type { ReviewRow } from './reviews.repository';

/** Review items as the API shows them; file URLs made at read time, none once retention expired the files. */
@Injectable()
export class ReviewPresenter {
  constructor(private readonly urls: ResultUrls) {}

  async item(row: ReviewRow): Promise<ReviewItemDto> {
    const [resultUrl, thumbnailUrl, sourcePreviewUrl] = await Promise.all([
      this.fileUrl(row, row.resultKey),
      this.fileUrl(row, row.thumbnailKey),
      this.fileUrl(row, row.sourcePreviewKey),
    ]);
    const review = reviewOf(row);
    // Only completed cut-outs reach a review item: the list reads flagged ones, a decision refuses any other.
    if (!review || row.uncertainty === null || !row.completedAt) throw new Error(`result ${row.id} has no review`);
    return {
      result_id: row.id,
      job_id: row.jobId,
      tool: row.tool,
      index: row.index,
      external_id: row.externalId,
      source_image_url: row.sourceImageUrl,
      result_url: resultUrl,
      thumbnail_url: thumbnailUrl,
      source_preview_url: sourcePreviewUrl,
      uncertainty: row.uncertainty,
      needs_review: needsReview(row),
      review,
      completed_at: row.completedAt.toISOString(),
    };
  }

  items(rows: ReviewRow[]): Promise<ReviewItemDto[]> {
    return Promise.all(rows.map((row) => this.item(row)));
  }

  private fileUrl(row: ReviewRow, key: string | null): Promise<string> | null {
    return key && !row.filesExpiredAt ? this.urls.urlOf(key) : null;
  }
}
