import { basename, dirname } from 'node:path';
import sharp from 'sharp';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { SOURCE_PREVIEW_SIDE } from '../../src/core/image/pipeline-steps';
import { ciede2000, labOf } from '../support/colour-difference';
import { decodeRgba, fromFixture, paint, type Rgb } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { idempotencyKey, waitForJob } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { SOURCE_XMP } from '../support/photo-metadata';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

/** What the source shows a viewer: a red marker in one corner of a green picture. */
const MARKER: Rgb = [210, 30, 40];
const BACKGROUND: Rgb = [40, 160, 90];
/** The marker's side in the stored pixels, an eighth of the stored width. */
const MARKER_SIDE = 300;

interface ShownResult {
  id: string;
  external_id: string;
  status: string;
  result_url: string | null;
  source_preview_url: string | null;
}

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

/**
 * A camera's JPEG, 2400 x 1800 stored sideways (EXIF Orientation 6: turn 90 degrees clockwise to
 * view), the marker in the stored top-left corner, so a viewer sees it top-right. Its pixels are
 * in Display P3 with that profile embedded (the stored numbers are not the sRGB colours), and it
 * carries EXIF fields and an XMP packet.
 */
function sidewaysP3Photo(): Promise<Buffer> {
  const stored = paint(2400, 1800, (x, y) => (x < MARKER_SIDE && y < MARKER_SIDE ? MARKER : BACKGROUND));
  return fromFixture(stored)
    .withMetadata({ orientation: 6 })
    .withIccProfile('p3')
    .withExif({ IFD0: { Artist: 'Ann Example', Copyright: 'Acme Photo' } })
    .withXmp(SOURCE_XMP)
    .jpeg({ quality: 95 })
    .toBuffer();
}

/** A 300 x 200 PNG, smaller than a preview: the marker in its top-left corner. */
function smallPhoto(): Promise<Buffer> {
  return fromFixture(paint(300, 200, (x, y) => (x < 60 && y < 60 ? MARKER : BACKGROUND)))
    .png()
    .toBuffer();
}

/** The mean colour of a square of `side` px at (left, top) of a decoded image. */
function meanColour(image: Awaited<ReturnType<typeof decodeRgba>>, left: number, top: number, side: number): Rgb {
  const sum = [0, 0, 0];
  for (let y = top; y < top + side; y++) {
    for (let x = left; x < left + side; x++) {
      const [r, g, b] = image.pixel(x, y);
      sum[0] += r;
      sum[1] += g;
      sum[2] += b;
    }
  }
  return sum.map((total) => total / (side * side)) as Rgb;
}

const colourDistance = (a: Rgb, b: Rgb) => ciede2000(labOf(a), labOf(b));

