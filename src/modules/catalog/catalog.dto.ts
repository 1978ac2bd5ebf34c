import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEnum, IsOptional } from 'class-validator';
import { OUTPUT_FORMATS, type OutputFormat } from '../../core/image/output-format';
import { DEFAULT_QUALITY } from '../../core/image/pipeline-steps';
import {
  DEFAULT_FORMAT,
  DEFAULT_METADATA,
  DPI_RANGE,
  LOSSLESS_FORMATS,
  METADATA_CHOICES,
  QUALITY_FORMATS,
  QUALITY_RANGE,
} from './output-options';
import { ProductPhotoOperation } from './product-photo-presets';
import { ToolId } from './tools';

export class QualityOptionDto {
  @ApiProperty({ enum: QUALITY_FORMATS, isArray: true, description: 'The formats a quality applies to.' })
  formats!: readonly string[];

  @ApiProperty({ type: 'integer', example: QUALITY_RANGE.minimum })
  minimum!: number;

  @ApiProperty({ type: 'integer', example: QUALITY_RANGE.maximum })
  maximum!: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: DEFAULT_QUALITY,
    description: 'The quality of each format when a request gives none.',
  })
  defaults!: Record<string, number>;
}

export class LosslessOptionDto {
  @ApiProperty({ enum: LOSSLESS_FORMATS, isArray: true, description: 'The formats `output.lossless` applies to.' })
  formats!: readonly string[];

  @ApiProperty({ example: false })
  default!: boolean;
}

export class DpiOptionDto {
  @ApiProperty({ type: 'integer', example: DPI_RANGE.minimum })
  minimum!: number;

  @ApiProperty({ type: 'integer', example: DPI_RANGE.maximum })
  maximum!: number;

  @ApiProperty({ type: 'integer', nullable: true, example: null, description: 'Null: no resolution is written.' })
  default!: number | null;
}

export class MetadataOptionDto {
  @ApiProperty({ enum: METADATA_CHOICES, isArray: true })
  values!: readonly string[];

  @ApiProperty({ enum: METADATA_CHOICES, example: DEFAULT_METADATA })
  default!: string;
}

/** What a tool's `output` accepts besides `number_of_images`. */
export class OutputOptionsCatalogDto {
  @ApiProperty({ enum: OUTPUT_FORMATS, isArray: true })
  formats!: readonly string[];

  @ApiProperty({ enum: OUTPUT_FORMATS, example: DEFAULT_FORMAT })
  default_format!: string;

  @ApiProperty({ type: QualityOptionDto })
  quality!: QualityOptionDto;

  @ApiProperty({
    type: LosslessOptionDto,
    description: 'A lossless file instead of a quality, where the format has one.',
  })
  lossless!: LosslessOptionDto;

  @ApiProperty({ type: DpiOptionDto, description: 'Pixels per inch written into the file.' })
  dpi!: DpiOptionDto;

  @ApiProperty({ type: MetadataOptionDto, description: "Whether the source photo's EXIF and XMP are kept." })
  metadata!: MetadataOptionDto;
}

export class OptionPriceDto {
  @ApiProperty({ example: 'existing_alpha', description: 'The top-level request field.' })
  field!: string;

  @ApiProperty({ example: 'use', description: 'The value of the field that brings this price.' })
  value!: string;

  @ApiProperty({ type: 'integer', description: 'Current credit cost per result of a job with this value.' })
  credits!: number;

  @ApiProperty({ example: 'image_editing.default', description: 'The price row the cost comes from.' })
  cost_key!: string;

  @ApiProperty({ type: 'integer' })
  pricing_version!: number;

  @ApiProperty()
  description!: string;
}

export class ToolCatalogEntryDto {
  @ApiProperty({ enum: ToolId, enumName: 'ToolId' })
  id!: ToolId;

  @ApiProperty()
  name!: string;

  @ApiProperty({ example: '/api/v1/image/edit' })
  endpoint!: string;

  @ApiProperty({ type: 'integer', description: 'Current public credit cost per unit.' })
  credits!: number;

