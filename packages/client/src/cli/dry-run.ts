import type { CatalogPrice } from './jobs-api';
import type { PriceSource } from './tool-requests';

export interface UnitPrice {
  credits: number;
  pricingVersion: number;
  /** Where the price was read, for the dry run's report. */
  origin: string;
}

/** The price of one result of a run, as the service lists it. */
export function unitPrice(source: PriceSource, catalog: readonly CatalogPrice[]): UnitPrice {
  if (source.kind === 'preset') {
    return {
      credits: source.credits,
      pricingVersion: source.pricingVersion,
      origin: `${source.costKey} in GET /api/v1/product-photo-presets`,
    };
  }
  const entry = catalog.find((tool) => tool.id === source.toolId);
  if (!entry) throw new Error(`the catalog (GET /api/v1/tools) has no tool ${source.toolId}`);
  const { option } = source;
  const priced = option
    ? entry.optionPrices?.find((price) => price.field === option.field && price.value === option.value)
    : undefined;
  if (option && priced) {
    return {
      credits: priced.credits,
      pricingVersion: priced.pricingVersion,
      origin: `${source.toolId} with ${option.field} ${option.value} in GET /api/v1/tools`,
    };
  }
  return {
    credits: entry.credits,
    pricingVersion: entry.pricingVersion,
    origin: `${source.toolId} in GET /api/v1/tools`,
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
