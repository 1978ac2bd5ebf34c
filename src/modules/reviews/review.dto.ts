import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsEnum, IsIn, IsISO8601, IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { ShownResultUrl, ShownSourcePreview, ShownThumbnailUrl } from '../../core/storage/shown-result-files';
import { ToolId } from '../catalog/tools';
import type { EventReview } from '../webhooks/webhook-outbox.service';
import { REVIEW_DECISIONS, ReviewState, type ReviewDecision } from './review-state';
import { PageLimit, PageCursor, ShownNextCursor } from '../../core/http/paging';

export const MAX_REVIEW_NOTE_LENGTH = 1000;

/** The list's `state` filter: one state, or every state (`all`). */
export const REVIEW_LIST_STATES = [...Object.values(ReviewState), 'all'] as const;
export type ReviewListState = (typeof REVIEW_LIST_STATES)[number];

export class ResultReviewDto implements EventReview {
  @ApiProperty({
    enum: ReviewState,
    enumName: 'ReviewState',
    description:
      '`pending` until a person decides; `accepted` or `rejected` by `POST /reviews/{result_id}/decision` (a ' +
      'later decision replaces an earlier one); `recut` once a remove-background job names the result in ' +
      '`replaces_result_id` (final, unless that re-cut fails or is cancelled: the result can then be re-cut ' +
      'again or decided).',
  })
  state!: ReviewState;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The deciding (or re-cutting) API key's name, or its id when it has none.",
  })
  decided_by!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) decided_at!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: MAX_REVIEW_NOTE_LENGTH }) note!: string | null;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The earlier result this cut-out re-cuts.',
  })
  replaces_result_id!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The result that re-cut this one.' })
  replaced_by_result_id!: string | null;
}

/** Shown on every result record: whether a person should look at it. */
export const ShownNeedsReview = () =>
  ApiProperty({
    description:
      "True for a completed cut-out that was flagged (its uncertainty at or above the account's `review_threshold` " +
      'when it completed; a later change of the threshold does not move the flag) and whose review is still ' +
      '`pending`; false for every other result.',
  });

/** Shown on every result record: a completed cut-out's review. */
export const ShownReview = () =>
  ApiProperty({
    type: ResultReviewDto,
    nullable: true,
    description:
      "A completed cut-out's review (every one has one, flagged or not, `pending` until decided); null for " +
      'results that are not completed cut-outs.',
  });

export class ReviewItemDto {
  @ApiProperty({ format: 'uuid' }) result_id!: string;
  @ApiProperty({ format: 'uuid' }) job_id!: string;
  @ApiProperty({ enum: ToolId, enumName: 'ToolId' }) tool!: ToolId;
  @ApiProperty({ type: 'integer' }) index!: number;
  @ApiProperty({ type: String, nullable: true }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) source_image_url!: string | null;
  @ShownResultUrl() result_url!: string | null;
  @ShownThumbnailUrl() thumbnail_url!: string | null;
  @ShownSourcePreview() source_preview_url!: string | null;
  @ApiProperty({ type: 'number', minimum: 0, maximum: 1 }) uncertainty!: number;
  @ShownNeedsReview() needs_review!: boolean;
  @ApiProperty({ type: ResultReviewDto }) review!: ResultReviewDto;
  @ApiProperty({ format: 'date-time' }) completed_at!: string;
}

export class ReviewItemResponseDto {
  @ApiProperty({ type: ReviewItemDto }) result!: ReviewItemDto;
  @ApiProperty() request_id!: string;
}

export class ReviewListResponseDto {
  @ApiProperty({ type: [ReviewItemDto] }) results!: ReviewItemDto[];
  @ShownNextCursor() next_cursor!: string | null;
  @ApiProperty() request_id!: string;
}

export class ReviewSummaryResponseDto {
  @ApiProperty({ type: 'integer', description: "Flagged cut-outs still pending, in the key's environment." })
  pending!: number;
  @ApiProperty({ minimum: 0, maximum: 1 }) review_threshold!: number;
  @ApiProperty() request_id!: string;
}

/** An uncertainty bound of the list's filters: a number from 0 to 1. */
const UncertaintyBound = () =>
  applyDecorators(
    IsOptional(),
    Type(() => Number),
    IsNumber({ allowNaN: false, allowInfinity: false }),
    Min(0),
    Max(1),
  );

/** A date-time with its zone, as the list's date filters take it. */
const ZONED = /T.*(Z|[+-]\d{2}:?\d{2})$/;

export class ListReviewsQueryDto {
  @ApiPropertyOptional({ enum: REVIEW_LIST_STATES, default: ReviewState.Pending })
  @IsOptional()
  @IsIn(REVIEW_LIST_STATES)
  state?: ReviewListState;

  @ApiPropertyOptional({ enum: ToolId, enumName: 'ToolId', description: "The result's job's tool." })
  @IsOptional()
  @IsEnum(ToolId)
  tool?: ToolId;

  @ApiPropertyOptional({ format: 'date-time', description: 'Completed at or after this time.' })
  @IsOptional()
  @IsISO8601({ strict: true })
  @Matches(ZONED, { message: 'completed_from must be a date-time with a time zone (Z or ±hh:mm)' })
  completed_from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Completed before this time (excluded).' })
  @IsOptional()
  @IsISO8601({ strict: true })
  @Matches(ZONED, { message: 'completed_to must be a date-time with a time zone (Z or ±hh:mm)' })
  completed_to?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, description: 'Uncertainty at least this.' })
  @UncertaintyBound()
  min_uncertainty?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, description: 'Uncertainty at most this.' })
  @UncertaintyBound()
  max_uncertainty?: number;

  @PageLimit()
  limit?: number;

  @PageCursor()
  cursor?: string;
}

export class ReviewDecisionDto {
  @ApiProperty({ enum: REVIEW_DECISIONS })
  @IsIn(REVIEW_DECISIONS)
  decision!: ReviewDecision;

  @ApiPropertyOptional({ maxLength: MAX_REVIEW_NOTE_LENGTH, description: 'Why; kept with the decision.' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_REVIEW_NOTE_LENGTH)
  note?: string;
}
