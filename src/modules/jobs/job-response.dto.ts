import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEnum, IsOptional } from 'class-validator';
import { ToolId } from '../catalog/tools';
import { ShownResultUrl, ShownSourcePreview, ShownThumbnailUrl } from '../../core/storage/shown-result-files';
import { ResultReviewDto, ShownNeedsReview, ShownReview } from '../reviews/review.dto';
import { SubjectHintsDto } from './dto/subject-hints.dto';
import { ResultErrorCode } from '../tools/result-failure';
import { JobStatus, ResultStatus } from './job-status';
import { PageLimit, PageCursor, ShownNextCursor } from '../../core/http/paging';

/** Shown on every result record: the hints its source image was sent with. */
const ShownSubjectHints = () =>
  ApiProperty({
    type: SubjectHintsDto,
    nullable: true,
    description: "The `subject_hints` the result's source image was sent with, exactly as sent; null when it had none.",
  });

/** Shown on every result record: how sure the cut-out is. */
const ShownUncertainty = () =>
  ApiProperty({
    type: 'number',
    nullable: true,
    minimum: 0,
    maximum: 1,
    example: 0.042,
    description:
      'How unsure background removal is of this cut-out: 0 = sure, 1 = unsure; send high ones to a person. It ' +
      'ranks cut-outs, it is not a probability of error. Three decimals. Set on completed results that are ' +
      'cut-outs: `remove_background` (including masks), ' +
      '`image_editing` with a `background` operation that cuts the subject out, and the product photo operations ' +
      'that cut the product out; null on every other result (tools that make no cut-out of their own, ' +
      "results not completed). 0 for a cut-out whose mask is the source's own alpha (`existing_alpha` `use`). " +
      'Sandbox cut-outs carry 0.05, or 0.9 when `external_id` starts with `sandbox_unsure` (0 with ' +
      '`existing_alpha` `use`).',
  });

/** Which model and post-processing made a cut-out. */
export class SegmentationDto {
  @ApiProperty({
    example: 'isnet-general-use',
    description:
      'The segmentation model that cut the subject out: the one the request named in `segmentation_model`, or ' +
      "the deployment's default (`isnet-general-use` unless the operator chose another; `GET /tools` lists " +
      "them); the operator's name for it with a remote segmentation service, `sandbox` for sandbox cut-outs.",
  })
  model!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '@imgly/background-removal-data@1.4.5 sha256:b6e8497ba978',
    description:
      "What identifies the model's weights: the version label of its manifest and the first 12 hex digits of " +
      "the weights' sha256 (checked when a worker starts); null when the segmentation service does not say. " +
      'Compare for equality only: a different value means different weights.',
  })
  version!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '1',
    description:
      "The version of the service's own mask post-processing (subject selection, hole filling, edge refinement). " +
      'It changes when the same model output would give a different mask; compare for equality only.',
  })
  post_processing_version!: string | null;
}

/** Shown on every result record: which model and post-processing made the cut-out. */
const ShownSegmentation = () =>
  ApiProperty({
    type: SegmentationDto,
    nullable: true,
    description:
      'Which model (and its version) and which version of the mask post-processing made this cut-out, so ' +
      'cut-outs made before and after a model change can be told apart. Set on the same results as ' +
      '`uncertainty` (completed cut-outs); null on every other result, and on results completed before it was ' +
      'recorded. Sandbox cut-outs report `{ "model": "sandbox", "version": "1", "post_processing_version": ' +
      '<the live post-processing version> }`.',
  });

export class JobSummaryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ToolId, enumName: 'ToolId' }) api!: ToolId;
  @ApiProperty({ enum: JobStatus, enumName: 'JobStatus' }) status!: JobStatus;
  @ApiProperty() sandbox!: boolean;
  @ApiProperty({ type: 'integer' }) total_results!: number;
  @ApiProperty({ type: 'integer' }) completed_results!: number;
  @ApiProperty({ type: 'integer' }) failed_results!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Credits reserved at creation (cost per result x results); 0 for sandbox jobs.',
  })
  credits_reserved!: number;
  @ApiProperty({ type: 'integer', description: 'Credits captured by completed results.' }) credits_used!: number;
  @ApiProperty({ type: 'integer', description: 'The pricing version the job was charged at.' })
  pricing_version!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) completed_at!: string | null;
}

