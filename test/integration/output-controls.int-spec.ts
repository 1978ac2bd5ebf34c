import sharp from 'sharp';
import { DEFAULT_QUALITY } from '../../src/core/image/pipeline-steps';
import { FakeSegmentationService } from '../support/fake-segmentation-service';
import { decodeRgba, fromFixture, paint, productPhoto, type RawFixture } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { liveCutoutApp } from '../support/live-cutouts';
import { jobsClient } from '../support/jobs';
import {
  fileStatement,
  photographersJpeg,
  SOURCE_ARTIST,
  SOURCE_COPYRIGHT,
  TAG,
  XMP_RIGHTS,
  type FileStatement,
} from '../support/photo-metadata';
import { seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

/**
 * Output controls (issue 20, item 5) through the API with a live key and an in-process worker,
 * read back from the downloaded files with sharp: quality for jpg, webp and avif, lossless webp, dpi written into the
 * file, every result tagged sRGB, and metadata stripped (the default) or kept, on the edit tool
 * and on background removal (cut-out and mask).
 */

const FORMATS = ['jpg', 'png', 'webp'] as const;

/** The upright photo of the metadata cases: a product photo with a red block in its top-left corner. */
const UPRIGHT = { width: 240, height: 160 };
const RED_BLOCK = 40;
const uprightPhoto = (): RawFixture => {
  const photo = productPhoto(UPRIGHT.width, UPRIGHT.height, 3);
  for (let y = 0; y < RED_BLOCK; y++) {
    for (let x = 0; x < RED_BLOCK; x++) photo.data.set([220, 20, 20], (y * UPRIGHT.width + x) * 3);
  }
  return photo;
};

/** Fixtures of different content for the quality cases: texture and noise, hard-edged print, smooth shading. */
const QUALITY_FIXTURES: Record<string, RawFixture> = {
  'product photo': productPhoto(480, 360, 11),
  'label print': paint(480, 360, (x, y) => {
    const glyph = Math.floor(x / 6) % 3 !== 0 && Math.floor(y / 9) % 2 === 0 && (x * 7 + y * 3) % 11 > 3;
    return glyph ? [20, 20, 30] : [250, 248, 240];
  }),
  'smooth shading': paint(480, 360, (x, y) => [90 + x / 4, 120 + y / 5, 200 - x / 6]),
};

/**
 * How much smaller a file at quality 40 must be than at 95. JPEG's quantisation tables are about
 * 12 times coarser at 40 (libjpeg scales them by 5000/40 % against 200 - 2 x 95 %), so whatever
 * the content its file is under half. WebP's quality steers a different encoder, whose saving on
 * hard-edged flat print is smaller: there the file must only be smaller.
 */
const MAX_SIZE_RATIO = { jpg: 0.5, webp: 1 };

const sourcePath = (fixture: string) => `/${fixture.replace(/ /g, '-')}.png`;

/** Root-mean-square difference of two decoded RGBA images of one size, over the colour channels. */
function rmse(a: { data: Buffer }, b: { data: Buffer }): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < a.data.length; i++) {
    if (i % 4 === 3) continue;
    sum += (a.data[i] - b.data[i]) ** 2;
    count++;
  }
  return Math.sqrt(sum / count);
}

const expectSrgbTagged = (stated: FileStatement) =>
  expect(stated.icc).toEqual({ space: 'RGB', description: expect.stringContaining('sRGB') });

/** The file keeps the photographer's rights, camera and XMP, and none of orientation, GPS or serial number. */
function expectKept(stated: FileStatement): void {
  expect(stated.exif?.image.get(TAG.copyright)?.value).toBe(SOURCE_COPYRIGHT);
  expect(stated.exif?.image.get(TAG.artist)?.value).toBe(SOURCE_ARTIST);
  expect(stated.exif?.capture.get(TAG.exposureTime)?.value).toBe('1/125');
  expect(stated.exif?.image.get(TAG.orientation)?.value ?? '1').toBe('1');
  expect(stated.exif?.image.has(TAG.gpsPointer)).toBe(false);
  expect(stated.exif?.capture.has(TAG.bodySerialNumber)).toBe(false);
  expect(stated.xmp).toContain(XMP_RIGHTS);
  expect(stated.xmp).not.toMatch(/GPS|Orientation/);
}

