import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { undecodableMessage } from '../../src/core/image/source-image';
import { ResultWorkService } from '../../src/modules/jobs/worker/result-work.service';
import { decodeRgba, fromFixture, paint, productPhoto } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { creditTotals, idempotencyKey, waitForJob, type ResultBody } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

/** Every source case of the issue, served by the loopback server under its external_id. */
async function serveFixtures(server: ImageSourceServer): Promise<void> {
  const photo = productPhoto(400, 300);
  server.serve(
    '/exif.jpg',
    await fromFixture(paint(400, 200, (x) => (x < 200 ? [230, 10, 10] : [10, 10, 230])))
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer(),
    { contentType: 'image/jpeg' },
  );
  server.serve('/alpha.png', await fromFixture(photo).ensureAlpha(0.5).png().toBuffer(), { contentType: 'image/png' });
  server.serve('/photo.webp', await fromFixture(photo).webp().toBuffer(), { contentType: 'image/webp' });
  server.serve('/photo.avif', await fromFixture(photo).avif({ effort: 0 }).toBuffer(), { contentType: 'image/avif' });
  server.serve('/photo.gif', await fromFixture(photo).gif().toBuffer(), { contentType: 'image/gif' });
  server.serve('/photo.tiff', await fromFixture(photo).tiff().toBuffer(), { contentType: 'image/tiff' });
  // An sRGB red converted to CMYK with an embedded profile; it must come back red.
  server.serve(
    '/cmyk.jpg',
    await fromFixture(paint(300, 200, () => [210, 30, 40]))
      .toColourspace('cmyk')
      .withIccProfile('cmyk')
      .jpeg()
      .toBuffer(),
    {
      contentType: 'image/jpeg',
    },
  );
  server.serve('/deep.png', await fromFixture(photo).toColourspace('rgb16').png().toBuffer(), {
    contentType: 'image/png',
  });
  // A few kilobytes that would decode to 144 megapixels.
  server.serve(
    '/huge.png',
    await sharp({ create: { width: 12000, height: 12000, channels: 3, background: '#ffffff' } })
      .png({ compressionLevel: 9 })
      .toBuffer(),
    {
      contentType: 'image/png',
    },
  );
  // A whole header and half the pixel data: read as a PNG, and fails as its rows are decoded.
  const noisy = await sharp({
    create: {
      width: 300,
      height: 200,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  server.serve('/torn.png', noisy.subarray(0, Math.floor(noisy.length / 2)), { contentType: 'image/png' });
  server.serve('/page.jpg', '<!doctype html><html><body>Not a photo</body></html>', { contentType: 'image/jpeg' });
  server.serve('/missing.jpg', 'no such image', { status: 404, contentType: 'text/plain' });
  server.failThenServe('/flaky.jpg', 1, 500, await fromFixture(photo).jpeg().toBuffer(), 'image/jpeg');
  server.hang('/slow.jpg');
  for (let hop = 0; hop < 4; hop++) server.redirect(`/loop-${hop}`, `/loop-${hop + 1}`);
  server.serve('/loop-4', await fromFixture(photo).jpeg().toBuffer(), { contentType: 'image/jpeg' });
  server.serve('/elsewhere.jpg', await fromFixture(photo).jpeg().toBuffer(), { contentType: 'image/jpeg' });
  server.redirect('/to-elsewhere.jpg', server.url('/elsewhere.jpg', '127.0.0.2'));
}

describe('live image editing through the API and an in-process worker', () => {
  let t: TestApp;
  let server: ImageSourceServer;
  let account: SeededAccount;

  beforeAll(async () => {
    server = await ImageSourceServer.start(['127.0.0.1', '127.0.0.2']);
    await serveFixtures(server);
    t = await createTestApp(
      { ...GENEROUS_LIMITS, OUTBOUND_ALLOWLIST: '127.0.0.1', SOURCE_FETCH_TIMEOUT_SECONDS: '2', RESULT_ATTEMPTS: '2' },
      { role: ProcessRole.All },
    );
    account = await seedAccount(t, { credits: 100 });
  });
  afterAll(async () => {
    await t.close();
    await server.stop();
  });

  const create = (body: object, path = '/api/v1/image/edit') =>
    t.http().post(path).set(bearer(account.liveKey)).set('Idempotency-Key', idempotencyKey()).send(body);

  const readJob = async (jobId: string) => {
    await waitForJob(t, jobId, undefined, 45_000);
    return (await t.http().get(`/api/v1/jobs/${jobId}`).set(bearer(account.liveKey)).expect(200)).body as {
      job: { status: string; credits_reserved: number; credits_used: number };
      results: ResultBody[];
    };
  };

  const download = async (url: string) => (await t.http().get(pathOf(url)).buffer(true).expect(200)).body as Buffer;

  it('marks image_editing available for live keys in the catalog', async () => {
    const res = await t.http().get('/api/v1/tools').expect(200);
    const available = res.body.tools
      .filter((tool: { available: boolean }) => tool.available)
      .map((tool: { id: string }) => tool.id);
    expect(available).toContain('image_editing');
  });

  it('turns every kind of source into the right result or error code, and settles credits per result', async () => {
    const cases: Array<[string, string, string | null]> = [
      ['exif', '/exif.jpg', null],
      ['alpha', '/alpha.png', null],
      ['webp', '/photo.webp', null],
      ['avif', '/photo.avif', null],
      ['gif', '/photo.gif', null],
      ['tiff', '/photo.tiff', null],
      ['cmyk', '/cmyk.jpg', null],
      ['deep', '/deep.png', null],
      ['flaky', '/flaky.jpg', null],
      ['huge', '/huge.png', 'source_too_large'],
      ['page', '/page.jpg', 'source_not_image'],
      ['torn', '/torn.png', 'source_not_image'],
      ['missing', '/missing.jpg', 'source_fetch_failed'],
      ['slow', '/slow.jpg', 'source_fetch_failed'],
      ['loop', '/loop-0', 'source_fetch_failed'],
      ['blocked', '/to-elsewhere.jpg', 'source_blocked'],
    ];
    const before = await creditTotals(t, account.accountId);
    const res = await create({
      input: cases.map(([id, path]) => ({ image_url: server.url(path), external_id: id })),
    }).expect(202);
    expect(res.body.job.credits_reserved).toBe(cases.length);
    const { job, results } = await readJob(res.body.job.id);

    const byId = new Map(results.map((result) => [result.external_id, result]));
    for (const [id, , code] of cases) {
      const result = byId.get(id) as ResultBody;
      expect({ id, status: result.status, code: result.error_code }).toEqual({
        id,
        status: code ? 'failed' : 'completed',
        code,
      });
      expect(result.credits_used).toBe(code ? 0 : 1);
      if (code) expect(result.error_message).toEqual(expect.any(String));
    }
    // The decoder's own words stay in the log: the client reads what went wrong in the service's.
    expect(byId.get('torn')?.error_message).toBe(undecodableMessage('The source image'));
    expect(byId.get('torn')?.error_message).not.toMatch(/vips|spng|png|read error/i);
    const failures = cases.filter(([, , code]) => code).length;
    expect(job).toMatchObject({
      status: 'partially_completed',
      credits_reserved: cases.length,
      credits_used: cases.length - failures,
    });
    // The 500 was retried once; the 404 was not.
    expect(server.requests('/flaky.jpg')).toBe(2);
    expect(server.requests('/missing.jpg')).toBe(1);
    expect(server.requests('/elsewhere.jpg')).toBe(0);

    const after = await creditTotals(t, account.accountId);
    expect(after.balance).toBe(before.balance - (cases.length - failures));
    expect(after.ledgerSum).toBe(after.balance);
    const ledger: Array<{ kind: string; count: number; credits: number }> = await t.dataSource.query(
      `SELECT kind, count(*)::int AS count, sum(credits)::int AS credits FROM credit_ledger WHERE job_id = $1 ` +
        `GROUP BY kind ORDER BY kind`,
      [res.body.job.id],
    );
    expect(ledger).toEqual([
      { kind: 'capture', count: cases.length - failures, credits: cases.length - failures },
      { kind: 'release', count: failures, credits: failures },
      { kind: 'reserve', count: 1, credits: cases.length },
    ]);

    // Pixels of a few: orientation applied, transparency kept in png, CMYK back to sRGB red.
    const exif = await sharp(await download(byId.get('exif')?.result_url as string)).metadata();
    expect([exif.width, exif.height, exif.format, exif.exif]).toEqual([200, 400, 'png', undefined]);
    const alpha = await decodeRgba(await download(byId.get('alpha')?.result_url as string));
    expect(alpha.pixel(5, 5)[3]).toBeGreaterThan(100);
    expect(alpha.pixel(5, 5)[3]).toBeLessThan(160);
    const [r, g, b] = (await decodeRgba(await download(byId.get('cmyk')?.result_url as string))).pixel(150, 100);
    expect(r).toBeGreaterThan(170);
    expect(g).toBeLessThan(80);
    expect(b).toBeLessThan(90);
    const deep = await sharp(await download(byId.get('deep')?.result_url as string)).metadata();
    expect([deep.depth, deep.width, deep.height]).toEqual(['uchar', 400, 300]);
    const thumbnail = await sharp(await download(byId.get('gif')?.thumbnail_url as string)).metadata();
    expect([thumbnail.format, thumbnail.width, thumbnail.height]).toEqual(['webp', 256, 192]);
  });

  it('edits as asked, makes number_of_images variants from one download, and serves image and thumbnail', async () => {
    server.serve('/variants.jpg', await fromFixture(productPhoto(1600, 1200)).jpeg().toBuffer(), {
      contentType: 'image/jpeg',
    });
    const res = await create({
      input: [{ image_url: server.url('/variants.jpg'), external_id: 'sku-1' }],
      operations: {
        resizing: { width: 1000, height: 500, fit: 'contain' },
        adjustments: { light: true, color: true },
        restorations: { polish: true },
      },
      output: { format: 'webp', number_of_images: 3 },
    }).expect(202);
    const { job, results } = await readJob(res.body.job.id);
    expect(job.status).toBe('completed');
    expect(results).toHaveLength(3);
    expect(server.requests('/variants.jpg')).toBe(1);
    const images = await Promise.all(results.map((result) => download(result.result_url as string)));
    for (const image of images) {
      expect(await sharp(image).metadata()).toMatchObject({ format: 'webp', width: 1000, height: 500, hasAlpha: true });
      // 1600 x 1200 fits as 667 x 500: transparent padding left and right.
      expect((await decodeRgba(image)).pixel(20, 250)[3]).toBe(0);
    }
    expect(new Set(images.map((image) => image.toString('base64'))).size).toBe(3);
    for (const result of results) {
      const thumbnail = await sharp(await download(result.thumbnail_url as string)).metadata();
      expect([thumbnail.format, thumbnail.width, thumbnail.height]).toEqual(['webp', 256, 128]);
    }
  });

  it(
    'fails a background or shadow that needs background ' +
      'removal without fetching the source, releasing its credits',
    async () => {
      server.serve('/cut-me-out.jpg', await fromFixture(productPhoto(200, 200)).jpeg().toBuffer(), {
        contentType: 'image/jpeg',
      });
      const before = await creditTotals(t, account.accountId);
      const res = await create({
        input: [
          { image_url: server.url('/cut-me-out.jpg'), external_id: 'white' },
          { image_url: server.url('/cut-me-out.jpg'), external_id: 'shadow' },
        ],
        operations: { background: { type: 'white', shadow: 'soft' } },
      }).expect(202);
      const { job, results } = await readJob(res.body.job.id);
      expect(job.status).toBe('failed');
      for (const result of results) {
        expect(result.error_code).toBe('processing_failed');
        expect(result.error_message).toMatch(/background removal/);
      }
      expect(server.requests('/cut-me-out.jpg')).toBe(0);
      expect(await creditTotals(t, account.accountId)).toEqual(before);
    },
  );

  it('enhances live product photos item by item, and fails presets that need a new background', async () => {
    const dark = fromFixture(productPhoto(600, 400)).linear(0.35, 0);
    server.serve('/dark-product.jpg', await dark.jpeg().toBuffer(), { contentType: 'image/jpeg' });
    const res = await create(
      {
        images: [{ source_url: server.url('/dark-product.jpg'), external_id: 'sku-dark' }],
        operation: 'product_photo_enhance',
      },
      '/api/v1/product-photo-jobs',
    ).expect(202);
    expect(res.body.job.credits_reserved).toBe(2);
    await waitForJob(t, res.body.job.id, undefined, 30_000);
    const read = await t
      .http()
      .get(`/api/v1/product-image-enhancements/${res.body.job.id}`)
      .set(bearer(account.liveKey))
      .expect(200);
    const [item] = read.body.enhancement.items;
    expect(item).toMatchObject({ external_id: 'sku-dark', credits_used: 2, error_code: null, error_message: null });
    const enhanced = await download(item.result_url);
    expect(await sharp(enhanced).metadata()).toMatchObject({ format: 'jpeg', width: 600, height: 400 });
    const source = await decodeRgba(await dark.png().toBuffer());
    const output = await decodeRgba(enhanced);
    const mean = (image: { data: Buffer }) =>
      image.data.reduce((sum, value, i) => (i % 4 === 3 ? sum : sum + value), 0) / ((image.data.length * 3) / 4);
    expect(mean(output)).toBeGreaterThan(mean(source) + 30);
    expect(await sharp(await download(item.thumbnail_url)).metadata()).toMatchObject({ format: 'webp', width: 256 });

    const preset = await create(
      {
        images: [{ source_url: server.url('/dark-product.jpg'), external_id: 'sku-square' }],
        preset: 'shop_square_image',
      },
      '/api/v1/product-photo-jobs',
    ).expect(202);
    await waitForJob(t, preset.body.job.id, undefined, 30_000);
    const failed = await t
      .http()
      .get(`/api/v1/product-image-enhancements/${preset.body.job.id}`)
      .set(bearer(account.liveKey))
      .expect(200);
    expect(failed.body.enhancement).toMatchObject({ failed_items: 1, credits_used: 0 });
    expect(failed.body.enhancement.items[0]).toMatchObject({
      error_code: 'processing_failed',
      result_url: null,
      thumbnail_url: null,
    });
  });
});

describe('a live result over its time limit', () => {
  let t: TestApp;
  let server: ImageSourceServer;

  beforeAll(async () => {
    server = await ImageSourceServer.start();
    server.hang('/forever.jpg');
    t = await createTestApp(
      { ...GENEROUS_LIMITS, OUTBOUND_ALLOWLIST: '127.0.0.1', RESULT_TIMEOUT_SECONDS: '1', RESULT_ATTEMPTS: '3' },
      { role: ProcessRole.All },
    );
  });
  afterAll(async () => {
    await t.close();
    await server.stop();
  });

  it('fails with timeout at once and releases its credits', async () => {
    const account = await seedAccount(t, { credits: 10 });
    const res = await t
      .http()
      .post('/api/v1/image/edit')
      .set(bearer(account.liveKey))
      .set('Idempotency-Key', idempotencyKey())
      .send({ input: [{ image_url: server.url('/forever.jpg'), external_id: 'stuck' }] })
      .expect(202);
    await waitForJob(t, res.body.job.id, undefined, 15_000);
    const [result] = await t.dataSource.query(
      `SELECT status, error_code, attempts FROM job_results WHERE job_id = $1`,
      [res.body.job.id],
    );
    expect(result).toEqual({ status: 'failed', error_code: 'timeout', attempts: 1 });
    expect(await creditTotals(t, account.accountId)).toEqual({ balance: 10, ledgerSum: 10 });
  });
});

describe('two runs of one result', () => {
  let t: TestApp;
  let server: ImageSourceServer;

  beforeAll(async () => {
    server = await ImageSourceServer.start();
    server.serve('/twice.png', await fromFixture(productPhoto(500, 400)).png().toBuffer(), {
      contentType: 'image/png',
    });
    // No processing worker: the test runs the result itself, twice at once.
    t = await createTestApp(
      { ...GENEROUS_LIMITS, OUTBOUND_ALLOWLIST: '127.0.0.1', WORKER_QUEUES: 'maintenance' },
      { role: ProcessRole.All },
    );
  });
  afterAll(async () => {
    await t.close();
    await server.stop();
  });

  it('leave the image, thumbnail and source preview of one run, and no file of the other', async () => {
    const account = await seedAccount(t, { credits: 10 });
    const res = await t
      .http()
      .post('/api/v1/image/edit')
      .set(bearer(account.liveKey))
      .set('Idempotency-Key', idempotencyKey())
      .send({
        input: [{ image_url: server.url('/twice.png'), external_id: 'twice' }],
        operations: { adjustments: { light: true } },
      })
      .expect(202);
    const [{ id: resultId }] = await t.dataSource.query(`SELECT id FROM job_results WHERE job_id = $1`, [
      res.body.job.id,
    ]);
    const work = t.app.get(ResultWorkService);
    const attempt = { queue: 'processing', waitedSeconds: null };
    const running = new AbortController().signal;
    await Promise.all([work.perform(resultId, attempt, running), work.perform(resultId, attempt, running)]);

    const [result] = await t.dataSource.query(
      `SELECT status, result_key, thumbnail_key, source_preview_key FROM job_results WHERE id = $1`,
      [resultId],
    );
    expect(result.status).toBe('completed');
    const folder = join(t.config.STORAGE_DIR, 'results', res.body.job.id, resultId);
    const files = (await readdir(folder)).sort();
    expect(files.map((file) => `results/${res.body.job.id}/${resultId}/${file}`)).toEqual(
      [result.result_key, result.thumbnail_key, result.source_preview_key].sort(),
    );
    const run = basename(result.result_key, '.png');
    expect(basename(result.thumbnail_key)).toBe(`${run}.thumb.webp`);
    expect(basename(result.source_preview_key)).toBe(`${run}.source.webp`);
    expect(await creditTotals(t, account.accountId)).toEqual({ balance: 9, ledgerSum: 9 });
  });
});
