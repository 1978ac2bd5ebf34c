import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { HexColor, InputImageDto, InputImages, NestedObject, OutputOptionsDto, SHADOWS, WebhookUrl } from './shared.dto';

export const EDIT_BACKGROUNDS = ['original', 'transparent', 'white', 'color'] as const;
export const RESIZE_FITS = ['contain', 'cover', 'crop'] as const;

export class AdjustmentsDto {
  @ApiPropertyOptional({ description: 'Relight the product.' }) @IsOptional() @IsBoolean() light?: boolean;
  @ApiPropertyOptional({ description: 'Correct colours.' }) @IsOptional() @IsBoolean() color?: boolean;
}

export class EditBackgroundDto {
  @ApiPropertyOptional({ enum: EDIT_BACKGROUNDS })
  @IsOptional()
  @IsIn(EDIT_BACKGROUNDS)
  type?: (typeof EDIT_BACKGROUNDS)[number];

  /** Required when `type` is `color`. */
  @HexColor()
  color?: string;

  @ApiPropertyOptional({ enum: SHADOWS })
  @IsOptional()
  @IsIn(SHADOWS)
  shadow?: (typeof SHADOWS)[number];
}

export class ResizingDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 8192 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(8192)
  width?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 8192 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(8192)
  height?: number;

  @ApiPropertyOptional({ enum: RESIZE_FITS })
  @IsOptional()
  @IsIn(RESIZE_FITS)
  fit?: (typeof RESIZE_FITS)[number];
}

export class RestorationsDto {
  @ApiPropertyOptional() @IsOptional() @IsBoolean() upscale?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() polish?: boolean;
}

export class EditOperationsDto {
  @ApiPropertyOptional({ type: AdjustmentsDto }) @NestedObject(() => AdjustmentsDto) adjustments?: AdjustmentsDto;
  @ApiPropertyOptional({ type: EditBackgroundDto }) @NestedObject(() => EditBackgroundDto) background?: EditBackgroundDto;
  @ApiPropertyOptional({ type: ResizingDto }) @NestedObject(() => ResizingDto) resizing?: ResizingDto;
  @ApiPropertyOptional({ type: RestorationsDto }) @NestedObject(() => RestorationsDto) restorations?: RestorationsDto;
}

export class ImageEditRequestDto {
  @ApiProperty({ type: [InputImageDto], minItems: 1, maxItems: 20 })
  @InputImages()
  input!: InputImageDto[];

  @ApiPropertyOptional({ type: EditOperationsDto })
  @NestedObject(() => EditOperationsDto)
  operations?: EditOperationsDto;

  @ApiPropertyOptional({ type: OutputOptionsDto })
  @NestedObject(() => OutputOptionsDto)
  output?: OutputOptionsDto;

  @WebhookUrl()
  webhook_url?: string;
}