describe('output controls through the API and an in-process worker', () => {
  let t: TestApp;
  let server: ImageSourceServer;
  let account: SeededAccount;
  const segmentation = new FakeSegmentationService();

  beforeAll(async () => {
    server = await ImageSourceServer.start();
    server.serve('/photographer.jpg', await photographersJpeg(fromFixture(uprightPhoto()).rotate(-90)), {
      contentType: 'image/jpeg',
    });
    for (const [name, fixture] of Object.entries(QUALITY_FIXTURES)) {
      server.serve(sourcePath(name), await fromFixture(fixture).png().toBuffer(), {
        contentType: 'image/png',
      });
    }
    t = await liveCutoutApp(server, segmentation);
    account = await seedAccount(t, { credits: 1000 });
  });
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  /** Creates a live job, waits for it, and downloads each result's image and thumbnail. */
  async function run(path: string, body: object): Promise<Array<{ image: Buffer; thumbnail: Buffer }>> {
    const jobs = jobsClient(t, () => account.liveKey);
    const res = await jobs.create(path, body);
    expect(res.status).toBe(202);
    const results = await jobs.results(res.body.job.id);
    const read = { body: await jobs.read(res.body.job.id) };
    expect(results.map((result) => result.status)).toEqual(results.map(() => 'completed'));
    // Charged as usual: the options cost nothing extra.
    expect(read.body.job.credits_used).toBe(results.length);
    return Promise.all(
      results.map(async (result) => ({
        image: await jobs.bytes(result.result_url ?? ''),
        thumbnail: await jobs.bytes(result.thumbnail_url ?? ''),
      })),
    );
  }

  const edit = async (source: string, output: object) =>
    (await run('/image/edit', { input: [{ image_url: server.url(source) }], output }))[0];

  it('writes jpg and webp at the quality asked for: smaller and further from the pixels at 40 than at 95', async () => {
    const measured: Array<{
      fixture: string;
      format: 'jpg' | 'webp';
      bytes: number[];
      errors: number[];
      sameAsDefault: boolean;
    }> = [];
    for (const [name, fixture] of Object.entries(QUALITY_FIXTURES)) {
      const source = sourcePath(name);
      const png = (await edit(source, { format: 'png' })).image;
      // The edit changes nothing, so the png result is the fixture itself: the reference for the lossy files.
      expect(await sharp(png).raw().toBuffer()).toEqual(fixture.data);
      const lossless = await decodeRgba(png);
      for (const format of ['jpg', 'webp'] as const) {
        const [low, high, unset, encoderDefault] = await Promise.all(
          [40, 95, undefined, DEFAULT_QUALITY[format]].map(
            async (quality) => (await edit(source, { format, quality })).image,
          ),
        );
        measured.push({
          fixture: name,
          format,
          bytes: [low.length, high.length],
          errors: [rmse(await decodeRgba(low), lossless), rmse(await decodeRgba(high), lossless)],
          sameAsDefault: unset.equals(encoderDefault),
        });
      }
    }
    console.log(
      'quality 40 against 95 (error: RMSE of the decoded file against the lossless result, 0..255)\n' +
        'fixture          fmt   bytes@40  bytes@95  ratio   err@40  err@95  no quality = default\n' +
        measured
          .map(({ fixture, format, bytes, errors, sameAsDefault }) =>
            [
              fixture.padEnd(16),
              format.padEnd(5),
              String(bytes[0]).padStart(8),
              ` ${String(bytes[1]).padStart(8)}`,
              ` ${(bytes[0] / bytes[1]).toFixed(2)}`,
              ` ${errors[0].toFixed(2).padStart(7)}`,
              errors[1].toFixed(2).padStart(7),
              ` ${sameAsDefault}`,
            ].join(' '),
          )
          .join('\n'),
    );
    for (const { format, bytes, errors, sameAsDefault } of measured) {
      expect(bytes[0]).toBeLessThan(bytes[1] * MAX_SIZE_RATIO[format]);
      expect(errors[0]).toBeGreaterThan(errors[1]);
      // Without a quality the encoder's settings are today's: the same bytes as DEFAULT_QUALITY.
      expect(sameAsDefault).toBe(true);
    }
  }, 180_000);

  it.each(FORMATS)(
    'strips metadata from a %s by default, tags it sRGB, and turns the pixels upright',
    async (format) => {
      const { image, thumbnail } = await edit('/photographer.jpg', { format });
      const stated = await fileStatement(image);
      expectSrgbTagged(stated);
      expect(stated).toMatchObject({ exif: null, xmp: null });
      const pixels = await decodeRgba(image);
      expect([pixels.width, pixels.height]).toEqual([UPRIGHT.width, UPRIGHT.height]);
      const corner = pixels.pixel(RED_BLOCK / 2, RED_BLOCK / 2);
      expect(corner[0]).toBeGreaterThan(180);
      expect(corner[1]).toBeLessThan(70);
      // The thumbnail stays a stripped 256 px WebP, tagged sRGB too.
      const thumb = await fileStatement(thumbnail);
      expect(thumb).toMatchObject({ format: 'webp', exif: null, xmp: null });
      expectSrgbTagged(thumb);
    },
  );

  it.each(FORMATS)('writes a dpi into a %s without carrying anything of the source', async (format) => {
    const stated = await fileStatement((await edit('/photographer.jpg', { format, dpi: 300 })).image);
    expect(stated.density).toBe(300);
    expectSrgbTagged(stated);
    for (const tag of [TAG.copyright, TAG.artist, TAG.make, TAG.gpsPointer])
      expect(stated.exif?.image.has(tag)).toBe(false);
    expect(stated.exif?.capture.has(TAG.exposureTime)).toBe(false);
    expect(stated.xmp).toBeNull();
  });

  it.each(FORMATS)(
    "keeps the source's rights, EXIF and XMP in a %s, without orientation or GPS, pixels upright",
    async (format) => {
      const { image, thumbnail } = await edit('/photographer.jpg', { format, metadata: 'keep' });
      const stated = await fileStatement(image);
      expectKept(stated);
      expectSrgbTagged(stated);
      // The source says 300 dpi; keep carries it when no dpi is asked for.
      expect(stated.density).toBe(300);
      const pixels = await decodeRgba(image);
      expect([pixels.width, pixels.height]).toEqual([UPRIGHT.width, UPRIGHT.height]);
      expect(pixels.pixel(RED_BLOCK / 2, RED_BLOCK / 2)[0]).toBeGreaterThan(180);
      expect(await fileStatement(thumbnail)).toMatchObject({ exif: null, xmp: null });
      const asked = await fileStatement(
        (await edit('/photographer.jpg', { format, metadata: 'keep', dpi: 150 })).image,
      );
      expect(asked.density).toBe(150);
      expectKept(asked);
    },
  );

  it('applies dpi and metadata to background removal: cut-outs in png and webp, and the one-channel mask', async () => {
    const cutout = (output: object) =>
      run('/remove-background', { input: [{ image_url: server.url('/photographer.jpg') }], output });
    const [png] = await cutout({ format: 'png', metadata: 'keep', dpi: 600 });
    const [webp] = await cutout({ format: 'webp', quality: 70, metadata: 'keep' });
    const [mask] = await cutout({ channels: 'alpha', metadata: 'keep', dpi: 600 });
    const [strippedMask] = await cutout({ channels: 'alpha', dpi: 600 });
    const rows: string[] = [];
    for (const [name, file] of Object.entries({ png, webp, mask, strippedMask })) {
      const stated = await fileStatement(file.image);
      rows.push(
        `${name.padEnd(13)} ${stated.format.padEnd(5)} channels ${stated.channels} density ${stated.density ?? '-'} ` +
          `icc ${stated.icc?.description ?? '-'} copyright ${stated.exif?.image.get(TAG.copyright)?.value ?? '-'} ` +
          `xmp ${stated.xmp ? 'yes' : 'no'}`,
      );
    }
    console.log(`background removal with output controls\n${rows.join('\n')}`);

    for (const file of [png, webp]) {
      const stated = await fileStatement(file.image);
      expectKept(stated);
      expectSrgbTagged(stated);
    }
    expect((await fileStatement(png.image)).density).toBe(600);
    const maskStated = await fileStatement(mask.image);
    expectKept(maskStated);
    expect(maskStated).toMatchObject({ format: 'png', channels: 1, icc: null, density: 600 });
    expect(await fileStatement(strippedMask.image)).toMatchObject({ channels: 1, density: 600, exif: null, xmp: null });
  }, 120_000);

  it("writes avif at the size asked, smaller at a lower quality, and keeps a cut-out's alpha", async () => {
    const source = sourcePath('product photo');
    const sized = (output: object) =>
      run('/image/edit', {
        input: [{ image_url: server.url(source) }],
        operations: { resizing: { width: 300, height: 200, fit: 'cover' } },
        output,
      }).then(([result]) => result);
    const [low, high, unasked] = await Promise.all([
      sized({ format: 'avif', quality: 30 }),
      sized({ format: 'avif', quality: 90 }),
      sized({ format: 'avif' }),
    ]);
    console.log(
      `avif 300x200: ${low.image.length} bytes at 30, ${high.image.length} at 90, ${unasked.image.length} unasked`,
    );
    for (const { image } of [low, high, unasked]) {
      // libheif reports an AVIF as heif with the av1 compression.
      expect(await sharp(image).metadata()).toMatchObject({
        format: 'heif',
        compression: 'av1',
        width: 300,
        height: 200,
      });
      expect(image.toString('ascii', 4, 12)).toBe('ftypavif');
    }
    expect(low.image.length).toBeLessThan(high.image.length);
    // Thumbnails stay as they are: WebP.
    expect(await sharp(low.thumbnail).metadata()).toMatchObject({ format: 'webp' });

    const [cutout] = await run('/remove-background', {
      input: [{ image_url: server.url('/photographer.jpg') }],
      output: { format: 'avif' },
    });
    const cut = await sharp(cutout.image).metadata();
    expect(cut).toMatchObject({ format: 'heif', compression: 'av1', hasAlpha: true });
    const { data, info } = await sharp(cutout.image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const alphas = Array.from({ length: info.width * info.height }, (_, i) => data[i * 4 + 3]);
    expect(Math.min(...alphas)).toBeLessThan(10);
    expect(Math.max(...alphas)).toBeGreaterThan(245);
  }, 120_000);

  it("writes a lossless webp whose pixels are exactly the result's", async () => {
    const source = sourcePath('product photo');
    const [lossless] = await run('/image/edit', {
      input: [{ image_url: server.url(source) }],
      output: { format: 'webp', lossless: true },
    });
    const [png] = await run('/image/edit', { input: [{ image_url: server.url(source) }], output: { format: 'png' } });
    const decoded = await decodeRgba(lossless.image);
    const reference = await decodeRgba(png.image);
    expect(await sharp(lossless.image).metadata()).toMatchObject({ format: 'webp', width: 480, height: 360 });
    expect(decoded.data.equals(reference.data)).toBe(true);
    // The source itself, unchanged by an edit without operations.
    const original = await decodeRgba(await fromFixture(QUALITY_FIXTURES['product photo']).png().toBuffer());
    expect(decoded.data.equals(original.data)).toBe(true);

    const [cutout] = await run('/remove-background', {
      input: [{ image_url: server.url('/photographer.jpg') }],
      output: { format: 'webp', lossless: true },
    });
    const [cutoutPng] = await run('/remove-background', {
      input: [{ image_url: server.url('/photographer.jpg') }],
      output: { format: 'png' },
    });
    // Every pixel the cut-out shows is exact; where it is fully transparent the encoder may drop the hidden colour.
    const visible = (image: Buffer) =>
      Buffer.from(Array.from(image).map((value, i) => (image[i - (i % 4) + 3] === 0 ? 0 : value)));
    const [lossyPixels, pngPixels] = [await decodeRgba(cutout.image), await decodeRgba(cutoutPng.image)];
    expect(visible(lossyPixels.data).equals(visible(pngPixels.data))).toBe(true);
  }, 120_000);
});
