import { ProcessRole } from '../../src/core/bootstrap/role';
import { OUTBOUND_TLS } from '../../src/core/outbound/outbound.module';
import { FAKE_IMAGE_PROVIDER_KEY, FakeImageProvider } from '../support/fake-image-provider';
import { decodeRgba } from '../support/image-fixtures';
import { BLUE_GREY, DISC, near, ORANGE, startGenerativeSources, type GenerativeSources } from '../support/generative';
import { creditTotals, jobsClient } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';
import { until } from '../support/waiting';
import { testCertificate, WebhookReceiver } from '../support/webhook-receiver';

interface EventBody {
  type: string;
  job: { id: string; status: string };
  result?: { status: string; credits_used?: number };
}

/** Share of the points within `radius` of (cx, cy), on a grid of step 2, whose colour is near `colour`. */
function shareNear(
  image: { pixel(x: number, y: number): number[] },
  cx: number,
  cy: number,
  radius: number,
  colour: number[],
  tolerance: number,
): number {
  let inside = 0;
  let matching = 0;
  for (let y = cy - radius; y <= cy + radius; y += 2) {
    for (let x = cx - radius; x <= cx + radius; x += 2) {
      if ((x - cx) ** 2 + (y - cy) ** 2 > radius ** 2) continue;
      inside++;
      if (near(image.pixel(x, y), colour, tolerance)) matching++;
    }
  }
  return matching / inside;
}