export class JobResultDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: 'integer', description: 'Position in the job: source index x number_of_images + variant.' })
  index!: number;
  @ApiProperty({ type: String, nullable: true }) external_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) source_image_url!: string | null;
  @ShownSubjectHints() subject_hints!: SubjectHintsDto | null;
  @ApiProperty({ enum: ResultStatus, enumName: 'ResultStatus' }) status!: ResultStatus;
  @ShownResultUrl() result_url!: string | null;
  @ShownThumbnailUrl() thumbnail_url!: string | null;
  @ShownSourcePreview() source_preview_url!: string | null;
  @ApiProperty({ enum: ResultErrorCode, enumName: 'ResultErrorCode', nullable: true }) error_code!: string | null;
  @ApiProperty({ type: String, nullable: true }) error_message!: string | null;
  @ShownUncertainty() uncertainty!: number | null;
  @ShownSegmentation() segmentation!: SegmentationDto | null;
  @ShownNeedsReview() needs_review!: boolean;
  @ShownReview() review!: ResultReviewDto | null;
  @ApiProperty({ type: 'integer' }) credits_reserved!: number;
  @ApiProperty({ type: 'integer' }) credits_used!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) completed_at!: string | null;
}

export class CreateJobResponseDto {
  @ApiProperty({ type: JobSummaryDto }) job!: JobSummaryDto;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Paid credits left after the reservation.' })
  remaining_paid_credits!: number;
  @ApiProperty() request_id!: string;
}

export class ProductPhotoJobSummaryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: 'integer' }) total_items!: number;
  @ApiProperty({ type: 'integer' }) credits_reserved!: number;
  @ApiProperty() sandbox!: boolean;
}

export class CreateProductPhotoJobResponseDto {
  @ApiProperty({ type: ProductPhotoJobSummaryDto }) job!: ProductPhotoJobSummaryDto;
  @ApiProperty({ type: 'integer', minimum: 0 }) remaining_paid_credits!: number;
  @ApiProperty() request_id!: string;
}

export class JobDetailResponseDto {
  @ApiProperty({ type: JobSummaryDto }) job!: JobSummaryDto;
  @ApiProperty({ type: [JobResultDto] }) results!: JobResultDto[];
  @ApiProperty() request_id!: string;
}

export class JobListResponseDto {
  @ApiProperty({ type: [JobSummaryDto] }) jobs!: JobSummaryDto[];
  @ShownNextCursor() next_cursor!: string | null;
  @ApiProperty() request_id!: string;
}

export class EnhancementItemDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: 'integer' }) credits_reserved!: number;
  @ApiProperty({ type: 'integer' }) credits_used!: number;
  @ApiProperty({ type: String, nullable: true }) external_id!: string | null;
  @ShownSubjectHints() subject_hints!: SubjectHintsDto | null;
  @ApiProperty({ type: String, nullable: true }) result_url!: string | null;
  @ApiProperty({ type: String, nullable: true }) thumbnail_url!: string | null;
  @ShownSourcePreview() source_preview_url!: string | null;
  @ApiProperty({ type: String, nullable: true }) error_code!: string | null;
  @ApiProperty({ type: String, nullable: true }) error_message!: string | null;
  @ShownUncertainty() uncertainty!: number | null;
  @ShownSegmentation() segmentation!: SegmentationDto | null;
}

export class EnhancementDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: 'integer' }) total_items!: number;
  @ApiProperty({ type: 'integer' }) completed_items!: number;
  @ApiProperty({ type: 'integer' }) failed_items!: number;
  @ApiProperty({ type: 'integer' }) credits_reserved!: number;
  @ApiProperty({ type: 'integer' }) credits_used!: number;
  @ApiProperty() sandbox!: boolean;
  @ApiProperty({ type: [EnhancementItemDto] }) items!: EnhancementItemDto[];
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) completed_at!: string | null;
}

export class EnhancementResponseDto {
  @ApiProperty({ type: EnhancementDto }) enhancement!: EnhancementDto;
  @ApiProperty() request_id!: string;
}

export class ListJobsQueryDto {
  @PageLimit()
  limit?: number;

  @PageCursor()
  cursor?: string;

  @ApiPropertyOptional({ enum: JobStatus, enumName: 'JobStatus' })
  @IsOptional()
  @IsEnum(JobStatus)
  status?: JobStatus;

  @ApiPropertyOptional({ enum: ToolId, enumName: 'ToolId' })
  @IsOptional()
  @IsEnum(ToolId)
  api?: ToolId;
}
