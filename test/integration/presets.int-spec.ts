import { CatalogController } from '../../src/modules/catalog/catalog.controller';
import { createTestApp, type TestApp } from '../support/test-app';

interface Preset {
  id: string;
  name: string;
  channel: string;
  description: string;
  operation: string;
  width: number | null;
  height: number | null;
  format: string;
  background: string;
  credits: number;
  cost_key: string;
  pricing_version: number;
}

const PRESETS = '/api/v1/product-photo-presets';

/** The six product photo operations of spec 4.7, spelled out independently of the enum. */
const OPERATIONS = [
  'product_photo_enhance',
  'remove_background',
  'studio_packshot',
  'marketplace_clean',
  'natural_lifestyle',
  'premium_ad',
];

const sizeOrNull = (value: unknown): boolean => value === null || (Number.isInteger(value) && (value as number) > 0);

describe(`${CatalogController.name} presets`, () => {
  let t: TestApp;
  let all: Preset[];

  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.http().get(PRESETS).expect(200);
    all = res.body.presets as Preset[];
  });
  afterAll(() => t.close());

  it('is public and carries the request id', async () => {
    const res = await t.http().get(PRESETS).expect(200);
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    expect(Array.isArray(res.body.presets)).toBe(true);
    expect(res.body.presets.length).toBeGreaterThan(0);
  });

  it('ignores an Authorization header it does not need', async () => {
    await t.http().get(PRESETS).set('Authorization', 'Bearer not-a-key').expect(200);
  });

  it('describes every preset with exactly the documented fields', () => {
    for (const preset of all) {
      expect(Object.keys(preset).sort()).toEqual([
        'background',
        'channel',
        'cost_key',
        'credits',
        'description',
        'format',
        'height',
        'id',
        'name',
        'operation',
        'pricing_version',
        'width',
      ]);
      expect(preset.cost_key).toBe(`product_photo.${preset.operation}`);
      expect(Number.isInteger(preset.credits) && preset.credits > 0).toBe(true);
      expect(preset.id).toMatch(/^[a-z0-9_]+$/);
      for (const field of ['name', 'channel', 'description', 'background'] as const) {
        expect(typeof preset[field]).toBe('string');
        expect(preset[field].length).toBeGreaterThan(0);
      }
      expect(OPERATIONS).toContain(preset.operation);
      expect(['jpg', 'png', 'webp']).toContain(preset.format);
      expect(sizeOrNull(preset.width)).toBe(true);
      expect(sizeOrNull(preset.height)).toBe(true);
      // A size is given in full or not at all.
      expect(preset.width === null).toBe(preset.height === null);
    }
  });

  it('never pairs a transparent background with JPEG', () => {
    for (const preset of all) {
      if (preset.background === 'transparent') expect(preset.format).not.toBe('jpg');
    }
  });

  it('has unique ids', () => {
    const ids = all.map((preset) => preset.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('includes an Amazon main image on white, a square shop image and an Instagram feed image', () => {
    const amazonMain = all.find((preset) => preset.channel === 'amazon' && /main/i.test(preset.name));
    expect(amazonMain).toMatchObject({ background: 'white' });
    expect(amazonMain?.width).toBe(amazonMain?.height);

    const squareShop = all.find(
      (preset) => /shop/i.test(preset.name) && preset.width !== null && preset.width === preset.height,
    );
    expect(squareShop).toBeDefined();

    const instagramFeed = all.find((preset) => preset.channel === 'instagram' && /feed/i.test(preset.name));
    expect(instagramFeed).toBeDefined();
  });

  it('filters by ?operation=marketplace_clean', async () => {
    const res = await t.http().get(PRESETS).query({ operation: 'marketplace_clean' }).expect(200);
    const filtered = res.body.presets as Preset[];
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((preset) => preset.operation === 'marketplace_clean')).toBe(true);
    expect(filtered.map((preset) => preset.id).sort()).toEqual(
      all
        .filter((preset) => preset.operation === 'marketplace_clean')
        .map((preset) => preset.id)
        .sort(),
    );
  });

  it.each(OPERATIONS)('every preset of operation %s is returned by its filter', async (operation) => {
    const res = await t.http().get(PRESETS).query({ operation }).expect(200);
    expect((res.body.presets as Preset[]).map((preset) => preset.id).sort()).toEqual(
      all
        .filter((preset) => preset.operation === operation)
        .map((preset) => preset.id)
        .sort(),
    );
  });

  it('refuses ?operation=bogus with 400 naming query.operation', async () => {
    const res = await t.http().get(PRESETS).query({ operation: 'bogus' }).expect(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details.errors).toEqual([{ path: 'query.operation', message: expect.any(String) }]);
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
  });

  it('refuses a repeated operation parameter with 400', async () => {
    const res = await t.http().get(`${PRESETS}?operation=marketplace_clean&operation=premium_ad`).expect(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('refuses an unknown query parameter with 400 naming it', async () => {
    const res = await t.http().get(PRESETS).query({ operaton: 'marketplace_clean' }).expect(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details.errors).toEqual([{ path: 'query.operaton', message: expect.any(String) }]);
  });
});
