import sharp from 'sharp';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { OUTBOUND_TLS } from '../../src/core/outbound/outbound.module';
import { FakeSegmentationService } from '../support/fake-segmentation-service';
import { decodeRgba, fromFixture, paint, type Rgb } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { idempotencyKey, jobsClient, waitForJob, type ResultBody } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';
import { testCertificate, WebhookReceiver } from '../support/webhook-receiver';

/**
 * A 320 x 240 photo on flat blue-grey with two things on it: the product, an orange disc of
 * radius 50 centred at (100, 120), and a prop, a green square over x 215..285, y 85..155. The
 * fake segmentation service keys out the corner's colour, so without hints it keeps both.
 */
const WIDTH = 320;
const HEIGHT = 240;
const BACKDROP: Rgb = [90, 100, 120];
const DISC = { cx: 100, cy: 120, r: 50 };
const SQUARE = { left: 215, top: 85, right: 285, bottom: 155 };
const inDisc = (x: number, y: number) => (x - DISC.cx) ** 2 + (y - DISC.cy) ** 2 <= DISC.r ** 2;
const inSquare = (x: number, y: number) =>
  x >= SQUARE.left && x <= SQUARE.right && y >= SQUARE.top && y <= SQUARE.bottom;
const photo = () =>
  paint(WIDTH, HEIGHT, (x, y) => (inDisc(x, y) ? [240, 140, 30] : inSquare(x, y) ? [40, 170, 60] : BACKDROP));

/** The product's half of the photo: the disc inside, the square outside (0.55 x 320 = 176 px). */
const LEFT_REGION = { left: 0, top: 0, right: 0.55, bottom: 1 };
const ON_DISC = { x: DISC.cx / WIDTH, y: DISC.cy / HEIGHT };
const ON_SQUARE = { x: 250 / WIDTH, y: 120 / HEIGHT };

type Decoded = Awaited<ReturnType<typeof decodeRgba>>;

/** Alpha of every pixel a test names as the disc's or the square's, well inside their edges. */
function alphaOver(image: Decoded, inside: (x: number, y: number) => boolean): { min: number; max: number } {
  let min = 255;
  let max = 0;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (!inside(x, y)) continue;
      const alpha = image.pixel(x, y)[3];
      min = Math.min(min, alpha);
      max = Math.max(max, alpha);
    }
  }
  return { min, max };
}

const wellInsideDisc = (x: number, y: number) => (x - DISC.cx) ** 2 + (y - DISC.cy) ** 2 <= (DISC.r - 3) ** 2;
const wellInsideSquare = (x: number, y: number) =>
  x >= SQUARE.left + 3 && x <= SQUARE.right - 3 && y >= SQUARE.top + 3 && y <= SQUARE.bottom - 3;