describe('Generative tools with an image provider, end to end', () => {
  let t: TestApp;
  let provider: FakeImageProvider;
  let sources: GenerativeSources;
  let receiver: WebhookReceiver;
  let account: SeededAccount;
  const client = () => jobsClient(t, () => account.liveKey);

  beforeAll(async () => {
    [provider, sources, receiver] = await Promise.all([
      FakeImageProvider.start(),
      startGenerativeSources(),
      WebhookReceiver.start(),
    ]);
    const { cert } = testCertificate();
    t = await createTestApp(
      {
        ...GENEROUS_LIMITS,
        IMAGE_PROVIDER: 'openai',
        IMAGE_PROVIDER_BASE_URL: provider.url,
        IMAGE_PROVIDER_API_KEY: FAKE_IMAGE_PROVIDER_KEY,
        IMAGE_PROVIDER_TIMEOUT_SECONDS: '2',
        IMAGE_PROVIDER_MAX_RETRIES: '1',
        SEGMENTER: 'remote',
        SEGMENTER_URL: sources.server.url('/segment'),
        OUTBOUND_ALLOWLIST: '127.0.0.1',
        CAPACITY_ACCOUNT_SHARE: '1',
      },
      { role: ProcessRole.All, override: (builder) => builder.overrideProvider(OUTBOUND_TLS).useValue({ ca: [cert] }) },
    );
    account = await seedAccount(t, { credits: 200 });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([provider?.stop(), sources?.server.stop(), receiver?.stop()]);
  });

  /** The create body with this spec's webhook receiver. */
  const hooked = (body: object) => ({ ...body, webhook_url: receiver.url });

  /** The job's events, once its terminal event arrived: one per result, then the job's. */
  async function eventsOf(jobId: string): Promise<EventBody[]> {
    const ofJob = () =>
      receiver.received
        .map((delivery) => JSON.parse(delivery.body) as EventBody)
        .filter((event) => event.job.id === jobId);
    await until(
      async () => ofJob().some((event) => event.type.startsWith('image_api.job.')),
      `the job event of ${jobId}`,
    );
    return ofJob();
  }

  async function expectCompletedEvents(jobId: string, results: number): Promise<void> {
    const events = await eventsOf(jobId);
    expect(events.map((event) => event.type)).toEqual([
      ...Array.from({ length: results }, () => 'image_api.result.completed'),
      'image_api.job.completed',
    ]);
  }

  /** The requests the provider received while `work` ran. */
  async function providerRequestsDuring(work: () => Promise<void>) {
    const first = provider.requests.length;
    await work();
    return provider.requests.slice(first);
  }

  it('says in the catalog that every generative tool is available, and through which provider', async () => {
    const { body } = await t.http().get('/api/v1/tools').expect(200);
    const entry = (id: string) => body.tools.find((tool: { id: string }) => tool.id === id);
    for (const id of ['image_ai_edit', 'image_generation']) {
      expect(entry(id)).toMatchObject({ available: true, mode: 'openai (gpt-image-1)', unavailable_reason: null });
    }
    expect(entry('ai_background')).toMatchObject({ available: true, mode: 'generated scenes (openai (gpt-image-1))' });
    expect(entry('ad_creative').mode).toContain('premium_ad backdrops by openai (gpt-image-1)');
  });

  it(
    "keeps the product's own pixels under strict preservation while the provider " +
      'repaints everything, at the exact ratio, with webhooks and credits per result',
    async () => {
      const credits = await creditTotals(t, account.accountId);
      const prompt = 'Place it on white marble,\nmorning light';
      let jobId = '';
      const requests = await providerRequestsDuring(async () => {
        const res = await client()
          .create('/image/ai-edit', {
            input: [{ image_url: sources.photoUrl }],
            options: { prompt, aspect_ratio: '1:1', preservation_level: 'strict' },
            output: { format: 'png' },
            webhook_url: receiver.url,
          })
          .expect(202);
        jobId = res.body.job.id;
        const [result] = await client().results(jobId);
        expect(result).toMatchObject({ status: 'completed', credits_used: 4, error_code: null });
        const image = await client().download(result.result_url as string);
        // 480 x 360 extended to 1:1 around the subject: the disc moves down by 60 to the centre.
        expect([image.width, image.height]).toEqual([480, 480]);
        expect(shareNear(image, DISC.cx, DISC.cy + 60, DISC.r - 3, ORANGE, 6)).toBe(1);
        // Everything else is the provider's: none of the photo's blue-grey is left.
        expect(shareNear(image, 40, 40, 30, BLUE_GREY, 20)).toBe(0);
        expect(shareNear(image, 240, 460, 15, BLUE_GREY, 20)).toBe(0);
      });
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({
        path: '/v1/images/edits',
        authorized: true,
        model: 'gpt-image-1',
        prompt: prompt.replace('\n', '\r\n'),
      });
      expect(requests[0].images).toEqual([expect.objectContaining({ width: 480, height: 480 })]);
      expect(requests[0].mask).toEqual({ width: 480, height: 480 });
      expect((await creditTotals(t, account.accountId)).balance).toBe(credits.balance - 4);

      const events = await eventsOf(jobId);
      expect(events.map((event) => event.type)).toEqual(['image_api.result.completed', 'image_api.job.completed']);
      expect(events[0].result).toMatchObject({ status: 'completed' });
    },
  );

  it('hands the whole image to the provider under creative preservation', async () => {
    const res = await client()
      .create(
        '/image/ai-edit',
        hooked({
          input: [{ image_url: sources.photoUrl }],
          options: { prompt: 'Make it a watercolour', preservation_level: 'creative' },
          output: { format: 'png' },
        }),
      )
      .expect(202);
    const [result] = await client().results(res.body.job.id);
    await expectCompletedEvents(res.body.job.id, 1);
    expect(result.status).toBe('completed');
    const image = await client().download(result.result_url as string);
    expect([image.width, image.height]).toEqual([480, 360]);
    expect(shareNear(image, DISC.cx, DISC.cy, DISC.r - 3, ORANGE, 6)).toBeLessThan(0.05);
  });

  it('composes the product into a generated scene at the exact ratio, a different scene per variant', async () => {
    const requests = await providerRequestsDuring(async () => {
      const res = await client()
        .create(
          '/scene/create',
          hooked({
            input: [{ image_url: sources.photoUrl }],
            scene: { prompt: 'On a kitchen counter by a window', aspect_ratio: '4:5', shadow: 'soft' },
            output: { number_of_images: 2, format: 'png' },
          }),
        )
        .expect(202);
      const results = await client().results(res.body.job.id);
      await expectCompletedEvents(res.body.job.id, 2);
      expect(results.map((result) => [result.status, result.credits_used])).toEqual([
        ['completed', 3],
        ['completed', 3],
      ]);
      const images = await Promise.all(results.map((result) => client().download(result.result_url as string)));
      for (const image of images) {
        expect(image.width * 5).toBe(image.height * 4);
        let product = 0;
        for (let y = 0; y < image.height; y += 2)
          for (let x = 0; x < image.width; x += 2) if (near(image.pixel(x, y), ORANGE, 12)) product++;
        expect(product).toBeGreaterThan(1000);
        expect(near(image.pixel(3, 3), BLUE_GREY, 20)).toBe(false);
      }
      expect(near(images[0].pixel(3, 3), images[1].pixel(3, 3), 6)).toBe(false);
    });
    expect(requests.map((request) => [request.path, request.prompt])).toEqual([
      ['/v1/images/edits', 'On a kitchen counter by a window'],
      ['/v1/images/edits', 'On a kitchen counter by a window'],
    ]);
  });

  it('generates distinct variants at the exact ratio', async () => {
    const prompt = 'A ceramic mug on a linen tablecloth, studio light';
    const requests = await providerRequestsDuring(async () => {
      const res = await client()
        .create(
          '/image/generate',
          hooked({ prompt, options: { aspect_ratio: '16:9' }, output: { number_of_images: 3, format: 'png' } }),
        )
        .expect(202);
      const results = await client().results(res.body.job.id);
      await expectCompletedEvents(res.body.job.id, 3);
      expect(results.map((result) => [result.status, result.credits_used])).toEqual([
        ['completed', 4],
        ['completed', 4],
        ['completed', 4],
      ]);
      const images = await Promise.all(results.map((result) => client().download(result.result_url as string)));
      for (const image of images) expect(image.width * 9).toBe(image.height * 16);
      const corners = images.map((image) => image.pixel(0, 0));
      for (let i = 0; i < corners.length; i++)
        for (let j = i + 1; j < corners.length; j++) expect(near(corners[i], corners[j], 6)).toBe(false);
    });
    expect(requests.map((request) => [request.path, request.prompt, request.size])).toEqual(
      Array.from({ length: 3 }, () => ['/v1/images/generations', prompt, '1536x1024']),
    );
  });

  it(
    "makes a premium_ad product photo on the preset's " + 'canvas, the backdrop painted from the instructions',
    async () => {
      const instructions = 'A dark velvet backdrop with a single warm spotlight';
      const requests = await providerRequestsDuring(async () => {
        const res = await client()
          .create(
            '/product-photo-jobs',
            hooked({
              images: [{ source_url: sources.photoUrl, external_id: 'ad-1' }],
              preset: 'instagram_story_ad',
              instructions,
            }),
          )
          .expect(202);
        const [result] = await client().results(res.body.job.id);
        await expectCompletedEvents(res.body.job.id, 1);
        expect(result).toMatchObject({ status: 'completed', credits_used: 5 });
        const bytes = await client().bytes(result.result_url as string);
        expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
        const image = await decodeRgba(bytes);
        expect([image.width, image.height]).toEqual([1080, 1920]);
        let product = 0;
        for (let y = 0; y < image.height; y += 4)
          for (let x = 0; x < image.width; x += 4) if (near(image.pixel(x, y), ORANGE, 16)) product++;
        expect(product).toBeGreaterThan(500);
      });
      expect(requests.map((request) => [request.path, request.prompt])).toEqual([
        ['/v1/images/generations', instructions],
      ]);
    },
  );

  it('makes a natural_lifestyle product photo with the provider, the scene painted from the instructions', async () => {
    const instructions = 'On a sunlit wooden breakfast table';
    const requests = await providerRequestsDuring(async () => {
      const res = await client()
        .create(
          '/product-photo-jobs',
          hooked({
            images: [{ source_url: sources.photoUrl, external_id: 'lifestyle-1' }],
            preset: 'instagram_feed_image',
            instructions,
          }),
        )
        .expect(202);
      const [result] = await client().results(res.body.job.id);
      expect(result).toMatchObject({ status: 'completed', credits_used: 3 });
      await expectCompletedEvents(res.body.job.id, 1);
      const image = await decodeRgba(await client().bytes(result.result_url as string));
      expect([image.width, image.height]).toEqual([1080, 1350]);
      expect(near(image.pixel(3, 3), BLUE_GREY, 20)).toBe(false);
    });
    expect(requests.map((request) => [request.path, request.prompt])).toEqual([['/v1/images/edits', instructions]]);
  });

  it('lays out an ad creative without asking the provider, credits and webhooks as for every tool', async () => {
    const credits = await creditTotals(t, account.accountId);
    const requests = await providerRequestsDuring(async () => {
      const res = await client()
        .create(
          '/ad/create',
          hooked({
            input: [{ image_url: sources.photoUrl }],
            creative: { platform: 'pinterest', style: 'luxury', headline: 'Autumn sale' },
            output: { format: 'png' },
          }),
        )
        .expect(202);
      const [result] = await client().results(res.body.job.id);
      expect(result).toMatchObject({ status: 'completed', credits_used: 5 });
      await expectCompletedEvents(res.body.job.id, 1);
      const image = await client().download(result.result_url as string);
      expect([image.width, image.height]).toEqual([1000, 1500]);
    });
    expect(requests).toEqual([]);
    expect((await creditTotals(t, account.accountId)).balance).toBe(credits.balance - 5);
  });

  it(
    "fails a result with provider_error once the provider's " + '500s outlast the retries, and gives its credits back',
    async () => {
      const credits = await creditTotals(t, account.accountId);
      provider.script({ kind: 'server_error' }, { kind: 'server_error' });
      const requests = await providerRequestsDuring(async () => {
        const res = await client()
          .create('/image/generate', { prompt: 'A red bicycle', output: { format: 'png' } })
          .expect(202);
        const [result] = await client().results(res.body.job.id);
        expect(result).toMatchObject({
          status: 'failed',
          error_code: 'provider_error',
          credits_used: 0,
          result_url: null,
        });
      });
      expect(requests.map((request) => request.behaviour)).toEqual(['server_error', 'server_error']);
      expect(await creditTotals(t, account.accountId)).toEqual(credits);
    },
  );

  it(
    'fails a result with timeout when the provider is ' + 'slower than its deadline, and gives its credits back',
    async () => {
      const credits = await creditTotals(t, account.accountId);
      provider.script({ kind: 'slow', delayMs: 10_000 }, { kind: 'slow', delayMs: 10_000 });
      const res = await client()
        .create('/image/generate', { prompt: 'A green kettle', output: { format: 'png' } })
        .expect(202);
      const [result] = await client().results(res.body.job.id);
      expect(result).toMatchObject({ status: 'failed', error_code: 'timeout', credits_used: 0, result_url: null });
      expect(await creditTotals(t, account.accountId)).toEqual(credits);
    },
  );
});
