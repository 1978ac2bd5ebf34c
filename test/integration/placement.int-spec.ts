import sharp from 'sharp';
import type { Response } from 'supertest';
import { subjectBounds, type PixelBounds } from '../../src/engine/mask/alpha-mask';
import { FakeSegmentationService } from '../support/fake-segmentation-service';
import { expectError } from '../support/http-errors';
import { decodeRgba, fromFixture, paint, type Rgb } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { liveCutoutApp } from '../support/live-cutouts';
import { creditTotals, jobsClient, writtenRows } from '../support/jobs';
import { seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

/**
 * Placement on a canvas (issue 31, part 3) through the API and an in-process worker, judged on the
 * decoded results: the product's box (its alpha, or its colour on white) lands where the rounding
 * rule puts it, to the pixel, for every alignment, padding in pixels and percent per side, each
 * scale, with and without the shadow in the box, on remove-background (cut-out and mask, over a
 * background photo, and a source that is its own mask) and on image/edit. The segmentation
 * service keys out the backdrop, so the product's box in the source is known exactly: an orange
 * 120 x 180 block at (140, 60) of a 400 x 300 photo.
 */
const SOURCE = { width: 400, height: 300 };
const PRODUCT = { left: 140, top: 60, width: 120, height: 180 };
const ORANGE: Rgb = [240, 140, 30];
const BACKDROP: Rgb = [90, 100, 120];
const GREEN: Rgb = [40, 170, 60];
const inProduct = (x: number, y: number) =>
  x >= PRODUCT.left && x < PRODUCT.left + PRODUCT.width && y >= PRODUCT.top && y < PRODUCT.top + PRODUCT.height;
const photo = () => paint(SOURCE.width, SOURCE.height, (x, y) => (inProduct(x, y) ? ORANGE : BACKDROP));

/** The product already cut out: the photo with the block opaque and the rest transparent. */
async function cutOutPng(): Promise<Buffer> {
  const { data } = photo();
  const rgba = Buffer.alloc(SOURCE.width * SOURCE.height * 4);
  for (let i = 0; i < SOURCE.width * SOURCE.height; i++) {
    rgba.set([data[i * 3], data[i * 3 + 1], data[i * 3 + 2]], i * 4);
    rgba[i * 4 + 3] = inProduct(i % SOURCE.width, Math.floor(i / SOURCE.width)) ? 255 : 0;
  }
  return sharp(rgba, { raw: { ...SOURCE, channels: 4 } })
    .png()
    .toBuffer();
}

type Horizontal = 'left' | 'center' | 'right';
type Vertical = 'top' | 'center' | 'bottom';
interface Sides {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/**
 * Where the service promises the product's box (docs/tools.md): scaled by `scale` (fit inside the
 * padded box, a share of that, or fill) with each side rounded, then aligned (the odd pixel of a
 * centred box to the right or bottom), clipped by the canvas.
 */
function promisedBox(
  canvas: { width: number; height: number },
  padding: Sides,
  scale: 'fit' | 'fill' | number,
  horizontal: Horizontal,
  vertical: Vertical,
): PixelBounds {
  const room = {
    width: canvas.width - padding.left - padding.right,
    height: canvas.height - padding.top - padding.bottom,
  };
  const ratios = [room.width / PRODUCT.width, room.height / PRODUCT.height];
  const factor = scale === 'fill' ? Math.max(...ratios) : (Math.min(...ratios) * (scale === 'fit' ? 100 : scale)) / 100;
  const width = Math.round(PRODUCT.width * factor);
  const height = Math.round(PRODUCT.height * factor);
  const share = { left: 0, top: 0, center: 0.5, right: 1, bottom: 1 };
  const left = padding.left + Math.floor((room.width - width) * share[horizontal]);
  const top = padding.top + Math.floor((room.height - height) * share[vertical]);
  const right = Math.min(canvas.width, left + width);
  const bottom = Math.min(canvas.height, top + height);
  return {
    left: Math.max(0, left),
    top: Math.max(0, top),
    width: right - Math.max(0, left),
    height: bottom - Math.max(0, top),
  };
}

type Decoded = Awaited<ReturnType<typeof decodeRgba>>;

/** The bounds of the pixels `belongs` says are the product's (alpha or colour at least half way). */
function boundsWhere(image: Decoded, belongs: (pixel: number[]) => boolean): PixelBounds | null {
  const mask = new Uint8Array(image.width * image.height);
  for (let i = 0; i < mask.length; i++) mask[i] = belongs([...image.data.subarray(i * 4, i * 4 + 4)]) ? 255 : 0;
  return subjectBounds({ data: mask, width: image.width, height: image.height });
}

const byAlpha = (pixel: number[]) => pixel[3] >= 128;
/**
 * On white or on its shadow (grey), a pixel at least half the product's: red less blue is 210 x alpha
 * (the product's 240 - 30; nothing for white or grey), so at least 105.
 */
const byColourOnWhite = (pixel: number[]) => pixel[0] - pixel[2] >= 105;
const even = (value: number): Sides => ({ top: value, right: value, bottom: value, left: value });

describe('placement on a canvas through the API and an in-process worker', () => {
  let t: TestApp;
  let server: ImageSourceServer;
  let account: SeededAccount;
  let source: string;
  const segmentation = new FakeSegmentationService();

  beforeAll(async () => {
    server = await ImageSourceServer.start();
    server.serve('/product.png', await fromFixture(photo()).png().toBuffer(), { contentType: 'image/png' });
    server.serve(
      '/green.png',
      await fromFixture(paint(200, 100, () => GREEN))
        .png()
        .toBuffer(),
      {
        contentType: 'image/png',
      },
    );
    server.serve('/cut-out.png', await cutOutPng(), { contentType: 'image/png' });
    source = server.url('/product.png');
    t = await liveCutoutApp(server, segmentation);
    account = await seedAccount(t, { credits: 1000 });
  });
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  const jobs = () => jobsClient(t, () => account.liveKey);

  /** One result of `path` with `body` on the product photo, decoded. */
  async function placed(path: string, body: object): Promise<Decoded> {
    const res = await jobs().create(path, { input: [{ image_url: source }], ...body });
    expect(res.status).toBe(202);
    const [result] = await jobs().results(res.body.job.id);
    expect({ status: result.status, error: result.error_message }).toEqual({ status: 'completed', error: null });
    return jobs().download(result.result_url as string);
  }

  const alignments = (['left', 'center', 'right'] as const).flatMap((horizontal) =>
    (['top', 'center', 'bottom'] as const).map((vertical) => [horizontal, vertical] as const),
  );

  it.each(alignments)('puts the product at %s / %s of the padded box, to the pixel', async (horizontal, vertical) => {
    const canvas = { width: 500, height: 400 };
    const image = await placed('/remove-background', {
      placement: {
        ...canvas,
        padding: 20,
        horizontal_alignment: horizontal,
        vertical_alignment: vertical,
        scale: '70%',
      },
    });
    expect([image.width, image.height]).toEqual([500, 400]);
    // 70 % of fit (min(460 / 120, 360 / 180) = 2): 1.4, a 168 x 252 box.
    const promised = promisedBox(canvas, even(20), 70, horizontal, vertical);
    expect(promised).toMatchObject({ width: 168, height: 252 });
    expect(boundsWhere(image, byAlpha)).toEqual(promised);
    // The product keeps its colour; the canvas around it is transparent.
    const middle = image.pixel(promised.left + 84, promised.top + 126);
    expect(middle).toEqual([...ORANGE, 255]);
    expect(image.pixel(0, 0)[3]).toBe(0);
  });

  it('pads each side by its own pixels or percent of the canvas side', async () => {
    const canvas = { width: 600, height: 500 };
    const image = await placed('/remove-background', {
      placement: { ...canvas, padding: { top: '10%', right: 30, bottom: '4%', left: '5%' } },
    });
    // Top 50 (10 % of 500), right 30, bottom 20 (4 % of 500), left 30 (5 % of 600).
    const promised = promisedBox(canvas, { top: 50, right: 30, bottom: 20, left: 30 }, 'fit', 'center', 'center');
    expect(promised).toEqual({ left: 156, top: 50, width: 287, height: 430 });
    expect(boundsWhere(image, byAlpha)).toEqual(promised);
  });

  it("takes the source's size without a canvas size, with one padding for every side, and a px string", async () => {
    const image = await placed('/remove-background', {
      placement: { padding: '12.5%', horizontal_alignment: 'right' },
    });
    expect([image.width, image.height]).toEqual([400, 300]);
    // 12.5 % of 400 is 50 a side, of 300 37.5, rounded to 38.
    expect(boundsWhere(image, byAlpha)).toEqual(
      promisedBox(SOURCE, { top: 38, right: 50, bottom: 38, left: 50 }, 'fit', 'right', 'center'),
    );
    const pixels = await placed('/remove-background', {
      placement: { padding: { left: '16px', top: 0 }, horizontal_alignment: 'left', vertical_alignment: 'top' },
    });
    expect(boundsWhere(pixels, byAlpha)).toEqual(
      promisedBox(SOURCE, { top: 0, right: 0, bottom: 0, left: 16 }, 'fit', 'left', 'top'),
    );
  });

  it('fits by default and covers the padded box with fill, cut at the canvas', async () => {
    const canvas = { width: 500, height: 400 };
    const fit = await placed('/remove-background', { placement: canvas });
    // min(500 / 120, 400 / 180) = 2.222: 266.67 -> 267 x 400, (500 - 267) / 2 = 116.5 -> 116.
    expect(boundsWhere(fit, byAlpha)).toEqual({ left: 116, top: 0, width: 267, height: 400 });
    const fill = await placed('/remove-background', { placement: { ...canvas, padding: 50, scale: 'fill' } });
    // max(400 / 120, 300 / 180) = 3.333: 400 x 600, reaching 100 rows past the top and the bottom.
    expect(boundsWhere(fill, byAlpha)).toEqual(promisedBox(canvas, even(50), 'fill', 'center', 'center'));
    expect(boundsWhere(fill, byAlpha)).toEqual({ left: 50, top: 0, width: 400, height: 400 });
    // Past the edge's own soft pixels the padding is transparent.
    expect(fill.pixel(45, 200)[3]).toBe(0);
    expect(fill.pixel(454, 200)[3]).toBe(0);
  });

  it("counts the shadow in the product's box with shadow_in_box", async () => {
    const canvas = { width: 500, height: 500 };
    const body = (shadowInBox: boolean) => ({
      background: { type: 'white', shadow: 'soft' },
      placement: { ...canvas, padding: 20, vertical_alignment: 'bottom', shadow_in_box: shadowInBox },
    });
    const without = await placed('/remove-background', body(false));
    const withShadow = await placed('/remove-background', body(true));
    // Without it the product alone fits the 460 px of height and stands on the padding's edge (row 479).
    expect(boundsWhere(without, byColourOnWhite)).toEqual(promisedBox(canvas, even(20), 'fit', 'center', 'bottom'));
    const shadowRows = (image: Decoded) => {
      const rows: number[] = [];
      for (let y = 0; y < image.height; y++) {
        const [r, , b] = image.pixel(250, y);
        // Grey (the shadow on white), not the product's orange.
        if (r < 245 && Math.abs(r - b) < 8) rows.push(y);
      }
      return rows;
    };
    expect(Math.max(...shadowRows(without))).toBeGreaterThan(479);
    // With it the product and its visible shadow share that height: the product is smaller and stands higher,
    // and the shadow ends inside the padded box.
    const product = boundsWhere(withShadow, byColourOnWhite);
    expect(product?.height).toBeLessThan(450);
    expect((product?.top ?? 0) + (product?.height ?? 0)).toBeLessThan(475);
    expect(Math.max(...shadowRows(withShadow))).toBeLessThanOrEqual(480);
    expect(Math.min(...shadowRows(withShadow))).toBeGreaterThanOrEqual((product?.top ?? 0) + (product?.height ?? 0));
  });

  it('places a mask (channels alpha) exactly as the cut-out', async () => {
    const canvas = { width: 300, height: 300 };
    const placement = { ...canvas, padding: { left: 10, right: 40, top: 25, bottom: 5 }, horizontal_alignment: 'left' };
    const mask = await placed('/remove-background', { output: { channels: 'alpha' }, placement });
    expect([mask.width, mask.height]).toEqual([300, 300]);
    const promised = promisedBox(canvas, { left: 10, right: 40, top: 25, bottom: 5 }, 'fit', 'left', 'center');
    expect(boundsWhere(mask, (pixel) => pixel[0] >= 128)).toEqual(promised);
    const cutout = await placed('/remove-background', { placement });
    expect(boundsWhere(cutout, byAlpha)).toEqual(promised);
  });

  it('places the cut-out of an image edit on its canvas, on white and transparent', async () => {
    const canvas = { width: 640, height: 480 };
    const placement = {
      ...canvas,
      padding: '5%',
      horizontal_alignment: 'right',
      vertical_alignment: 'top',
      scale: '90%',
    };
    // 5 %: 32 across, 24 down.
    const promised = promisedBox(canvas, { left: 32, right: 32, top: 24, bottom: 24 }, 90, 'right', 'top');
    const onWhite = await placed('/image/edit', { operations: { background: { type: 'white' }, placement } });
    expect([onWhite.width, onWhite.height]).toEqual([640, 480]);
    expect(boundsWhere(onWhite, byColourOnWhite)).toEqual(promised);
    expect(onWhite.pixel(5, 5)).toEqual([255, 255, 255, 255]);
    const transparent = await placed('/image/edit', {
      operations: { background: { type: 'transparent' }, adjustments: { light: true }, placement },
    });
    expect(boundsWhere(transparent, byAlpha)).toEqual(promised);
  });

  it('fits a background photo to the canvas around the placed product', async () => {
    const canvas = { width: 500, height: 400 };
    const image = await placed('/remove-background', {
      background: { type: 'image', image_url: server.url('/green.png') },
      placement: { ...canvas, padding: 40, horizontal_alignment: 'left' },
    });
    expect([image.width, image.height]).toEqual([500, 400]);
    // On green, red is 240 a + 40 (1 - a): at least half the product's where it is at least 140.
    expect(boundsWhere(image, (pixel) => pixel[0] >= 140)).toEqual(
      promisedBox(canvas, even(40), 'fit', 'left', 'center'),
    );
    // The photo covers the whole canvas, the padding included.
    expect(image.pixel(2, 2)).toEqual([...GREEN, 255]);
    expect(image.pixel(497, 397)).toEqual([...GREEN, 255]);
  });

  it("places a source that is its own mask (existing_alpha use) by its alpha's box", async () => {
    const canvas = { width: 360, height: 360 };
    const res = await jobs().create('/remove-background', {
      input: [{ image_url: server.url('/cut-out.png') }],
      existing_alpha: 'use',
      placement: { ...canvas, padding: { top: 10, bottom: '10%' }, vertical_alignment: 'top', scale: '50%' },
    });
    expect(res.status).toBe(202);
    const [result] = await jobs().results(res.body.job.id);
    expect({ status: result.status, error: result.error_message }).toEqual({ status: 'completed', error: null });
    const image = await jobs().download(result.result_url as string);
    const padding = { top: 10, right: 0, bottom: 36, left: 0 };
    expect(boundsWhere(image, byAlpha)).toEqual(promisedBox(canvas, padding, 50, 'center', 'top'));
  });

  it('answers a sandbox job with a result of the canvas size', async () => {
    const sandbox = jobsClient(t, () => account.sandboxKey);
    const res = await sandbox.create('/remove-background', {
      input: [{ image_url: 'https://images.example.com/p/1.jpg' }],
      placement: { width: 321, height: 123, padding: 4 },
    });
    expect(res.status).toBe(202);
    const [result] = await sandbox.results(res.body.job.id);
    const image = await sandbox.download(result.result_url as string);
    expect([image.width, image.height]).toEqual([321, 123]);
  });

  describe('refuses bad placements at their paths, writing and charging nothing', () => {
    const VALID_CUTOUT = { input: [{ image_url: 'https://images.example.com/p/1.jpg' }] };
    const VALID_EDIT = {
      input: [{ image_url: 'https://images.example.com/p/1.jpg' }],
      operations: { background: { type: 'white' } },
    };
    const cases: Array<[what: string, path: string, body: object, paths: string[]]> = [
      ['a width without a height', '/remove-background', { placement: { width: 100 } }, ['placement.height']],
      ['a height without a width', '/remove-background', { placement: { height: 100 } }, ['placement.width']],
      ['a width of 0', '/remove-background', { placement: { width: 0, height: 10 } }, ['placement.width']],
      ['a height above 8192', '/remove-background', { placement: { width: 10, height: 8193 } }, ['placement.height']],
      ['a fractional width', '/remove-background', { placement: { width: 10.5, height: 10 } }, ['placement.width']],
      // 8192 x 8192 is 67.1 megapixels; a worker holds at most SOURCE_MAX_MEGAPIXELS (50).
      ['a canvas of 67 megapixels', '/remove-background', { placement: { width: 8192, height: 8192 } }, ['placement']],
      [
        'a canvas of 67 megapixels on an edit',
        '/image/edit',
        { operations: { background: { type: 'white' }, placement: { width: 8192, height: 8192 } } },
        ['operations.placement'],
      ],
      ['padding as an array', '/remove-background', { placement: { padding: [1, 2] } }, ['placement.padding']],
      ['padding of 50 %', '/remove-background', { placement: { padding: '50%' } }, ['placement.padding']],
      ['a negative padding', '/remove-background', { placement: { padding: -1 } }, ['placement.padding']],
      ['a padding in em', '/remove-background', { placement: { padding: '2em' } }, ['placement.padding']],
      ['a side of 60 %', '/remove-background', { placement: { padding: { top: '60%' } } }, ['placement.padding.top']],
      [
        'two bad sides',
        '/remove-background',
        { placement: { padding: { left: 1.5, bottom: 'x' } } },
        ['placement.padding.bottom', 'placement.padding.left'],
      ],
      [
        'an unknown side',
        '/remove-background',
        { placement: { padding: { middle: 3 } } },
        ['placement.padding.middle'],
      ],
      [
        'padding leaving no room across',
        '/remove-background',
        { placement: { width: 100, height: 100, padding: { left: 50, right: '50px' } } },
        ['placement.padding'],
      ],
      [
        'padding leaving no room down',
        '/remove-background',
        { placement: { width: 100, height: 40, padding: { top: '49%', bottom: 21 } } },
        ['placement.padding'],
      ],
      [
        'an alignment of middle',
        '/remove-background',
        { placement: { horizontal_alignment: 'middle' } },
        ['placement.horizontal_alignment'],
      ],
      [
        'a vertical alignment of left',
        '/remove-background',
        { placement: { vertical_alignment: 'left' } },
        ['placement.vertical_alignment'],
      ],
      ['a scale of 0 %', '/remove-background', { placement: { scale: '0%' } }, ['placement.scale']],
      ['a scale of 120 %', '/remove-background', { placement: { scale: '120%' } }, ['placement.scale']],
      ['a scale of contain', '/remove-background', { placement: { scale: 'contain' } }, ['placement.scale']],
      ['a scale as a number', '/remove-background', { placement: { scale: 0.8 } }, ['placement.scale']],
      [
        'shadow_in_box as a string',
        '/remove-background',
        { placement: { shadow_in_box: 'yes' } },
        ['placement.shadow_in_box'],
      ],
      ['an unknown member', '/remove-background', { placement: { margin: 3 } }, ['placement.margin']],
      ['placement as a string', '/remove-background', { placement: 'center' }, ['placement']],
      [
        'placement with crop_to_subject',
        '/remove-background',
        { placement: {}, output: { crop_to_subject: true } },
        ['placement'],
      ],
      [
        'placement with margin_percent',
        '/remove-background',
        { placement: {}, output: { margin_percent: 5 } },
        ['placement'],
      ],
      [
        'a bad scale on an edit',
        '/image/edit',
        { operations: { background: { type: 'white' }, placement: { scale: 'big' } } },
        ['operations.placement.scale'],
      ],
      [
        'a bad side on an edit',
        '/image/edit',
        { operations: { background: { type: 'white' }, placement: { padding: { right: '51%' } } } },
        ['operations.placement.padding.right'],
      ],
      [
        'placement on an edit without a background',
        '/image/edit',
        { operations: { placement: { width: 10, height: 10 } } },
        ['operations.placement'],
      ],
      [
        'placement on an edit that keeps the original background',
        '/image/edit',
        { operations: { background: { type: 'original', shadow: 'soft' }, placement: {} } },
        ['operations.placement'],
      ],
      [
        'placement with a blurred background',
        '/remove-background',
        { placement: {}, background: { type: 'blur' } },
        ['placement'],
      ],
      [
        'placement on an edit with a blurred background',
        '/image/edit',
        { operations: { background: { type: 'blur' }, placement: {} } },
        ['operations.placement'],
      ],
      [
        'placement on an edit with resizing',
        '/image/edit',
        { operations: { background: { type: 'white' }, resizing: { width: 10 }, placement: {} } },
        ['operations.placement'],
      ],
    ];

    it.each(cases)('refuses %s', async (_what, path, body, paths) => {
      const valid = path === '/remove-background' ? VALID_CUTOUT : VALID_EDIT;
      const rowsBefore = await writtenRows(t);
      const creditsBefore = await creditTotals(t, account.accountId);
      const res: Response = await jobs().create(path, { ...valid, ...body });
      expectError(res, 400, 'invalid_request');
      const errors: Array<{ path: string }> = res.body.error.details.errors;
      expect([...new Set(errors.map((error) => error.path))].sort()).toEqual(paths);
      expect(await writtenRows(t)).toEqual(rowsBefore);
      expect(await creditTotals(t, account.accountId)).toEqual(creditsBefore);
    });

    it('fails a result whose padding leaves no room on a source-size canvas, releasing its credits', async () => {
      const before = await creditTotals(t, account.accountId);
      const res = await jobs().create('/remove-background', {
        input: [{ image_url: source }],
        placement: { padding: { left: 200, right: 200 } },
      });
      expect(res.status).toBe(202);
      const [result] = await jobs().results(res.body.job.id);
      expect(result).toMatchObject({ status: 'failed', error_code: 'processing_failed' });
      expect(result.error_message).toContain('no room');
      expect(await creditTotals(t, account.accountId)).toEqual(before);
    });
  });
});
