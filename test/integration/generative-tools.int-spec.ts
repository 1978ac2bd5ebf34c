import { ProcessRole } from '../../src/core/bootstrap/role';
import { decodeRgba } from '../support/image-fixtures';
import { BLUE_GREY, near, ORANGE, startGenerativeSources, type GenerativeSources } from '../support/generative';
import { creditTotals, jobsClient, writtenRows } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

describe('Generative tools without an image provider', () => {
  let t: TestApp;
  let sources: GenerativeSources;
  let account: SeededAccount;
  const client = () => jobsClient(t, () => account.liveKey);

  beforeAll(async () => {
    sources = await startGenerativeSources();
    t = await createTestApp(
      {
        ...GENEROUS_LIMITS,
        SEGMENTER: 'remote',
        SEGMENTER_URL: sources.server.url('/segment'),
        STUDIO_BACKDROPS: 'true',
        OUTBOUND_ALLOWLIST: '127.0.0.1',
        CAPACITY_ACCOUNT_SHARE: '1',
      },
      { role: ProcessRole.All },
    );
    account = await seedAccount(t, { credits: 100 });
  });
  afterAll(async () => {
    await t?.close();
    await sources?.server.stop();
  });

  it('says in the catalog which tools need a provider and which run locally, and how', async () => {
    const { body } = await t.http().get('/api/v1/tools').expect(200);
    const entry = (id: string) => body.tools.find((tool: { id: string }) => tool.id === id);
    for (const id of ['image_ai_edit', 'image_generation']) {
      expect(entry(id)).toMatchObject({
        available: false,
        mode: null,
        unavailable_reason: expect.stringContaining('IMAGE_PROVIDER'),
      });
    }
    expect(entry('ai_background')).toMatchObject({
      available: true,
      mode: expect.stringContaining('studio backdrops'),
      unavailable_reason: null,
    });
    expect(entry('ad_creative')).toMatchObject({
      available: true,
      mode: expect.stringContaining('cut out'),
      unavailable_reason: null,
    });
  });

  it('answers 503 tool_unavailable for a tool that needs a provider, writing and charging nothing', async () => {
    const before = await writtenRows(t);
    const credits = await creditTotals(t, account.accountId);
    const edit = await client().create('/image/ai-edit', {
      input: [{ image_url: sources.photoUrl }],
      options: { prompt: 'On marble' },
    });
    const generate = await client().create('/image/generate', { prompt: 'A red bicycle' });
    for (const res of [edit, generate]) {
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('tool_unavailable');
    }
    expect(await writtenRows(t)).toEqual(before);
    expect(await creditTotals(t, account.accountId)).toEqual(credits);
  });

  it('places the product on a studio backdrop at the exact ratio, a different backdrop per variant', async () => {
    const credits = await creditTotals(t, account.accountId);
    const res = await client()
      .create('/scene/create', {
        input: [{ image_url: sources.photoUrl }],
        scene: { prompt: 'On a kitchen counter', aspect_ratio: '16:9', shadow: 'soft' },
        output: { number_of_images: 2, format: 'png' },
      })
      .expect(202);
    const results = await client().results(res.body.job.id);
    expect(results.map((result) => result.status)).toEqual(['completed', 'completed']);
    const images = await Promise.all(results.map((result) => client().download(result.result_url as string)));
    for (const image of images) {
      expect(image.width * 9).toBe(image.height * 16);
      // The product is there, whole, in its own colour; the corner is backdrop, not the photo's blue-grey.
      let product = 0;
      for (let y = 0; y < image.height; y++)
        for (let x = 0; x < image.width; x++) if (near(image.pixel(x, y), ORANGE, 12)) product++;
      const expectedArea = Math.PI * (0.62 * image.height * 0.5) ** 2;
      expect(product / expectedArea).toBeGreaterThan(0.85);
      expect(product / expectedArea).toBeLessThan(1.1);
      expect(near(image.pixel(3, 3), BLUE_GREY, 20)).toBe(false);
    }
    expect(near(images[0].pixel(3, 3), images[1].pixel(3, 3), 6)).toBe(false);
    expect(results.map((result) => result.credits_used)).toEqual([3, 3]);
    expect((await creditTotals(t, account.accountId)).balance).toBe(credits.balance - 6);
  });

  it("lays out ads on each platform's exact canvas with the brand colour, credits captured per result", async () => {
    const platforms = { instagram_story: [1080, 1920], facebook_feed: [1200, 628] } as const;
    for (const [platform, [width, height]] of Object.entries(platforms)) {
      const res = await client()
        .create('/ad/create', {
          input: [{ image_url: sources.photoUrl }],
          creative: {
            platform,
            style: 'bold',
            headline: 'Ultra-light trail running shoes built for all mountain paths',
            call_to_action: 'Shop now',
            brand_color: '#7C3AED',
          },
          output: { format: 'png' },
        })
        .expect(202);
      const [result] = await client().results(res.body.job.id);
      expect(result).toMatchObject({ status: 'completed', credits_used: 5, error_message: null });
      const image = await client().download(result.result_url as string);
      expect([image.width, image.height]).toEqual([width, height]);
      let brand = 0;
      let product = 0;
      for (let y = 0; y < height; y += 2) {
        for (let x = 0; x < width; x += 2) {
          if (near(image.pixel(x, y), [124, 58, 237], 24)) brand++;
          if (near(image.pixel(x, y), ORANGE, 12)) product++;
        }
      }
      expect(brand).toBeGreaterThan((width * height) / 4 / 10);
      expect(product).toBeGreaterThan(100);
    }
  });

  it("makes a natural_lifestyle product photo on the preset's canvas and format", async () => {
    const res = await client()
      .create('/product-photo-jobs', {
        images: [{ source_url: sources.photoUrl, external_id: 'lifestyle-1' }],
        preset: 'instagram_feed_image',
      })
      .expect(202);
    const [result] = await client().results(res.body.job.id);
    expect(result.status).toBe('completed');
    const bytes = await client().bytes(result.result_url as string);
    expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const image = await decodeRgba(bytes);
    expect([image.width, image.height]).toEqual([1080, 1350]);
  });
});
