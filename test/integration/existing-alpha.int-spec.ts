import { ProcessRole } from '../../src/core/bootstrap/role';
import { FakeSegmentationService } from '../support/fake-segmentation-service';
import { decodeRgba, fromFixture, paint, type RawFixture } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { liveCutoutApp } from '../support/live-cutouts';
import { creditTotals, jobsClient, type ResultBody } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

/**
 * `existing_alpha` `use` (issue 31, part 4) through the API with a live key and an in-process
 * worker: a source already cut out is its own mask (the segmenter is never asked), its alpha
 * is carried into the result to the pixel, composites on white or a colour are its alpha
 * blend, a source without meaningful transparency fails `source_not_transparent` with its
 * credits released, and such a remove-background job costs the image editing price, which the
 * catalog lists.
 */

const WIDTH = 160;
const HEIGHT = 120;
/** A new pricing version of the edit's price, so it differs from the cut-out's 1 credit. */
const EDIT_CREDITS = 3;
const CUTOUT_CREDITS = 1;

/** A bottle-like rounded shape whose edge fades over 8 pixels: alpha 0 outside, 255 inside, every value between. */
function softAlpha(x: number, y: number): number {
  const dx = (x + 0.5 - WIDTH / 2) / 45;
  const dy = (y + 0.5 - HEIGHT / 2) / 40;
  const distance = (Math.hypot(dx, dy) - 1) * 42;
  return Math.round(255 * Math.max(0, Math.min(1, 0.5 - distance / 8)));
}

/** A textured product (a gradient and stripes) with the soft alpha; black where transparent, as editors write it. */
function softCutout(): RawFixture {
  const colour = paint(WIDTH, HEIGHT, (x, y) => [
    150 + x / 4 + (Math.floor(x / 6) % 2) * 30,
    60 + y / 3,
    40 + ((x + y) % 17) * 4,
  ]);
  const data = Buffer.alloc(WIDTH * HEIGHT * 4);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = y * WIDTH + x;
      const a = softAlpha(x, y);
      if (a > 0) colour.data.copy(data, i * 4, i * 3, i * 3 + 3);
      data[i * 4 + 3] = a;
    }
  }
  return { data, width: WIDTH, height: HEIGHT, channels: 4 };
}

const SOFT = softCutout();
const alphaOf = (image: { data: Buffer; channels: number }) =>
  Array.from({ length: image.data.length / image.channels }, (_, i) => image.data[i * image.channels + 3]);

/** The source's colour blended over `fill` by its alpha: what a cut-out on that background must show. */
const blendedOver = (fill: number[]) => (i: number) => {
  const a = SOFT.data[i * 4 + 3] / 255;
  return [0, 1, 2].map((c) => SOFT.data[i * 4 + c] * a + fill[c] * (1 - a));
};

/** The largest difference of any colour channel between the result and `expected`, and their mean difference. */
function difference(result: { data: Buffer }, expected: (i: number) => number[]) {
  let worst = 0;
  let sum = 0;
  for (let i = 0; i < WIDTH * HEIGHT; i++) {
    const want = expected(i);
    for (let c = 0; c < 3; c++) {
      const off = Math.abs(result.data[i * 4 + c] - want[c]);
      worst = Math.max(worst, off);
      sum += off;
    }
  }
  return { worst, mean: sum / (WIDTH * HEIGHT * 3) };
}