describe('cut-outs that keep the product: subject hints, masks and uncertainty, through the API and a worker', () => {
  let t: TestApp;
  let server: ImageSourceServer;
  let account: SeededAccount;
  let source: string;
  const segmentation = new FakeSegmentationService();

  beforeAll(async () => {
    server = await ImageSourceServer.start();
    server.serve('/two-things.png', await fromFixture(photo()).png().toBuffer(), { contentType: 'image/png' });
    server.route('/segment', segmentation.handle);
    source = server.url('/two-things.png');
    const { cert } = testCertificate();
    t = await createTestApp(
      {
        ...GENEROUS_LIMITS,
        CAPACITY_ACCOUNT_SHARE: '1',
        SEGMENTER: 'remote',
        SEGMENTER_URL: server.url('/segment'),
        OUTBOUND_ALLOWLIST: '127.0.0.1',
      },
      { role: ProcessRole.All, override: (builder) => builder.overrideProvider(OUTBOUND_TLS).useValue({ ca: [cert] }) },
    );
    account = await seedAccount(t, { credits: 100 });
  });
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  const jobs = () => jobsClient(t, () => account.liveKey);
  const create = async (path: string, body: object): Promise<string> => {
    const res = await jobs().create(path, body);
    expect(res.status).toBe(202);
    return res.body.job.id as string;
  };
  const results = async (jobId: string): Promise<ResultBody[]> => {
    const shown = await jobs().results(jobId);
    for (const result of shown)
      expect({ status: result.status, error: result.error_message }).toEqual({ status: 'completed', error: null });
    return shown;
  };
  const bytes = (url: string | null): Promise<Buffer> => jobs().bytes(url as string);
  const download = async (url: string | null) => decodeRgba(await bytes(url));

  it('makes everything outside a region transparent: the prop outside it goes, the product inside stays', async () => {
    const hints = { region: LEFT_REGION };
    const jobId = await create('/remove-background', {
      input: [{ image_url: source, subject_hints: hints }, { image_url: source }],
    });
    const [hinted, unhinted] = await results(jobId);
    expect(hinted.subject_hints).toEqual(hints);
    expect(unhinted.subject_hints).toBeNull();

    const image = await download(hinted.result_url);
    expect([image.width, image.height]).toEqual([WIDTH, HEIGHT]);
    expect(alphaOver(image, wellInsideDisc).min).toBe(255);
    expect(alphaOver(image, (x) => x >= 176).max).toBe(0);
    // Without the hint the service's mask keeps the prop too: the region is what removed it.
    const control = await download(unhinted.result_url);
    expect(alphaOver(control, wellInsideSquare).min).toBe(255);
    expect(alphaOver(control, wellInsideDisc).min).toBe(255);
  });

  it('keeps only the object under a keep point', async () => {
    const jobId = await create('/remove-background', {
      input: [
        { image_url: source, subject_hints: { keep_points: [ON_DISC] } },
        { image_url: source, subject_hints: { keep_points: [ON_SQUARE] } },
      ],
    });
    const [disc, square] = await results(jobId);
    const keptDisc = await download(disc.result_url);
    expect(alphaOver(keptDisc, wellInsideDisc).min).toBe(255);
    expect(alphaOver(keptDisc, inSquare).max).toBe(0);
    const keptSquare = await download(square.result_url);
    expect(alphaOver(keptSquare, wellInsideSquare).min).toBe(255);
    expect(alphaOver(keptSquare, inDisc).max).toBe(0);
  });

  it(
    "carries the hints through an edit's background operation " + 'and a product photo cut-out, and shows them back',
    async () => {
      const hints = { region: LEFT_REGION, keep_points: [ON_DISC] };
      const editJob = await create('/image/edit', {
        input: [{ image_url: source, subject_hints: hints }],
        operations: { background: { type: 'transparent' } },
      });
      const [edited] = await results(editJob);
      expect(edited.subject_hints).toEqual(hints);
      expect(edited.uncertainty).toEqual(expect.any(Number));
      const editedImage = await download(edited.result_url);
      expect(alphaOver(editedImage, wellInsideDisc).min).toBe(255);
      expect(alphaOver(editedImage, inSquare).max).toBe(0);

      const productJob = await create('/product-photo-jobs', {
        images: [{ source_url: source, external_id: 'sku-1', subject_hints: { keep_points: [ON_SQUARE] } }],
        preset: 'transparent_cutout',
      });
      await waitForJob(t, productJob, undefined, 60_000);
      const read = await t
        .http()
        .get(`/api/v1/product-image-enhancements/${productJob}`)
        .set(bearer(account.liveKey))
        .expect(200);
      const [item] = read.body.enhancement.items;
      expect(item).toMatchObject({
        error_code: null,
        subject_hints: { keep_points: [ON_SQUARE] },
        uncertainty: expect.any(Number),
      });
      const cutout = await download(item.result_url);
      expect(alphaOver(cutout, wellInsideSquare).min).toBe(255);
      expect(alphaOver(cutout, inDisc).max).toBe(0);
    },
  );

  it('gives the alpha mask alone as a one-channel PNG, pixel for pixel the alpha of the rgba cut-out', async () => {
    const framings = [{}, { crop_to_subject: true, margin_percent: 10 }];
    for (const framing of framings) {
      const jobId = await create('/remove-background', {
        input: [{ image_url: source, subject_hints: { keep_points: [ON_DISC] } }],
        output: { ...framing, channels: 'alpha' },
      });
      const cutoutId = await create('/remove-background', {
        input: [{ image_url: source, subject_hints: { keep_points: [ON_DISC] } }],
        output: framing,
      });
      const [mask] = await results(jobId);
      const [cutout] = await results(cutoutId);
      const maskBytes = await bytes(mask.result_url);
      const metadata = await sharp(maskBytes).metadata();
      expect({ format: metadata.format, channels: metadata.channels, hasAlpha: metadata.hasAlpha }).toEqual({
        format: 'png',
        channels: 1,
        hasAlpha: false,
      });
      const rgba = await download(cutout.result_url);
      expect([metadata.width, metadata.height]).toEqual([rgba.width, rgba.height]);
      if (!('crop_to_subject' in framing)) expect([metadata.width, metadata.height]).toEqual([WIDTH, HEIGHT]);
      else expect(metadata.width).toBeLessThan(WIDTH);

      const maskPixels = await sharp(maskBytes).extractChannel(0).raw().toBuffer();
      const alpha = Buffer.from(Array.from({ length: rgba.width * rgba.height }, (_, i) => rgba.data[i * 4 + 3]));
      expect(maskPixels.equals(alpha)).toBe(true);
      expect(Math.max(...maskPixels)).toBe(255);
      expect(Math.min(...maskPixels)).toBe(0);
      expect(mask.uncertainty).toEqual(expect.any(Number));

      // The thumbnail is the mask, small and grey, like every thumbnail a WebP.
      const thumbnail = await decodeRgba(await bytes(mask.thumbnail_url));
      expect((await sharp(await bytes(mask.thumbnail_url)).metadata()).format).toBe('webp');
      expect(Math.max(thumbnail.width, thumbnail.height)).toBeLessThanOrEqual(256);
      for (let i = 0; i < thumbnail.width * thumbnail.height; i += 7) {
        const [r, g, b] = thumbnail.data.subarray(i * 4, i * 4 + 3);
        expect(Math.max(Math.abs(r - g), Math.abs(g - b))).toBeLessThanOrEqual(3);
      }
    }
  });

  it(
    'imitates both in the sandbox: a one-channel mask, a sure ' +
      'uncertainty, an unsure one on request, none for no cut-out',
    async () => {
      const sandbox = async (path: string, body: object): Promise<ResultBody[]> => {
        const res = await t
          .http()
          .post(path)
          .set(bearer(account.sandboxKey))
          .set('Idempotency-Key', idempotencyKey())
          .send(body)
          .expect(202);
        await waitForJob(t, res.body.job.id);
        return (await t.http().get(`/api/v1/jobs/${res.body.job.id}`).set(bearer(account.sandboxKey)).expect(200)).body
          .results;
      };
      const input = [
        { image_url: 'https://images.example.com/p/1.jpg', external_id: 'sku-1' },
        { image_url: 'https://images.example.com/p/2.jpg', external_id: 'sandbox_unsure-2' },
      ];
      const [sure, unsure] = await sandbox('/api/v1/remove-background', { input, output: { channels: 'alpha' } });
      expect([sure.uncertainty, unsure.uncertainty]).toEqual([0.05, 0.9]);
      const metadata = await sharp(await bytes(sure.result_url)).metadata();
      expect({ format: metadata.format, channels: metadata.channels }).toEqual({ format: 'png', channels: 1 });
      const [edited] = await sandbox('/api/v1/image/edit', {
        input: input.slice(0, 1),
        operations: { background: { type: 'white' } },
      });
      expect(edited.uncertainty).toBe(0.05);
      const [resized] = await sandbox('/api/v1/image/edit', {
        input: input.slice(1),
        operations: { resizing: { width: 100 } },
      });
      expect(resized.uncertainty).toBeNull();
    },
  );

  it(
    "reports each cut-out's uncertainty in [0, 1] on the result and " +
      'in its webhook event, and null for a result that is no cut-out',
    async () => {
      const receiver = await WebhookReceiver.start();
      segmentation.answerScale = 0.5;
      try {
        const cutoutJob = await create('/remove-background', {
          input: [{ image_url: source }],
          webhook_url: receiver.url,
        });
        const editJob = await create('/image/edit', {
          input: [{ image_url: source }],
          operations: { resizing: { width: 160 } },
          webhook_url: receiver.url,
        });
        const [cutout] = await results(cutoutJob);
        const [edit] = await results(editJob);
        // A mask answered at half size comes back with soft edges: neither sure nor unsure.
        expect(cutout.uncertainty).toBeGreaterThan(0);
        expect(cutout.uncertainty).toBeLessThan(1);
        expect(Math.round((cutout.uncertainty as number) * 1000) / 1000).toBe(cutout.uncertainty);
        expect(edit.uncertainty).toBeNull();

        // Two result events and two job events.
        await receiver.waitFor(4, 30_000);
        const events = receiver.received.map(
          (delivery) =>
            JSON.parse(delivery.body) as { type: string; job: { id: string }; result?: Record<string, unknown> },
        );
        const resultEvent = (jobId: string) =>
          events.find((event) => event.job.id === jobId && event.type === 'image_api.result.completed');
        expect(resultEvent(cutoutJob)?.result).toMatchObject({ id: cutout.id, uncertainty: cutout.uncertainty });
        expect(resultEvent(editJob)?.result).toMatchObject({ id: edit.id, uncertainty: null });
      } finally {
        segmentation.answerScale = 1;
        await receiver.stop();
      }
    },
  );
});
