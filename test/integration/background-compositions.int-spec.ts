import { FakeSegmentationService } from '../support/fake-segmentation-service';
import { expectError } from '../support/http-errors';
import { decodeRgba, fromFixture, paint, type RawFixture } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { liveCutoutApp } from '../support/live-cutouts';
import { creditTotals, jobsClient, writtenRows } from '../support/jobs';
import { laplacianVariance, meanColour } from '../support/sharpness';
import { bearer, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

/**
 * Backgrounds beyond a colour (issue 31, items 1 and 2) through the API and an in-process
 * worker, read back from the downloaded files: a background photo by URL or upload, fitted
 * (cover, contain), oriented, with the product's shadow falling on it, fetched once per job and
 * failing with its own codes; the photo's own background blurred (gaussian and bokeh) with the
 * product sharp and no halo of it; every bad value a 400 at its path with nothing written.
 */

/** The product photo: a striped red ellipse on a fine grey checkerboard the segmentation service keys out. */
const W = 320;
const H = 240;
const CENTRE = { x: 160, y: 110 };
const RADII = { x: 60, y: 50 };
const edgeDistance = (x: number, y: number) =>
  (Math.hypot((x - CENTRE.x) / RADII.x, (y - CENTRE.y) / RADII.y) - 1) * Math.min(RADII.x, RADII.y);
const productPhoto = (): RawFixture =>
  paint(W, H, (x, y) => {
    if (edgeDistance(x, y) <= 0) return Math.floor(x / 3) % 2 === 0 ? [225, 40, 40] : [165, 25, 30];
    const grey = (Math.floor(x / 2) + Math.floor(y / 2)) % 2 === 0 ? 110 : 126;
    return [grey, grey, grey];
  });
const farBackground = (x: number, y: number) => edgeDistance(x, y) > 25;
const ring = (x: number, y: number) => edgeDistance(x, y) > 3 && edgeDistance(x, y) < 10;
const productInterior = (x: number, y: number) => edgeDistance(x, y) < -8;

/** The background photo: a 640 x 480 gradient whose colour says where each pixel came from. */
const GRADIENT = { width: 640, height: 480 };
const gradientAt = (x: number, y: number) => [(x * 255) / (GRADIENT.width - 1), (y * 255) / (GRADIENT.height - 1), 128];
const gradient = (): RawFixture => paint(GRADIENT.width, GRADIENT.height, (x, y) => gradientAt(x, y) as never);

/** Places on the 320 x 240 result away from the product and its shadow. */
const CORNERS = [
  [8, 8],
  [310, 12],
  [12, 230],
  [300, 228],
] as const;

describe('background photos and blurs through the API and an in-process worker', () => {
  let t: TestApp;
  let server: ImageSourceServer;
  let account: SeededAccount;
  const segmentation = new FakeSegmentationService();
  const jobs = () => jobsClient(t, () => account.liveKey);

  beforeAll(async () => {
    server = await ImageSourceServer.start();
    server.serve('/product.png', await fromFixture(productPhoto()).png().toBuffer(), { contentType: 'image/png' });
    server.serve('/gradient.png', await fromFixture(gradient()).png().toBuffer(), { contentType: 'image/png' });
    // The gradient stored sideways, with the EXIF orientation that turns it upright (as phones write photos).
    const sideways = await fromFixture(gradient())
      .rotate(90)
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 8 })
      .toBuffer();
    server.serve('/sideways.jpg', sideways, { contentType: 'image/jpeg' });
    server.serve(
      '/wide.png',
      await fromFixture(paint(640, 240, () => [30, 160, 90]))
        .png()
        .toBuffer(),
      {
        contentType: 'image/png',
      },
    );
    // A product already cut out: a red disc on transparency, its edge soft.
    const cutout = Buffer.alloc(W * H * 4);
    for (let i = 0; i < W * H; i++) {
      const alpha = Math.min(1, Math.max(0, (1 - edgeDistance(i % W, Math.floor(i / W))) / 3));
      cutout.set([200, 30, 40, Math.round(alpha * 255)], i * 4);
    }
    server.serve(
      '/cutout.png',
      await fromFixture({ data: cutout, width: W, height: H, channels: 4 }).png().toBuffer(),
      { contentType: 'image/png' },
    );
    server.serve('/not-an-image.png', 'this is not an image', { contentType: 'image/png' });
    t = await liveCutoutApp(server, segmentation);
    account = await seedAccount(t, { credits: 1000 });
  });
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  const cutout = (background: object, extra: object = {}) => ({
    input: [{ image_url: server.url('/product.png') }],
    background,
    ...extra,
  });

  /** Creates a live job, expects every result completed, and decodes the first. */
  async function completed(path: string, body: object) {
    const client = jobs();
    const res = await client.create(path, body);
    expect(res.status).toBe(202);
    const results = await client.results(res.body.job.id);
    expect(results.map((result) => [result.status, result.error_code])).toEqual(results.map(() => ['completed', null]));
    return { results, image: await client.download(results[0].result_url ?? '') };
  }

  const expectGradientAt = (image: Awaited<ReturnType<typeof decodeRgba>>, scale: number, tolerance: number) => {
    for (const [x, y] of CORNERS) {
      const expected = gradientAt((x + 0.5) * scale - 0.5, (y + 0.5) * scale - 0.5);
      const actual = image.pixel(x, y);
      for (let c = 0; c < 3; c++) expect(Math.abs(actual[c] - expected[c])).toBeLessThanOrEqual(tolerance);
    }
  };

  describe('a background photo', () => {
    it('covers the result around the product, the product on it as cut out', async () => {
      const { image } = await completed(
        '/remove-background',
        cutout({ type: 'image', image_url: server.url('/gradient.png') }),
      );
      expect([image.width, image.height]).toEqual([W, H]);
      // Opaque, the gradient at half its size around the product, the product's red at its centre.
      expect(image.pixel(5, 5)[3]).toBe(255);
      expectGradientAt(image, 2, 4);
      const [r, g] = image.pixel(CENTRE.x, CENTRE.y);
      expect(r).toBeGreaterThan(150);
      expect(g).toBeLessThan(60);
    });

    it('is turned upright by its EXIF orientation, as sources are', async () => {
      const { image } = await completed(
        '/remove-background',
        cutout({ type: 'image', image_url: server.url('/sideways.jpg') }),
      );
      expectGradientAt(image, 2, 8);
    });

    it('is read from an upload of the account', async () => {
      const upload = await t
        .http()
        .post('/api/v1/uploads')
        .set(bearer(account.liveKey))
        .set('Content-Type', 'image/png')
        .send(await fromFixture(gradient()).png().toBuffer());
      expect(upload.status).toBe(201);
      const { image } = await completed(
        '/remove-background',
        cutout({ type: 'image', image_url: upload.body.upload.image_url }),
      );
      expectGradientAt(image, 2, 4);
    });

    it('is contained whole, centred on the colour given', async () => {
      const { image } = await completed(
        '/remove-background',
        cutout({ type: 'image', image_url: server.url('/wide.png'), fit: 'contain', color: '#102030' }),
      );
      // 640 x 240 in 320 x 240: a 320 x 120 band in the middle, the colour above and below it.
      expect(image.pixel(10, 10).slice(0, 3)).toEqual([16, 32, 48]);
      expect(image.pixel(10, 230).slice(0, 3)).toEqual([16, 32, 48]);
      expect(image.pixel(10, 120).slice(0, 3)).toEqual([30, 160, 90]);
    });

    it("takes the product's shadow: darker under the product than the photo is there without it", async () => {
      const plain = await completed(
        '/remove-background',
        cutout({ type: 'image', image_url: server.url('/gradient.png') }),
      );
      const shaded = await completed(
        '/remove-background',
        cutout({ type: 'image', image_url: server.url('/gradient.png'), shadow: 'soft' }),
      );
      const below = [CENTRE.x, CENTRE.y + RADII.y + 3] as const;
      const luma = (pixel: number[]) => 0.299 * pixel[0] + 0.587 * pixel[1] + 0.114 * pixel[2];
      expect(luma(shaded.image.pixel(...below))).toBeLessThan(luma(plain.image.pixel(...below)) * 0.9);
      // Beside the product, out of the shadow's reach, the photo is untouched.
      expect(shaded.image.pixel(8, 8)).toEqual(plain.image.pixel(8, 8));
    });

    it('is fetched once for the whole job, however many results use it', async () => {
      const before = server.requests('/gradient.png');
      const { results } = await completed('/remove-background', {
        input: [0, 1, 2].map(() => ({ image_url: server.url('/product.png') })),
        background: { type: 'image', image_url: server.url('/gradient.png'), shadow: 'soft' },
        output: { number_of_images: 2 },
      });
      expect(results).toHaveLength(6);
      expect(server.requests('/gradient.png') - before).toBe(1);
    });

    it.each([
      ['one that answers 404', () => server.url('/missing.png'), 'background_fetch_failed'],
      ['one that is not an image', () => server.url('/not-an-image.png'), 'background_not_image'],
      ['one on a private address', () => 'http://10.20.30.40/background.png', 'background_blocked'],
    ])('that fails (%s) fails the result with its own code and releases its credits', async (_what, url, code) => {
      const before = await creditTotals(t, account.accountId);
      const segmented = segmentation.received.length;
      const client = jobs();
      const res = await client.create('/remove-background', cutout({ type: 'image', image_url: url() }));
      expect(res.status).toBe(202);
      const [result] = await client.results(res.body.job.id);
      expect([result.status, result.error_code, result.credits_used]).toEqual(['failed', code, 0]);
      expect(result.error_message).toMatch(/background image/i);
      expect((await client.read(res.body.job.id)).job.credits_used).toBe(0);
      expect(await creditTotals(t, account.accountId)).toEqual(before);
      // The background is loaded before the model runs: a broken one costs no segmentation.
      expect(segmentation.received.length).toBe(segmented);
    });

    it('takes a source that is already cut out (existing_alpha use) onto the photo, unsegmented', async () => {
      const segmented = segmentation.received.length;
      const { results, image } = await completed('/remove-background', {
        input: [{ image_url: server.url('/cutout.png') }],
        background: { type: 'image', image_url: server.url('/gradient.png') },
        existing_alpha: 'use',
      });
      expect(segmentation.received.length).toBe(segmented);
      expect(results[0].segmentation).toEqual({ model: 'source_alpha', version: null, post_processing_version: null });
      expectGradientAt(image, 2, 4);
      expect(image.pixel(CENTRE.x, CENTRE.y).slice(0, 3)).toEqual([200, 30, 40]);
    });

    it('takes a source already cut out onto the photo on an edit too', async () => {
      const { image } = await completed('/image/edit', {
        input: [{ image_url: server.url('/cutout.png') }],
        operations: { background: { type: 'image', image_url: server.url('/gradient.png') } },
        existing_alpha: 'use',
      });
      expectGradientAt(image, 2, 4);
      expect(image.pixel(CENTRE.x, CENTRE.y).slice(0, 3)).toEqual([200, 30, 40]);
    });

    it('replaces the background of an edit, fitted to the edited size', async () => {
      const { image } = await completed('/image/edit', {
        input: [{ image_url: server.url('/product.png') }],
        operations: {
          background: { type: 'image', image_url: server.url('/gradient.png') },
          resizing: { width: 160, height: 120, fit: 'cover' },
        },
      });
      expect([image.width, image.height]).toEqual([160, 120]);
      const [r, g, b] = image.pixel(4, 4);
      const expected = gradientAt(4 * 4 + 1.5, 4 * 4 + 1.5);
      expect(Math.abs(r - expected[0])).toBeLessThanOrEqual(5);
      expect(Math.abs(g - expected[1])).toBeLessThanOrEqual(5);
      expect(Math.abs(b - expected[2])).toBeLessThanOrEqual(5);
    });
  });

  describe("the photo's own background, blurred", () => {
    const original = productPhoto();
    const originalSharpness = {
      background: laplacianVariance(original, farBackground),
      product: laplacianVariance(original, productInterior),
    };

    it.each(['gaussian', 'bokeh'])(
      '(%s) is far less sharp than the original while the product keeps its detail',
      async (mode) => {
        const { image } = await completed('/remove-background', cutout({ type: 'blur', blur: { mode, strength: 60 } }));
        expect([image.width, image.height]).toEqual([W, H]);
        expect(laplacianVariance(image, farBackground)).toBeLessThan(originalSharpness.background * 0.05);
        expect(laplacianVariance(image, productInterior)).toBeGreaterThan(originalSharpness.product * 0.8);
        // No red of the product smeared into the grey just outside it.
        const [r, g] = meanColour(image, ring);
        expect(Math.abs(r - g)).toBeLessThan(4);
      },
    );

    it('is blurred more at a higher strength', async () => {
      const mild = await completed('/remove-background', cutout({ type: 'blur', blur: { strength: 5 } }));
      const strong = await completed('/remove-background', cutout({ type: 'blur', blur: { strength: 90 } }));
      expect(laplacianVariance(strong.image, farBackground)).toBeLessThan(laplacianVariance(mild.image, farBackground));
    });

    it('works on an edit', async () => {
      const { image } = await completed('/image/edit', {
        input: [{ image_url: server.url('/product.png') }],
        operations: { background: { type: 'blur' } },
      });
      expect(laplacianVariance(image, farBackground)).toBeLessThan(originalSharpness.background * 0.05);
      expect(laplacianVariance(image, productInterior)).toBeGreaterThan(originalSharpness.product * 0.8);
    });
  });

  it('gives sandbox keys a simulated result without fetching the background', async () => {
    const before = server.requests('/gradient.png');
    const client = jobsClient(t, () => account.sandboxKey);
    const res = await client.create(
      '/remove-background',
      cutout({ type: 'image', image_url: server.url('/gradient.png') }),
    );
    expect(res.status).toBe(202);
    const [result] = await client.results(res.body.job.id);
    expect(result.status).toBe('completed');
    expect(server.requests('/gradient.png')).toBe(before);
    const blurred = await client.create('/remove-background', cutout({ type: 'blur', blur: { mode: 'bokeh' } }));
    expect((await client.results(blurred.body.job.id))[0].status).toBe('completed');
  });

  describe('bad values', () => {
    const url = 'https://images.example.com/background.jpg';
    const product = [{ image_url: 'https://images.example.com/product.jpg' }];
    const cases: Array<[string, string, object, string]> = [
      ['image without image_url', '/remove-background', { background: { type: 'image' } }, 'background.image_url'],
      [
        'image_url with white',
        '/remove-background',
        { background: { type: 'white', image_url: url } },
        'background.image_url',
      ],
      [
        'an image_url that is not http',
        '/remove-background',
        { background: { type: 'image', image_url: 'ftp://host/b.jpg' } },
        'background.image_url',
      ],
      [
        'an unknown fit',
        '/remove-background',
        { background: { type: 'image', image_url: url, fit: 'stretch' } },
        'background.fit',
      ],
      ['fit with blur', '/remove-background', { background: { type: 'blur', fit: 'cover' } }, 'background.fit'],
      [
        'blur with image',
        '/remove-background',
        { background: { type: 'image', image_url: url, blur: {} } },
        'background.blur',
      ],
      [
        'a blur that is not an object',
        '/remove-background',
        { background: { type: 'blur', blur: 'strong' } },
        'background.blur',
      ],
      [
        'strength 0',
        '/remove-background',
        { background: { type: 'blur', blur: { strength: 0 } } },
        'background.blur.strength',
      ],
      [
        'strength 101',
        '/remove-background',
        { background: { type: 'blur', blur: { strength: 101 } } },
        'background.blur.strength',
      ],
      [
        'a strength that is not a number',
        '/remove-background',
        { background: { type: 'blur', blur: { strength: 'x' } } },
        'background.blur.strength',
      ],
      [
        'an unknown blur mode',
        '/remove-background',
        { background: { type: 'blur', blur: { mode: 'box' } } },
        'background.blur.mode',
      ],
      [
        'a colour that is not hex',
        '/remove-background',
        { background: { type: 'image', image_url: url, color: 'red' } },
        'background.color',
      ],
      [
        'a blur cropped to the subject',
        '/remove-background',
        { background: { type: 'blur' }, output: { crop_to_subject: true } },
        'output.crop_to_subject',
      ],
      [
        'a mask on a photo',
        '/remove-background',
        { background: { type: 'image', image_url: url }, output: { channels: 'alpha' } },
        'background.type',
      ],
      [
        'an edit photo without image_url',
        '/image/edit',
        { operations: { background: { type: 'image' } } },
        'operations.background.image_url',
      ],
      [
        'a blur of a source that is already cut out',
        '/remove-background',
        { background: { type: 'blur' }, existing_alpha: 'use' },
        'existing_alpha',
      ],
      [
        'an edit blur of a source that is already cut out',
        '/image/edit',
        { operations: { background: { type: 'blur' } }, existing_alpha: 'use' },
        'existing_alpha',
      ],
      [
        'an edit blur on the original',
        '/image/edit',
        { operations: { background: { type: 'original', blur: {} } } },
        'operations.background.blur',
      ],
    ];

    it.each(cases)('%s is a 400 at its path, nothing written or charged', async (_what, path, body, field) => {
      const rows = await writtenRows(t);
      const credits = await creditTotals(t, account.accountId);
      const res = await jobs().create(path, { input: product, ...body });
      expectError(res, 400, 'invalid_request');
      const paths = (res.body.error.details.errors as Array<{ path: string }>).map((error) => error.path);
      expect(paths).toContain(field);
      expect(await writtenRows(t)).toEqual(rows);
      expect(await creditTotals(t, account.accountId)).toEqual(credits);
    });
  });
});
