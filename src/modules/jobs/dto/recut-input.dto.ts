import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { InputImages } from './shared.dto';
import { CutoutInputImageDto } from './subject-hints.dto';

/** A source image of a cut-out, which may re-cut an earlier result (a person rejected it and tries again). */
export class RecutInputImageDto extends CutoutInputImageDto {
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'The completed cut-out of this account and environment this one re-cuts: it becomes review state ' +
      '`recut`, linked both ways (`review.replaces_result_id` / `review.replaced_by_result_id`). 404 for an ' +
      'unknown result or one of another account or environment, 409 `not_reviewable` for a result that is not ' +
      'a completed cut-out, 409 `already_recut` for one re-cut by a re-cut that is running or completed (one ' +
      'whose re-cut failed or was cancelled can be re-cut again); one item per replaced result, with ' +
      '`output.number_of_images` 1.',
  })
  @IsOptional()
  @IsUUID()
  replaces_result_id?: string;
}

/** 1 to 20 source images of a cut-out, each of which may re-cut an earlier result. */
export const RecutInputImages = () => InputImages(1, 20, () => RecutInputImageDto);
