import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { StoredSegmentation } from '../../engine/mask/segmentation-report';
import type { CapacityGroup } from '../catalog/tools';
import type { ReviewState } from '../reviews/review-state';
import type { ResultStatus } from './job-status';
import type { StoredSubjectHints } from './result-subject-hints';

/** One requested output of a job, and the unit of queued work. */
@Entity({ name: 'job_results' })
export class JobResult {
  @PrimaryColumn('uuid') id!: string;
  @Column({ name: 'job_id', type: 'uuid' }) jobId!: string;
  @Column({ name: 'account_id', type: 'uuid' }) accountId!: string;
  @Column({ type: 'boolean' }) sandbox!: boolean;
  @Column({ name: 'capacity_group', type: 'text' }) capacityGroup!: CapacityGroup;
  @Column({ type: 'integer' }) index!: number;
  @Column({ name: 'external_id', type: 'text', nullable: true }) externalId!: string | null;
  @Column({ name: 'source_image_url', type: 'text', nullable: true }) sourceImageUrl!: string | null;
  /** The client's hints for the result's source image, as sent; null when it sent none. */
  @Column({ name: 'subject_hints', type: 'jsonb', nullable: true }) subjectHints!: StoredSubjectHints | null;
  @Column({ type: 'text' }) status!: ResultStatus;
  @Column({ type: 'integer', default: 0 }) attempts!: number;
  @Column({ name: 'result_key', type: 'text', nullable: true }) resultKey!: string | null;
  @Column({ name: 'thumbnail_key', type: 'text', nullable: true }) thumbnailKey!: string | null;
  /** The WebP preview of the source as the worker read it; null for a result without a source image. */
  @Column({ name: 'source_preview_key', type: 'text', nullable: true }) sourcePreviewKey!: string | null;
  @Column({ name: 'error_code', type: 'text', nullable: true }) errorCode!: string | null;
  @Column({ name: 'error_message', type: 'text', nullable: true }) errorMessage!: string | null;
  /** How unsure the segmenter was of a completed cut-out (0 sure .. 1 unsure, 3 decimals); null for anything else. */
  @Column({ type: 'real', nullable: true }) uncertainty!: number | null;
  /**
   * Which model (and its weights' version) and which mask post-processing made a completed
   * cut-out; null for anything else, and for results completed before it was recorded.
   */
  @Column({ type: 'jsonb', nullable: true }) segmentation!: StoredSegmentation | null;
  /** Whether the cut-out's uncertainty reached its account's review threshold when it completed; never moves after. */
  @Column({ type: 'boolean', default: false }) flagged!: boolean;
  /** A person's review of a completed cut-out (pending until decided); null for any other result. */
  @Column({ name: 'review_state', type: 'text', nullable: true }) reviewState!: ReviewState | null;
  /** The name (or id) of the API key that decided the review, or re-cut the result. */
  @Column({ name: 'decided_by', type: 'text', nullable: true }) decidedBy!: string | null;
  @Column({ name: 'decided_at', type: 'timestamptz', nullable: true }) decidedAt!: Date | null;
  @Column({ name: 'review_note', type: 'text', nullable: true }) reviewNote!: string | null;
  /** The earlier cut-out this result was made to replace (a re-cut). */
  @Column({ name: 'replaces_result_id', type: 'uuid', nullable: true }) replacesResultId!: string | null;
  /** The re-cut that replaced this result. */
  @Column({ name: 'replaced_by_result_id', type: 'uuid', nullable: true }) replacedByResultId!: string | null;
  @Column({ name: 'credits_reserved', type: 'integer' }) creditsReserved!: number;
  @Column({ name: 'credits_used', type: 'integer', default: 0 }) creditsUsed!: number;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'started_at', type: 'timestamptz', nullable: true }) startedAt!: Date | null;
  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true }) completedAt!: Date | null;
  /** When retention started deleting the result's files; from then on no URL to them is handed out. */
  @Column({ name: 'files_expired_at', type: 'timestamptz', nullable: true }) filesExpiredAt!: Date | null;
}
