import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsEnum,
  IsIn,
  IsOptional,
  IsString,
  Length,
  ValidateNested,
} from 'class-validator';
import { PRODUCT_PHOTO_PRESETS, ProductPhotoOperation } from '../../catalog/product-photo-presets';
import {
  MAX_URL_LENGTH,
  NestedObject,
  OutputDpi,
  OutputMetadata,
  OutputQuality,
  SOURCE_URL_DESCRIPTION,
  SourceUrl,
  WebhookUrl,
  type MetadataOption,
} from './shared.dto';
import { SegmentationModelChoice } from './segmentation-model.dto';
import { SubjectHints, SubjectHintsDto } from './subject-hints.dto';

export const PRESERVATION_LEVELS = ['strict', 'balanced', 'creative'] as const;
const PRESET_IDS = PRODUCT_PHOTO_PRESETS.map((preset) => preset.id);

export class ProductImageDto {
  @ApiProperty({ format: 'uri', maxLength: MAX_URL_LENGTH, description: SOURCE_URL_DESCRIPTION })
  @SourceUrl()
  source_url!: string;

  @ApiProperty({ minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  external_id!: string;

  @SubjectHints()
  subject_hints?: SubjectHintsDto | null;
}

/**
 * The file options of a product photo job. Its format is its preset's (jpg without one) and it
 * makes one image per source, so `format` and `number_of_images` are not offered.
 */
export class ProductPhotoOutputDto {
  @OutputQuality()
  quality?: number;

  @OutputDpi()
  dpi?: number;

  @OutputMetadata()
  metadata?: MetadataOption;
}

export class ProductPhotoJobRequestDto {
  @ApiProperty({ type: [ProductImageDto], minItems: 1, maxItems: 20 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => ProductImageDto)
  images!: ProductImageDto[];

  @ApiPropertyOptional({
    enum: ProductPhotoOperation,
    enumName: 'ProductPhotoOperation',
    default: 'product_photo_enhance',
  })
  @IsOptional()
  @IsEnum(ProductPhotoOperation)
  operation?: ProductPhotoOperation;

  @ApiPropertyOptional({ enum: PRESET_IDS, description: 'An id from GET /api/v1/product-photo-presets.' })
  @IsOptional()
  @IsIn(PRESET_IDS, { message: 'preset must be an id listed by GET /api/v1/product-photo-presets' })
  preset?: string;

  @ApiPropertyOptional({ enum: PRESERVATION_LEVELS, default: 'strict' })
  @IsOptional()
  @IsIn(PRESERVATION_LEVELS)
  preservation_level?: (typeof PRESERVATION_LEVELS)[number];

  @ApiPropertyOptional({ minLength: 1, maxLength: 4000 })
  @IsOptional()
  @IsString()
  @Length(1, 4000)
  instructions?: string;

  @ApiPropertyOptional({
    type: ProductPhotoOutputDto,
    description:
      "quality, dpi and metadata of the results; the format is the preset's (jpg without a preset), so a quality " +
      'with a png preset is a 400.',
  })
  @NestedObject(() => ProductPhotoOutputDto)
  output?: ProductPhotoOutputDto;

  @SegmentationModelChoice(
    'Only with an operation that cuts the product out here: `remove_background`, `studio_packshot`, ' +
      '`marketplace_clean`, or `product_photo_enhance` with a preset that replaces the background. Priced by the ' +
      'operation, whatever the model.',
  )
  segmentation_model?: string;

  @WebhookUrl()
  webhook_url?: string;
}