describe('source previews through the API and an in-process worker', () => {
  let t: TestApp;
  let sources: ImageSourceServer;
  let account: SeededAccount;
  let sideways: Buffer;

  beforeAll(async () => {
    sources = await ImageSourceServer.start(['127.0.0.1']);
    sideways = await sidewaysP3Photo();
    sources.serve('/sideways.jpg', sideways, { contentType: 'image/jpeg' });
    sources.serve('/small.png', await smallPhoto(), { contentType: 'image/png' });
    t = await createTestApp({ ...GENEROUS_LIMITS, OUTBOUND_ALLOWLIST: '127.0.0.1' }, { role: ProcessRole.All });
    account = await seedAccount(t, { credits: 20 });
  });
  afterAll(async () => {
    await t.close();
    await sources.stop();
  });

  async function finishedResults(key: string, path: string, body: object): Promise<Map<string, ShownResult>> {
    const created = await t
      .http()
      .post(path)
      .set(bearer(key))
      .set('Idempotency-Key', idempotencyKey())
      .send(body)
      .expect(202);
    const jobId: string = created.body.job.id;
    await waitForJob(t, jobId, undefined, 45_000);
    const read = await t.http().get(`/api/v1/jobs/${jobId}`).set(bearer(key)).expect(200);
    return new Map((read.body.results as ShownResult[]).map((result) => [result.external_id, result]));
  }

  const download = async (url: string) => {
    const res = await t.http().get(pathOf(url)).buffer(true).expect(200);
    expect(res.headers['content-type']).toBe('image/webp');
    return res.body as Buffer;
  };

  it('previews an http source upright, at most 1600 px, sRGB, no metadata; a small one keeps its size', async () => {
    const results = await finishedResults(account.liveKey, '/api/v1/image/edit', {
      input: [
        { image_url: sources.url('/sideways.jpg'), external_id: 'sideways' },
        { image_url: sources.url('/small.png'), external_id: 'small' },
      ],
    });
    const large = results.get('sideways') as ShownResult;
    expect(large.status).toBe('completed');
    const preview = await download(large.source_preview_url as string);

    const stated = await sharp(preview).metadata();
    expect(stated).toMatchObject({ format: 'webp', width: 1200, height: SOURCE_PREVIEW_SIDE });
    expect({ exif: stated.exif, icc: stated.icc, xmp: stated.xmp, orientation: stated.orientation }).toEqual({
      exif: undefined,
      icc: undefined,
      xmp: undefined,
      orientation: undefined,
    });

    // Upright: the marker a viewer sees top-right is top-right, 200 px (300 of 2400 scaled by 1/1.5) a side.
    const pixels = await decodeRgba(preview);
    expect(colourDistance(meanColour(pixels, 1200 - 180, 20, 160), MARKER)).toBeLessThan(3);
    expect(colourDistance(meanColour(pixels, 20, 20, 160), BACKGROUND)).toBeLessThan(3);
    expect(colourDistance(meanColour(pixels, 500, 1300, 160), BACKGROUND)).toBeLessThan(3);
    // The profile was applied: the stored numbers, read as sRGB, are other colours (red 194, not 210).
    const storedNumbers = await decodeRgba(await sharp(sideways, { ignoreIcc: true }).png().toBuffer());
    const storedMarker = meanColour(storedNumbers, 20, 20, 160);
    expect(Math.max(...storedMarker.map((channel, i) => Math.abs(channel - MARKER[i])))).toBeGreaterThan(10);

    // The preview sits beside the result's files, written by the same run.
    const [row] = await t.dataSource.query(`SELECT result_key, source_preview_key FROM job_results WHERE id = $1`, [
      large.id,
    ]);
    expect(dirname(row.source_preview_key)).toBe(dirname(row.result_key));
    expect(basename(row.source_preview_key)).toBe(`${basename(row.result_key, '.png')}.source.webp`);

    const small = results.get('small') as ShownResult;
    const smallPreview = await download(small.source_preview_url as string);
    expect(await sharp(smallPreview).metadata()).toMatchObject({ format: 'webp', width: 300, height: 200 });
    const smallPixels = await decodeRgba(smallPreview);
    expect(colourDistance(meanColour(smallPixels, 10, 10, 40), MARKER)).toBeLessThan(3);
    expect(colourDistance(meanColour(smallPixels, 200, 100, 40), BACKGROUND)).toBeLessThan(3);
  });

  it('gives a failed result no preview', async () => {
    sources.serve('/missing.jpg', 'gone', { status: 404, contentType: 'text/plain' });
    const results = await finishedResults(account.liveKey, '/api/v1/image/edit', {
      input: [{ image_url: sources.url('/missing.jpg'), external_id: 'missing' }],
    });
    expect(results.get('missing')).toMatchObject({ status: 'failed', source_preview_url: null });
  });

  it('gives a sandbox result a decodable stand-in preview, and a generation from a prompt none', async () => {
    const edited = await finishedResults(account.sandboxKey, '/api/v1/image/edit', {
      input: [{ image_url: 'https://images.example.com/p/shoe.jpg', external_id: 'shoe' }],
    });
    const shoe = edited.get('shoe') as ShownResult;
    const preview = await download(shoe.source_preview_url as string);
    expect(await sharp(preview).metadata()).toMatchObject({ format: 'webp', width: 512, height: 512 });
    expect((await decodeRgba(preview)).data.length).toBe(512 * 512 * 4);

    const created = await t
      .http()
      .post('/api/v1/image/generate')
      .set(bearer(account.sandboxKey))
      .set('Idempotency-Key', idempotencyKey())
      .send({ prompt: 'A red bicycle' })
      .expect(202);
    await waitForJob(t, created.body.job.id);
    const read = await t.http().get(`/api/v1/jobs/${created.body.job.id}`).set(bearer(account.sandboxKey)).expect(200);
    expect(read.body.results).toEqual([
      expect.objectContaining({ status: 'completed', result_url: expect.any(String), source_preview_url: null }),
    ]);
  });
});
