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

  @ApiPropertyOptional({
    enum: SHADOWS,
    default: 'none',
    description:
      '`soft`: a contact shadow made of the product\'s footprint; `natural`: that plus its silhouette cast on the ' +
      'floor. Drawn beneath the product, never on it; black at its opacity on a transparent background. ' +
      '`number_of_images` variants differ only in this light (without a shadow they are identical).',
  })
  @OptionalWithDefault()
  @IsIn(SHADOWS)
  shadow?: (typeof SHADOWS)[number];
}

export class CutoutOutputDto extends OutputOptionsDto {
  @ApiPropertyOptional({
    description: 'Crop the result to the subject and its shadow, with `margin_percent` of its longer side on every side.',
  })
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
