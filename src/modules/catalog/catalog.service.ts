import { Inject, Injectable } from '@nestjs/common';
import { SEGMENTATION_MODELS, type SegmentationModels } from '../../core/segmentation/segmentation-models';
import {
  PRODUCT_PHOTO_PRESETS,
  productPhotoCostKey,
  type ProductPhotoOperation,
  type ProductPhotoPreset,
} from './product-photo-presets';
import { PricesRepository, type CurrentPrice } from './prices.repository';
import {
  defaultCostKey,
  MODEL_PRICED_TOOLS,
  modelCostKey,
  TOOLS,
  type OptionPrice,
  type ToolDefinition,
  type ToolId,
} from './tools';

export interface PricedOption extends OptionPrice {
  price: CurrentPrice;
}

export interface PricedTool extends ToolDefinition {
  price: CurrentPrice;
  /** The options that price a job by another key, each with that key's current price. */
  pricedOptions: PricedOption[];
}

export interface PricedPreset extends ProductPhotoPreset {
  price: CurrentPrice;
}

/** Prices change by a new pricing version, rarely; creates may see one a few seconds late. */
const PRICE_CACHE_MS = 5000;

@Injectable()
export class CatalogService {
  private cachedPrices: { prices: Promise<Map<string, CurrentPrice>>; expiresAt: number } | null = null;

  constructor(
    private readonly prices: PricesRepository,
    @Inject(SEGMENTATION_MODELS) private readonly models: SegmentationModels,
  ) {}

  /** The current price of a cost key, from a short-lived cache of the prices table. */
  async priceFor(costKey: string): Promise<CurrentPrice> {
    const price = (await this.cached()).get(costKey);
    if (!price) throw new Error(`No price for ${costKey}: the prices table is incomplete`);
    return price;
  }

  /** The cost key of `tool`'s results cut out with `model`: its own when priced, else null (the tool's price). */
  async modelPriceKey(tool: ToolId, model: string): Promise<string | null> {
    if (!MODEL_PRICED_TOOLS.includes(tool)) return null;
    const key = modelCostKey(tool, model);
    return (await this.cached()).has(key) ? key : null;
  }

  private cached(): Promise<Map<string, CurrentPrice>> {
    if (!this.cachedPrices || this.cachedPrices.expiresAt <= Date.now()) {
      const prices = this.prices.currentPrices();
      this.cachedPrices = { prices, expiresAt: Date.now() + PRICE_CACHE_MS };
      prices.catch(() => (this.cachedPrices = null));
    }
    return this.cachedPrices.prices;
  }

  /** Every tool with its current price; a tool without a price row is a deployment error. */
  async pricedTools(): Promise<PricedTool[]> {
    const prices = await this.prices.currentPrices();
    const priceOf = (costKey: string) => {
      const price = prices.get(costKey);
      if (!price) throw new Error(`No price for ${costKey}: the prices table is incomplete`);
      return price;
    };
    return TOOLS.map((tool) => ({
      ...tool,
      price: priceOf(defaultCostKey(tool.id)),
      pricedOptions: [...tool.optionPrices, ...this.modelOptionPrices(tool.id, prices)].map((option) => ({
        ...option,
        price: priceOf(option.costKey),
      })),
    }));
  }

  /** The configured models that have a price of their own for `tool`, as options of its requests. */
  private modelOptionPrices(tool: ToolId, prices: Map<string, CurrentPrice>): OptionPrice[] {
    if (!MODEL_PRICED_TOOLS.includes(tool)) return [];
    return this.models.all
      .filter((model) => prices.has(modelCostKey(tool, model.name)))
      .map((model) => ({
        field: 'segmentation_model',
        value: model.name,
        costKey: modelCostKey(tool, model.name),
        description: `Cut out with the ${model.name} model (segmentation_models lists it).`,
      }));
  }

  /** The presets (of one operation, if given), each with its operation's current price. */
  async pricedPresets(operation?: ProductPhotoOperation): Promise<PricedPreset[]> {
    const prices = await this.prices.currentPrices();
    return PRODUCT_PHOTO_PRESETS.filter((preset) => !operation || preset.operation === operation).map((preset) => {
      const costKey = productPhotoCostKey(preset.operation);
      const price = prices.get(costKey);
      if (!price) throw new Error(`No price for ${costKey}: the prices table is incomplete`);
      return { ...preset, price };
    });
  }
}
