import { CatalogController } from '../../src/modules/catalog/catalog.controller';
import { ToolId } from '../../src/modules/catalog/tools';
import { createTestApp, type TestApp } from '../support/test-app';

/** The file options every tool's `output` takes, written out: a changed bound or default must fail here. */
const OUTPUT_OPTIONS = {
  formats: ['jpg', 'png', 'webp', 'avif'],
  default_format: 'png',
  quality: { formats: ['jpg', 'webp', 'avif'], minimum: 1, maximum: 100, defaults: { jpg: 88, webp: 85, avif: 60 } },
  lossless: { formats: ['webp'], default: false },
  dpi: { minimum: 1, maximum: 2400, default: null },
  metadata: { values: ['strip', 'keep'], default: 'strip' },
};

/** The options that price a job otherwise, written out per tool (the others list none). */
const OPTION_PRICES: Record<string, unknown[]> = {
  [ToolId.RemoveBackground]: [
    {
      field: 'existing_alpha',
      value: 'use',
      credits: 1,
      cost_key: 'image_editing.default',
      pricing_version: 1,
      description: expect.stringContaining('priced as an image edit'),
    },
  ],
};

/** What runs with the test defaults (no segmenter, no image provider): the tools that need neither. */
const LOCAL_TOOLS: string[] = [ToolId.ImageEditing, ToolId.AdCreative];

describe(CatalogController.name, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('lists the six tools publicly: every field of spec 2.6, which live keys can use, the output options', async () => {
    const res = await t.http().get('/api/v1/tools').expect(200);
    expect(res.headers['x-request-id']).toBe(res.body.request_id);
    // The contract's six tool ids, written out: a tool dropped from the code's enum must fail here.
    expect(res.body.tools.map((tool: { id: string }) => tool.id).sort()).toEqual([
      'ad_creative',
      'ai_background',
      'image_ai_edit',
      'image_editing',
      'image_generation',
      'remove_background',
    ]);
    for (const tool of res.body.tools) {
      expect(tool).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        endpoint: expect.stringMatching(/^\/api\/v1\//),
        credits: expect.any(Number),
        unit: 'image',
        default_cost_key: `${tool.id}.default`,
        pricing_version: 1,
        description: expect.any(String),
        option_prices: OPTION_PRICES[tool.id] ?? [],
        available: LOCAL_TOOLS.includes(tool.id),
        mode: LOCAL_TOOLS.includes(tool.id) ? expect.any(String) : null,
        unavailable_reason: LOCAL_TOOLS.includes(tool.id) ? null : expect.stringMatching(/^needs /),
        output: OUTPUT_OPTIONS,
      });
    }
    const costs = Object.fromEntries(
      res.body.tools.map((tool: { id: string; credits: number }) => [tool.id, tool.credits]),
    );
    expect(costs).toEqual({
      remove_background: 1,
      image_editing: 1,
      image_ai_edit: 4,
      ai_background: 3,
      image_generation: 4,
      ad_creative: 5,
    });
  });

  it('reads costs from the pricing table: a new pricing version changes the catalog', async () => {
    await t.dataSource.query(
      `INSERT INTO prices (cost_key, pricing_version, credits) VALUES ('ad_creative.default', 2, 7)`,
    );
    const res = await t.http().get('/api/v1/tools').expect(200);
    const ad = res.body.tools.find((tool: { id: string }) => tool.id === 'ad_creative');
    expect(ad).toMatchObject({ credits: 7, pricing_version: 2 });
  });

  it("lists each product photo preset with its operation's price, which a new pricing version changes", async () => {
    const before = await t.http().get('/api/v1/product-photo-presets').expect(200);
    const priceOf = (presets: Array<{ operation: string; credits: number; cost_key: string }>, operation: string) =>
      presets
        .filter((preset) => preset.operation === operation)
        .map(({ credits, cost_key }) => ({ credits, cost_key }));
    expect(new Set(priceOf(before.body.presets, 'studio_packshot').map((price) => price.credits))).toEqual(
      new Set([2]),
    );
    expect(priceOf(before.body.presets, 'premium_ad')[0]).toEqual({ credits: 5, cost_key: 'product_photo.premium_ad' });

    await t.dataSource.query(
      `INSERT INTO prices (cost_key, pricing_version, credits) VALUES ('product_photo.studio_packshot', 2, 6)`,
    );
    const after = await t
      .http()
      .get('/api/v1/product-photo-presets')
      .query({ operation: 'studio_packshot' })
      .expect(200);
    expect(after.body.presets.length).toBeGreaterThan(0);
    for (const preset of after.body.presets) {
      expect(preset).toMatchObject({ credits: 6, pricing_version: 2, cost_key: 'product_photo.studio_packshot' });
    }
  });
});