describe('existing alpha through the API and an in-process worker', () => {
  let t: TestApp;
  let server: ImageSourceServer;
  let account: SeededAccount;
  const segmentation = new FakeSegmentationService();
  const segmented = () => segmentation.received.length;

  beforeAll(async () => {
    server = await ImageSourceServer.start();
    const png = { contentType: 'image/png' };
    server.serve('/soft.png', await fromFixture(SOFT).png().toBuffer(), png);
    server.serve('/soft.webp', await fromFixture(SOFT).webp({ lossless: true }).toBuffer(), {
      contentType: 'image/webp',
    });
    const photo = paint(WIDTH, HEIGHT, (x, y) => (softAlpha(x, y) > 128 ? [180, 60, 50] : [235, 235, 230]));
    server.serve('/opaque.png', await fromFixture(photo).png().toBuffer(), png);
    server.serve('/opaque.jpg', await fromFixture(photo).jpeg().toBuffer(), { contentType: 'image/jpeg' });
    server.serve('/alpha-255.png', await fromFixture(photo).ensureAlpha(1).png().toBuffer(), png);
    // Nearly empty: 100 opaque pixels of 19,200 (0.5 %), the rest transparent.
    const speck = Buffer.alloc(WIDTH * HEIGHT * 4);
    for (let i = 0; i < 100; i++) speck.set([20, 20, 20, 255], (60 * WIDTH + 30 + i) * 4);
    server.serve(
      '/nearly-empty.png',
      await fromFixture({ ...SOFT, data: speck })
        .png()
        .toBuffer(),
      png,
    );
    t = await liveCutoutApp(server, segmentation);
    // Prices are data: a new version of the edit's price, before any create reads the prices.
    await t.dataSource.query(`INSERT INTO prices (cost_key, pricing_version, credits) VALUES ($1, 2, $2)`, [
      'image_editing.default',
      EDIT_CREDITS,
    ]);
    account = await seedAccount(t, { credits: 1000 });
  });
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  /** Creates a live job and waits for it: its single result, the job as read, and what the balance lost. */
  async function run(path: string, body: object, key = () => account.liveKey) {
    const jobs = jobsClient(t, key);
    const before = await creditTotals(t, account.accountId);
    const res = await jobs.create(path, body);
    expect(res.status).toBe(202);
    const [result] = await jobs.results(res.body.job.id);
    const job = (await jobs.read(res.body.job.id)).job;
    const after = await creditTotals(t, account.accountId);
    // The ledger always sums to the balance.
    expect(after.ledgerSum).toBe(after.balance);
    return { result, job, spent: before.balance - after.balance, reserved: res.body.job.credits_reserved, jobs };
  }

  const removeBackground = (source: string, extra: object = {}) =>
    run('/remove-background', { input: [{ image_url: server.url(source) }], existing_alpha: 'use', ...extra });

  const decoded = async (jobs: ReturnType<typeof jobsClient>, result: ResultBody) => {
    expect(result.status).toBe('completed');
    return decodeRgba(await jobs.bytes(result.result_url ?? ''));
  };

  it('carries the alpha of a soft-edged PNG cut-out to the pixel without segmenting, at the edit price', async () => {
    const softValues = alphaOf(SOFT).filter((a) => a > 0 && a < 255);
    expect(new Set(softValues).size).toBeGreaterThan(100);
    const asked = segmented();
    const { result, job, spent, reserved, jobs } = await removeBackground('/soft.png');
    const image = await decoded(jobs, result);
    expect([image.width, image.height]).toEqual([WIDTH, HEIGHT]);
    expect(alphaOf(image)).toEqual(alphaOf(SOFT));
    // The colours are the source's own wherever it has any alpha (straight colour: nothing to clean at the edge).
    const visible = alphaOf(SOFT).flatMap((a, i) => (a > 0 ? [i] : []));
    expect(
      visible.every((i) => image.data.subarray(i * 4, i * 4 + 3).equals(SOFT.data.subarray(i * 4, i * 4 + 3))),
    ).toBe(true);
    expect(result.uncertainty).toBe(0);
    expect(segmented()).toBe(asked);
    // Still a remove_background job in its capacity group; only its price is the edit's.
    const [row] = await t.dataSource.query(`SELECT api, capacity_group, cost_key FROM jobs WHERE id = $1`, [job.id]);
    expect(row).toEqual({
      api: 'remove_background',
      capacity_group: 'background_removal',
      cost_key: 'image_editing.default',
    });
    expect([reserved, job.credits_used, result.credits_used, spent]).toEqual([
      EDIT_CREDITS,
      EDIT_CREDITS,
      EDIT_CREDITS,
      EDIT_CREDITS,
    ]);
  });

  it('keeps the alpha of a lossless WebP cut-out too', async () => {
    const asked = segmented();
    const { result, jobs } = await removeBackground('/soft.webp');
    expect(alphaOf(await decoded(jobs, result))).toEqual(alphaOf(SOFT));
    expect(segmented()).toBe(asked);
  });

  it('gives the source alpha itself as a mask (output.channels alpha)', async () => {
    const { result, jobs } = await removeBackground('/soft.png', { output: { channels: 'alpha' } });
    const mask = await decoded(jobs, result);
    // A one-channel PNG decodes to grey: its red channel is the mask.
    expect(Array.from({ length: WIDTH * HEIGHT }, (_, i) => mask.data[i * 4])).toEqual(alphaOf(SOFT));
  });

  it('composes onto white and onto a colour as the alpha blend of the source', async () => {
    const cases = [
      { background: { type: 'white' }, fill: [255, 255, 255] },
      { background: { type: 'color', color: '#2050A0' }, fill: [0x20, 0x50, 0xa0] },
    ];
    for (const { background, fill } of cases) {
      const { result, jobs } = await removeBackground('/soft.png', { background });
      const image = await decoded(jobs, result);
      // The blend rounded to whole levels, every pixel (measured: worst 0.498, mean 0.028 of a level).
      const off = difference(image, blendedOver(fill));
      expect(off.worst).toBeLessThanOrEqual(0.5);
      expect(off.mean).toBeLessThan(0.05);
      expect(alphaOf(image).every((a) => a === 255)).toBe(true);
    }
  });

  it('does the same on image/edit with a background operation, priced as any edit', async () => {
    const asked = segmented();
    const body = (background: object) => ({
      input: [{ image_url: server.url('/soft.png') }],
      operations: { background },
      existing_alpha: 'use',
    });
    const transparent = await run('/image/edit', body({ type: 'transparent' }));
    expect(alphaOf(await decoded(transparent.jobs, transparent.result))).toEqual(alphaOf(SOFT));
    expect(transparent.result.uncertainty).toBe(0);
    expect(transparent.spent).toBe(EDIT_CREDITS);

    const white = await run('/image/edit', body({ type: 'white' }));
    const off = difference(await decoded(white.jobs, white.result), blendedOver([255, 255, 255]));
    expect(off.worst).toBeLessThanOrEqual(0.5);
    expect(segmented()).toBe(asked);
  });

  it('still segments a transparent source when existing_alpha is absent, at the cut-out price', async () => {
    const asked = segmented();
    const { result, spent } = await run('/remove-background', { input: [{ image_url: server.url('/soft.png') }] });
    expect(result.status).toBe('completed');
    expect(segmented()).toBe(asked + 1);
    expect(spent).toBe(CUTOUT_CREDITS);
  });

  it('needs no segmenter: on a deployment without one (SEGMENTER none) an edit using it completes', async () => {
    const bare = await createTestApp(
      { ...GENEROUS_LIMITS, OUTBOUND_ALLOWLIST: '127.0.0.1', SEGMENTER: 'none' },
      { role: ProcessRole.All },
    );
    try {
      const owner = await seedAccount(bare, { credits: 10 });
      const jobs = jobsClient(bare, () => owner.liveKey);
      const body = (existingAlpha: string) => ({
        input: [{ image_url: server.url('/soft.png') }],
        operations: { background: { type: 'transparent' } },
        existing_alpha: existingAlpha,
      });
      const used = await jobs.create('/image/edit', body('use'));
      expect(used.status).toBe(202);
      const [result] = await jobs.results(used.body.job.id);
      expect(result.status).toBe('completed');
      expect(alphaOf(await decodeRgba(await jobs.bytes(result.result_url ?? '')))).toEqual(alphaOf(SOFT));
      // The same edit segmenting the source fails here, as any background operation does without a segmenter.
      const segmenting = await jobs.create('/image/edit', body('ignore'));
      const [refused] = await jobs.results(segmenting.body.job.id);
      expect([refused.status, refused.error_code]).toEqual(['failed', 'processing_failed']);
    } finally {
      await bare.close();
    }
  });

  it.each([
    ['an opaque PNG (no alpha channel)', '/opaque.png'],
    ['a JPEG', '/opaque.jpg'],
    ['an RGBA PNG whose alpha is 255 everywhere', '/alpha-255.png'],
    ['a nearly empty PNG (0.5 % opaque)', '/nearly-empty.png'],
  ])('fails %s with source_not_transparent, not retried, credits released', async (_what, source) => {
    const asked = segmented();
    const { result, job, spent, reserved } = await removeBackground(source);
    expect(result.status).toBe('failed');
    expect(result.error_code).toBe('source_not_transparent');
    expect(result.error_message).toMatch(/meaningful transparency/);
    expect(reserved).toBe(EDIT_CREDITS);
    expect([job.credits_used, result.credits_used, spent]).toEqual([0, 0, 0]);
    expect(segmented()).toBe(asked);
    // Failed at once: one attempt, not the retries of a passing failure.
    const [row] = await t.dataSource.query(`SELECT attempts FROM job_results WHERE id = $1`, [result.id]);
    expect(row.attempts).toBeLessThanOrEqual(1);
  });

  it("lists the option's price under remove_background in the catalog, and says so in its description", async () => {
    const res = await t.http().get('/api/v1/tools').expect(200);
    const tools = res.body.tools as Array<{ id: string; credits: number; description: string; option_prices: [] }>;
    const cutout = tools.find((tool) => tool.id === 'remove_background');
    expect(cutout?.credits).toBe(CUTOUT_CREDITS);
    expect(cutout?.option_prices).toEqual([
      {
        field: 'existing_alpha',
        value: 'use',
        credits: EDIT_CREDITS,
        cost_key: 'image_editing.default',
        pricing_version: 2,
        description: expect.stringContaining('image edit'),
      },
    ]);
    expect(cutout?.description).toMatch(/existing_alpha use/);
    expect(tools.find((tool) => tool.id === 'image_editing')?.option_prices).toEqual([]);
  });

  it('imitates it in the sandbox: a cut-out sure of itself, or source_not_transparent for sandbox_opaque', async () => {
    const jobs = jobsClient(t, () => account.sandboxKey);
    const res = await jobs.create('/remove-background', {
      input: [
        { image_url: 'https://images.example.com/p/cut.png', external_id: 'sandbox_unsure-1' },
        { image_url: 'https://images.example.com/p/photo.jpg', external_id: 'sandbox_opaque-2' },
      ],
      existing_alpha: 'use',
    });
    expect(res.status).toBe(202);
    const [cut, opaque] = await jobs.results(res.body.job.id);
    expect([cut.status, cut.uncertainty]).toEqual(['completed', 0]);
    expect([opaque.status, opaque.error_code]).toEqual(['failed', 'source_not_transparent']);
  });
});
