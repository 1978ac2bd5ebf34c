import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access, AccessLevel } from '../../core/http/access.decorator';
import {
  reportedVersion,
  SEGMENTATION_MODELS,
  type SegmentationModels,
} from '../../core/segmentation/segmentation-models';
import { ToolAvailabilityService } from './tool-availability';
import {
  ListPresetsQueryDto,
  ProductPhotoPresetsResponseDto,
  ToolCatalogResponseDto,
  type ProductPhotoPresetDto,
  type SegmentationModelDto,
  type ToolCatalogEntryDto,
} from './catalog.dto';
import { CatalogService } from './catalog.service';
import { OUTPUT_OPTIONS } from './output-options';

@ApiTags('Catalog')
@Access(AccessLevel.Public)
@Controller('api/v1')
export class CatalogController {
  constructor(
    private readonly catalog: CatalogService,
    private readonly tools: ToolAvailabilityService,
    @Inject(SEGMENTATION_MODELS) private readonly models: SegmentationModels,
  ) {}

  @Get('tools')
  @ApiOperation({ summary: 'List the tools and their current credit costs (public).' })
  @ApiOkResponse({ type: ToolCatalogResponseDto })
  async listTools(): Promise<{ tools: ToolCatalogEntryDto[]; segmentation_models: SegmentationModelDto[] }> {
    const tools = await this.catalog.pricedTools();
    return {
      tools: tools.map((tool) => {
        const availability = this.tools.availability(tool.id);
        return {
          id: tool.id,
          name: tool.name,
          endpoint: tool.endpoint,
          credits: tool.price.credits,
          unit: 'image',
          default_cost_key: tool.price.costKey,
          pricing_version: tool.price.pricingVersion,
          description: tool.description,
          option_prices: tool.pricedOptions.map((option) => ({
            field: option.field,
            value: option.value,
            credits: option.price.credits,
            cost_key: option.price.costKey,
            pricing_version: option.price.pricingVersion,
            description: option.description,
          })),
          available: availability.available,
          mode: availability.available ? (availability.mode ?? null) : null,
          unavailable_reason: availability.available ? null : availability.reason,
          output: OUTPUT_OPTIONS,
        };
      }),
      segmentation_models: this.models.all.map((model) => ({
        name: model.name,
        default: model.name === this.models.defaultModel.name,
        version: reportedVersion(model),
        licence: model.licence,
        input_size: model.inputSize,
      })),
    };
  }

  @Get('product-photo-presets')
  @ApiOperation({
    summary: 'List the presets accepted by POST /product-photo-jobs, with their current credit costs (public).',
  })
  @ApiOkResponse({ type: ProductPhotoPresetsResponseDto })
  async listPresets(@Query() query: ListPresetsQueryDto): Promise<{ presets: ProductPhotoPresetDto[] }> {
    const presets = await this.catalog.pricedPresets(query.operation);
    return {
      presets: presets.map(({ price, ...preset }) => ({
        ...preset,
        credits: price.credits,
        cost_key: price.costKey,
        pricing_version: price.pricingVersion,
      })),
    };
  }
}
