import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEnum, IsOptional } from 'class-validator';
import { ProductPhotoOperation } from './product-photo-presets';
import { ToolId } from './tools';

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
}

export class ToolCatalogResponseDto {
  @ApiProperty({ type: [ToolCatalogEntryDto] })
  tools!: ToolCatalogEntryDto[];

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

  @ApiProperty({ enum: ['jpg', 'png', 'webp'] })
  format!: string;

  @ApiProperty({ enum: ['white', 'transparent', 'original', 'generated_scene'] })
  background!: string;
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
