import { Injectable } from '@nestjs/common';
import {
  PRODUCT_PHOTO_PRESETS,
  productPhotoCostKey,
  type ProductPhotoOperation,
  type ProductPhotoPreset,
} from './product-photo-presets';
import { PricesRepository, type CurrentPrice } from './prices.repository';
import { defaultCostKey, TOOLS, type OptionPrice, type ToolDefinition } from './tools';

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

  constructor(private readonly prices: PricesRepository) {}

  /** The current price of a cost key, from a short-lived cache of the prices table. */
  async priceFor(costKey: string): Promise<CurrentPrice> {
    if (!this.cachedPrices || this.cachedPrices.expiresAt <= Date.now()) {
      const prices = this.prices.currentPrices();
      this.cachedPrices = { prices, expiresAt: Date.now() + PRICE_CACHE_MS };
      prices.catch(() => (this.cachedPrices = null));
    }
    const price = (await this.cachedPrices.prices).get(costKey);
    if (!price) throw new Error(`No price for ${costKey}: the prices table is incomplete`);
    return price;
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
      pricedOptions: tool.optionPrices.map((option) => ({ ...option, price: priceOf(option.costKey) })),
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
