import { subjectBounds, type PixelBounds } from '../../src/engine/mask/alpha-mask';
import { must } from '../support/bounds';
import { decodeRgba } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { localModelApp } from '../support/live-cutouts';
import { jobsClient } from '../support/jobs';
import { PRODUCTS, productShot } from '../support/product-shots';
import { seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

/**
 * Placement on a canvas with the local segmentation model (as the background removal spec runs
 * it), on a drawn 400 x 300 product shot. The model's mask is not known to the test, so the
 * product's box is judged from the result alone: flush with the padding on the aligned sides,
 * touching the padded box on the tighter side (fit), centred with an even split. A model's mask
 * has soft edges (the keyed masks of placement.int-spec.ts have none), so its box as read back
 * at alpha 128 may move by a pixel from the one planned at the same threshold before resampling.
 */
const EDGE_TOLERANCE = 1;

describe('placement on a canvas with the local segmentation model', () => {
  let t: TestApp;
  let server: ImageSourceServer;
  let account: SeededAccount;
  let source: string;

  beforeAll(async () => {
    const shot = await productShot(PRODUCTS[0], 'studio', { width: 400, height: 300 });
    server = await ImageSourceServer.start();
    server.serve('/shot.jpg', shot.jpeg, { contentType: 'image/jpeg' });
    source = server.url('/shot.jpg');
    t = await localModelApp();
    account = await seedAccount(t, { credits: 100 });
  }, 300_000);
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  /** The product's box in a placed cut-out (alpha at least 128) and the canvas's size. */
  async function placedBox(placement: object): Promise<{ box: PixelBounds; width: number; height: number }> {
    const jobs = jobsClient(t, () => account.liveKey, 240_000);
    const res = await jobs.create('/remove-background', { input: [{ image_url: source }], placement });
    expect(res.status).toBe(202);
    const [result] = await jobs.results(res.body.job.id);
    expect({ status: result.status, error: result.error_message }).toEqual({ status: 'completed', error: null });
    const image = await decodeRgba(await jobs.bytes(result.result_url as string));
    const alpha = Uint8Array.from({ length: image.width * image.height }, (_, i) => image.data[i * 4 + 3]);
    const box = must(subjectBounds({ data: alpha, width: image.width, height: image.height }), 'a product');
    return { box, width: image.width, height: image.height };
  }

  it('puts the product flush with the padding where it is aligned, fitted along the tighter side', async () => {
    const [topLeft, bottomRight, centred] = await Promise.all([
      placedBox({ width: 600, height: 600, padding: 20, horizontal_alignment: 'left', vertical_alignment: 'top' }),
      placedBox({
        width: 500,
        height: 400,
        padding: '5%',
        horizontal_alignment: 'right',
        vertical_alignment: 'bottom',
        scale: '80%',
      }),
      placedBox({ width: 640, height: 640 }),
    ]);
    process.stdout.write(`\nplaced boxes with the local model: ${JSON.stringify({ topLeft, bottomRight, centred })}\n`);
    const near = (measured: number, planned: number) =>
      expect(Math.abs(measured - planned)).toBeLessThanOrEqual(EDGE_TOLERANCE);

    expect([topLeft.width, topLeft.height]).toEqual([600, 600]);
    near(topLeft.box.left, 20);
    near(topLeft.box.top, 20);
    // Fit: the box touches the 560 x 560 padded box on its tighter side.
    near(Math.max(topLeft.box.width, topLeft.box.height), 560);

    // 5 %: 25 across, 20 down; the box's right and bottom edges at 475 and 380.
    near(bottomRight.box.left + bottomRight.box.width, 475);
    near(bottomRight.box.top + bottomRight.box.height, 380);
    // 80 % of fit: the tighter side is 80 % of 450 or of 360.
    const tighter = Math.max(bottomRight.box.width / 450, bottomRight.box.height / 360);
    expect(tighter).toBeCloseTo(0.8, 2);

    const gaps = {
      left: centred.box.left,
      right: 640 - centred.box.left - centred.box.width,
      top: centred.box.top,
      bottom: 640 - centred.box.top - centred.box.height,
    };
    expect(Math.abs(gaps.left - gaps.right)).toBeLessThanOrEqual(1 + 2 * EDGE_TOLERANCE);
    expect(Math.abs(gaps.top - gaps.bottom)).toBeLessThanOrEqual(1 + 2 * EDGE_TOLERANCE);
    expect(Math.min(gaps.left + gaps.right, gaps.top + gaps.bottom)).toBeLessThanOrEqual(2 * EDGE_TOLERANCE);
  }, 300_000);
});
