import { Injectable } from '@nestjs/common';
import { ResultUrls } from '../../core/storage/result-urls';
import { needsReview, reviewOf } from '../reviews/result-review';
import type { Job } from './job.entity';
import type { JobResult } from './job-result.entity';
import type { EnhancementDto, JobResultDto, JobSummaryDto, ProductPhotoJobSummaryDto } from './job-response.dto';

const iso = (date: Date | null) => date?.toISOString() ?? null;

/**
 * Turns jobs and results into the API's shapes. Result URLs are made at read time (the API's
 * signed URLs or presigned S3 ones, by RESULT_URLS), and are null once retention has expired a
 * result's files: a URL to a deleted file is never handed out.
 */
@Injectable()
export class JobPresenter {
  constructor(private readonly urls: ResultUrls) {}

  summary(job: Job): JobSummaryDto {
    return {
      id: job.id,
      api: job.api,
      status: job.status,
      sandbox: job.sandbox,
      total_results: job.totalResults,
      completed_results: job.completedResults,
      failed_results: job.failedResults,
      credits_reserved: job.creditsReserved,
      credits_used: job.creditsUsed,
      pricing_version: job.pricingVersion,
      created_at: job.createdAt.toISOString(),
      updated_at: job.updatedAt.toISOString(),
      completed_at: iso(job.completedAt),
    };
  }

  productPhotoSummary(job: Job): ProductPhotoJobSummaryDto {
    return { id: job.id, total_items: job.totalResults, credits_reserved: job.creditsReserved, sandbox: job.sandbox };
  }

  async result(result: JobResult): Promise<JobResultDto> {
    const [resultUrl, thumbnailUrl, sourcePreviewUrl] = await Promise.all([
      this.fileUrl(result, result.resultKey),
      this.fileUrl(result, result.thumbnailKey),
      this.fileUrl(result, result.sourcePreviewKey),
    ]);
    return {
      id: result.id,
      index: result.index,
      external_id: result.externalId,
      source_image_url: result.sourceImageUrl,
      subject_hints: result.subjectHints,
      status: result.status,
      result_url: resultUrl,
      thumbnail_url: thumbnailUrl,
      source_preview_url: sourcePreviewUrl,
      error_code: result.errorCode,
      error_message: result.errorMessage,
      uncertainty: result.uncertainty,
      segmentation: result.segmentation,
      needs_review: needsReview(result),
      review: reviewOf(result),
      credits_reserved: result.creditsReserved,
      credits_used: result.creditsUsed,
      created_at: result.createdAt.toISOString(),
      completed_at: iso(result.completedAt),
    };
  }

  results(results: JobResult[]): Promise<JobResultDto[]> {
    return Promise.all(results.map((result) => this.result(result)));
  }

  async enhancement(job: Job, results: JobResult[]): Promise<EnhancementDto> {
    const shownResults = await this.results(results);
    return {
      id: job.id,
      total_items: job.totalResults,
      completed_items: job.completedResults,
      failed_items: job.failedResults,
      credits_reserved: job.creditsReserved,
      credits_used: job.creditsUsed,
      sandbox: job.sandbox,
      items: shownResults.map((shown) => ({
        id: shown.id,
        credits_reserved: shown.credits_reserved,
        credits_used: shown.credits_used,
        external_id: shown.external_id,
        subject_hints: shown.subject_hints,
        result_url: shown.result_url,
        thumbnail_url: shown.thumbnail_url,
        source_preview_url: shown.source_preview_url,
        error_code: shown.error_code,
        error_message: shown.error_message,
        uncertainty: shown.uncertainty,
        segmentation: shown.segmentation,
      })),
      created_at: job.createdAt.toISOString(),
      completed_at: iso(job.completedAt),
    };
  }

  /** Null at once (no promise to settle) for the many results that have no file yet. */
  private fileUrl(result: JobResult, key: string | null): Promise<string> | null {
    return key && !result.filesExpiredAt ? this.urls.urlOf(key) : null;
  }
}