  @ApiProperty({ example: 'image' })
  unit!: string;

  @ApiProperty({ example: 'image_editing.default' })
  default_cost_key!: string;

  @ApiProperty({ type: 'integer' })
  pricing_version!: number;

  @ApiProperty()
  description!: string;

  @ApiProperty({
    type: [OptionPriceDto],
    description:
      'Request options that price a job otherwise than `credits`: a job whose request has `field` set to ' +
      '`value` reserves and captures these credits per result instead. Empty for most tools.',
  })
  option_prices!: OptionPriceDto[];

  @ApiProperty({
    description:
      'Whether live keys can use the tool on this deployment. Sandbox keys can use every tool; a live create ' +
      'for an unavailable tool answers 503 `tool_unavailable` and charges nothing.',
  })
  available!: boolean;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'How the tool runs for live keys here (for example which image provider, or built-in studio ' +
      'backdrops); null when unavailable.',
  })
  mode!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why live keys cannot use the tool here (what the deployment lacks); null when available.',
  })
  unavailable_reason!: string | null;

  @ApiProperty({
    type: OutputOptionsCatalogDto,
    description: "The file options the tool's `output` accepts, their bounds and defaults (an extension).",
  })
  output!: OutputOptionsCatalogDto;
}

export class SegmentationModelDto {
  @ApiProperty({ example: 'isnet-general-use', description: 'What a request names in `segmentation_model`.' })
  name!: string;

  @ApiProperty({ description: 'Whether a request that names no model is cut out with this one.' })
  default!: boolean;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: '@imgly/background-removal-data@1.4.5 sha256:b6e8497ba978',
    description:
      "The weights' version label and their sha256's first 12 hex digits, as each cut-out's " +
      '`segmentation.version` reports it; null when the segmenter does not say.',
  })
  version!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "The weights' licence, as the operator's manifest states it; null when not stated.",
  })
  licence!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: '768x768', description: 'The image size the model sees.' })
  input_size!: string | null;
}

export class ToolCatalogResponseDto {
  @ApiProperty({ type: [ToolCatalogEntryDto] })
  tools!: ToolCatalogEntryDto[];

  @ApiProperty({
    type: [SegmentationModelDto],
    description:
      'The segmentation models a cut-out may name (`segmentation_model` on remove-background, image/edit and ' +
      "product-photo-jobs), the default first. A model with a price of its own is in its tools' `option_prices`.",
  })
  segmentation_models!: SegmentationModelDto[];

  @ApiProperty()
  request_id!: string;
}

export class ProductPhotoPresetDto {
  @ApiProperty({ example: 'amazon_main_image' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ example: 'amazon' })
  channel!: string;

  @ApiProperty()
  description!: string;

  @ApiProperty({ enum: ProductPhotoOperation, enumName: 'ProductPhotoOperation' })
  operation!: ProductPhotoOperation;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Output width in pixels; null keeps the source size.' })
  width!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  height!: number | null;

  @ApiProperty({ enum: OUTPUT_FORMATS })
  format!: OutputFormat;

  @ApiProperty({ enum: ['white', 'transparent', 'original', 'generated_scene'] })
  background!: string;

  @ApiProperty({ type: 'integer', description: "Current credit cost per image of the preset's operation." })
  credits!: number;

  @ApiProperty({ example: 'product_photo.product_photo_enhance', description: 'The price row the cost comes from.' })
  cost_key!: string;

  @ApiProperty({ type: 'integer' })
  pricing_version!: number;
}

export class ProductPhotoPresetsResponseDto {
  @ApiProperty({ type: [ProductPhotoPresetDto] })
  presets!: ProductPhotoPresetDto[];

  @ApiProperty()
  request_id!: string;
}

export class ListPresetsQueryDto {
  @ApiPropertyOptional({ enum: ProductPhotoOperation, description: 'Only presets of this operation.' })
  @IsOptional()
  @IsEnum(ProductPhotoOperation)
  operation?: ProductPhotoOperation;
}
