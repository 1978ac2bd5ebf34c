import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, Max, Min } from 'class-validator';
import {
  HexColor,
  InputImageDto,
  InputImages,
  NestedObject,
  OptionalWithDefault,
  OutputOptionsDto,
  SHADOWS,
  WebhookUrl,
} from './shared.dto';

export const REMOVED_BACKGROUNDS = ['transparent', 'white', 'color'] as const;

export class RemovedBackgroundDto {
  @ApiPropertyOptional({ enum: REMOVED_BACKGROUNDS, default: 'transparent' })
  @OptionalWithDefault()
  @IsIn(REMOVED_BACKGROUNDS)
  type?: (typeof REMOVED_BACKGROUNDS)[number];

  /** Required when `type` is `color`. */
  @HexColor()
  color?: string;

  @ApiPropertyOptional({ enum: SHADOWS })
  @OptionalWithDefault()
  @IsIn(SHADOWS)
  shadow?: (typeof SHADOWS)[number];
}

export class CutoutOutputDto extends OutputOptionsDto {
  @ApiPropertyOptional({ description: 'Crop the result to the subject.' })
  @OptionalWithDefault()
  @IsBoolean()
  crop_to_subject?: boolean;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 40 })
  @OptionalWithDefault()
  @IsInt()
  @Min(0)
  @Max(40)
  margin_percent?: number;
}

export class RemoveBackgroundRequestDto {
  @ApiProperty({ type: [InputImageDto], minItems: 1, maxItems: 20 })
  @InputImages()
  input!: InputImageDto[];

  @ApiPropertyOptional({ type: RemovedBackgroundDto })
  @NestedObject(() => RemovedBackgroundDto)
  background?: RemovedBackgroundDto;

  @ApiPropertyOptional({ type: CutoutOutputDto })
  @NestedObject(() => CutoutOutputDto)
  output?: CutoutOutputDto;

  @WebhookUrl()
  webhook_url?: string;
}
