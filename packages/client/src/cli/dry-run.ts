import type { CatalogPrice } from './jobs-api';
import type { PriceSource } from './tool-requests';

/**
 * Product photo operations priced as a tool of the catalog (contract section 5), and those with a
 * price of their own that `GET /tools` does not list, with that price (pricing version 1).
 */
const OPERATION_TOOL: Record<string, string> = {
  remove_background: 'remove_background',
  natural_lifestyle: 'ai_background',
  premium_ad: 'ad_creative',
};
const OPERATION_CREDITS: Record<string, number> = {
  product_photo_enhance: 2,
  studio_packshot: 2,
  marketplace_clean: 2,
};

export interface UnitPrice {
  credits: number;
  pricingVersion: number;
  /** Where the price was read, for the dry run's report. */
  origin: string;
}

/** The price of one result of a run, from the catalog wherever the catalog has it. */
export function unitPrice(source: PriceSource, catalog: readonly CatalogPrice[]): UnitPrice {
  const fromCatalog = (toolId: string, origin: string): UnitPrice => {
    const entry = catalog.find((tool) => tool.id === toolId);
    if (!entry) throw new Error(`the catalog (GET /api/v1/tools) has no tool ${toolId}`);
    return { credits: entry.credits, pricingVersion: entry.pricingVersion, origin };
  };
  if (source.kind === 'tool') return fromCatalog(source.toolId, `${source.toolId} in GET /api/v1/tools`);
  const costKey = `product_photo.${source.operation}`;
  const listed = catalog.find((tool) => tool.defaultCostKey === costKey);
  if (listed)
    return {
      credits: listed.credits,
      pricingVersion: listed.pricingVersion,
      origin: `${costKey} in GET /api/v1/tools`,
    };
  const tool = OPERATION_TOOL[source.operation];
  if (tool) return fromCatalog(tool, `${tool} in GET /api/v1/tools (the ${source.operation} operation's tool)`);
  const credits = OPERATION_CREDITS[source.operation];
  if (credits === undefined) throw new Error(`no known price for the product photo operation ${source.operation}`);
  return {
    credits,
    pricingVersion: 1,
    origin: `the ${source.operation} operation's price (GET /api/v1/tools does not list product photo operations)`,
  };
}

export interface Quote {
  command: string;
  images: number;
  alreadyWritten: number;
  jobs: number;
  price: UnitPrice;
  sandbox: boolean;
}

/** The dry run's report: what would be sent and what it would cost. */
export function describeQuote(quote: Quote): string[] {
  const toRun = quote.images - quote.alreadyWritten;
  const total = toRun * quote.price.credits;
  return [
    `dry run: ${quote.command} on ${quote.images} image${quote.images === 1 ? '' : 's'}` +
      (quote.alreadyWritten > 0 ? ` (${quote.alreadyWritten} already written, skipped)` : '') +
      `, in ${quote.jobs} job${quote.jobs === 1 ? '' : 's'}`,
    `price: ${quote.price.credits} credit${quote.price.credits === 1 ? '' : 's'} per image, pricing version ` +
      `${quote.price.pricingVersion} (${quote.price.origin})`,
    quote.sandbox
      ? `total: ${total} credits at live prices; a sandbox key is charged nothing`
      : `total: ${total} credits`,
    'nothing was uploaded or created',
  ];
}
