import sharp from 'sharp';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { applyFilters } from '../../src/engine/filters';
import type { RawImage } from '../../src/engine/raw-image';
import { prepareEsrganModel } from '../../src/core/super-resolution/esrgan-model';
import { EsrganSession } from '../../src/core/super-resolution/esrgan-session';
import { TILE_OVERLAP } from '../../src/core/super-resolution/tiling';
import { enlargeTiled } from '../../src/core/super-resolution/tiled-enlargement';
import { EDIT_VARIANTS, sharpeningOf } from '../../src/modules/tools/image-editing/edit-request';
import { detailedProductPhotos, type DetailedPhoto } from '../support/detailed-products';
import { resizeOnly } from '../support/edit-requests';
import { expectError } from '../support/http-errors';
import { fromFixture } from '../support/image-fixtures';
import { psnr, ssim } from '../support/image-quality';
import { ImageSourceServer } from '../support/image-source-server';
import { creditTotals, idempotencyKey, resultFile, waitForJob, type ResultBody } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import {
  bearer,
  createTestApp,
  seedAccount,
  TEST_MODELS_DIR,
  type SeededAccount,
  type TestApp,
} from '../support/test-app';

/** The photos' size, a multiple of 4 so both shrinks are exact. */
const ORIGINAL = { width: 640, height: 480 };
/** Enlarging by the model is a few seconds of CPU per result on a busy 2-core machine. */
const SLOW = 180_000;

const upscaleTo = (size: object) => ({ resizing: size, restorations: { upscale: true } });

async function rawOf(image: Buffer | sharp.Sharp): Promise<RawImage> {
  const pipeline = Buffer.isBuffer(image) ? sharp(image) : image;
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels as 3 | 4 };
}

/** The photo shrunk `factor` times with Lanczos 3, as a client's small source would be. */
const shrunk = (photo: DetailedPhoto, factor: number) =>
  fromFixture(photo.image)
    .resize(ORIGINAL.width / factor, ORIGINAL.height / factor, { kernel: 'lanczos3', fit: 'fill' })
    .png()
    .toBuffer();

/**
 * What `upscale` did before the model: Lanczos 3 back to the original size, then the sharpening
 * of an enlargement by `factor` for variant 0 (the service's own sharpeningOf and filter step).
 */
async function baseline(small: Buffer, factor: number): Promise<RawImage> {
  const enlarged = await rawOf(sharp(small).resize(ORIGINAL.width, ORIGINAL.height, { kernel: 'lanczos3' }));
  return applyFilters(
    enlarged,
    { saturation: 1, sharpen: sharpeningOf(resizeOnly({ upscale: true }), EDIT_VARIANTS[0], factor) },
    60,
  );
}

describe('upscale by super-resolution, through the API and a worker', () => {
  let t: TestApp;
  let server: ImageSourceServer;
  let account: SeededAccount;

  beforeAll(async () => {
    server = await ImageSourceServer.start();
    t = await createTestApp(
      { ...GENEROUS_LIMITS, OUTBOUND_ALLOWLIST: '127.0.0.1', UPSCALER: 'local' },
      { role: ProcessRole.All },
    );
    account = await seedAccount(t, { credits: 100 });
  });
  afterAll(async () => {
    await t.close();
    await server.stop();
  });

  const create = (body: object) =>
    t
      .http()
      .post('/api/v1/image/edit')
      .set(bearer(account.liveKey))
      .set('Idempotency-Key', idempotencyKey())
      .send(body);

  const finished = async (jobId: string) => {
    await waitForJob(t, jobId, undefined, SLOW);
    return (await t.http().get(`/api/v1/jobs/${jobId}`).set(bearer(account.liveKey)).expect(200)).body as {
      job: { status: string };
      results: ResultBody[];
    };
  };

  it(
    'brings detailed product photos shrunk 2 and 4 times back closer to the original than Lanczos and sharpening',
    async () => {
      const photos = await detailedProductPhotos(ORIGINAL.width, ORIGINAL.height);
      const cases = photos.flatMap((photo) =>
        [2, 4].map((factor) => ({ photo, factor, id: `${photo.name}-x${factor}` })),
      );
      const sources = new Map<string, Buffer>();
      for (const { photo, factor, id } of cases) {
        sources.set(id, await shrunk(photo, factor));
        server.serve(`/${id}.png`, sources.get(id) as Buffer, { contentType: 'image/png' });
      }
      const res = await create({
        input: cases.map(({ id }) => ({ image_url: server.url(`/${id}.png`), external_id: id })),
        operations: upscaleTo(ORIGINAL),
      }).expect(202);
      const { job, results } = await finished(res.body.job.id);
      expect(job.status).toBe('completed');

      const rows = [];
      for (const { photo, factor, id } of cases) {
        const result = results.find((candidate) => candidate.external_id === id) as ResultBody;
        const ours = await rawOf(await resultFile(t, result.result_url as string));
        expect([ours.width, ours.height]).toEqual([ORIGINAL.width, ORIGINAL.height]);
        const theirs = await baseline(sources.get(id) as Buffer, factor);
        rows.push({
          image: photo.name,
          scale: `x${factor}`,
          psnr: psnr(photo.image, ours),
          psnrBaseline: psnr(photo.image, theirs),
          ssim: ssim(photo.image, ours),
          ssimBaseline: ssim(photo.image, theirs),
        });
      }
      console.log(
        'Round trip against the original (luma), ours vs Lanczos + the previous sharpening:\n' +
          'image    scale  PSNR ours  PSNR base  gain dB  SSIM ours  SSIM base\n' +
          rows
            .map((row) =>
              [
                row.image.padEnd(8),
                row.scale.padEnd(5),
                row.psnr.toFixed(2).padStart(9),
                row.psnrBaseline.toFixed(2).padStart(10),
                (row.psnr - row.psnrBaseline).toFixed(2).padStart(8),
                row.ssim.toFixed(4).padStart(10),
                row.ssimBaseline.toFixed(4).padStart(10),
              ].join(' '),
            )
            .join('\n'),
      );
      // x2: PSNR at least 0.5 dB above the baseline's and SSIM above it; x4: both above the baseline's.
      const shortfalls = rows.flatMap((row) => {
        const psnrShort = row.scale === 'x2' ? row.psnr < row.psnrBaseline + 0.5 : row.psnr <= row.psnrBaseline;
        return [
          ...(psnrShort ? [`${row.image} ${row.scale} PSNR`] : []),
          ...(row.ssim <= row.ssimBaseline ? [`${row.image} ${row.scale} SSIM`] : []),
        ];
      });
      expect(shortfalls).toEqual([]);
    },
    SLOW,
  );

  it(
    'shows no seam where tiles meet: a result larger than one tile is what one run over the whole image gives',
    async () => {
      // 520 x 400 enlarged x2 runs as 2 x 2 tiles of 384 source pixels (768 result pixels) at most.
      const [photo] = (await detailedProductPhotos(520, 400)).filter(({ name }) => name === 'lines');
      server.serve('/seams.png', await fromFixture(photo.image).png().toBuffer(), { contentType: 'image/png' });
      const res = await create({
        input: [{ image_url: server.url('/seams.png'), external_id: 'seams' }],
        operations: { restorations: { upscale: true } },
      }).expect(202);
      const { results } = await finished(res.body.job.id);
      expect(results[0].status).toBe('completed');
      const tiled = await rawOf(await resultFile(t, results[0].result_url as string));
      expect([tiled.width, tiled.height]).toEqual([1040, 800]);

      const session = await EsrganSession.open(await prepareEsrganModel({ modelsDir: TEST_MODELS_DIR, scale: 2 }), {
        intraOpThreads: 2,
      });
      try {
        const whole = await enlargeTiled(photo.image, 2, (tile, w, h) => session.enlarge(tile, w, h), {
          tileSide: 1000,
          overlap: TILE_OVERLAP,
        });
        let largest = 0;
        let seamRows = 0;
        for (let i = 0; i < whole.data.length; i++)
          largest = Math.max(largest, Math.abs(tiled.data[i] - whole.data[i]));
        // The step across the seam column (result x 767 | 768) against the same step one run makes there.
        for (let y = 0; y < 800; y++) {
          const step = (image: RawImage) => image.data[(y * 1040 + 768) * 3] - image.data[(y * 1040 + 767) * 3];
          if (Math.abs(step(tiled) - step(whole)) > 1) seamRows += 1;
        }
        console.log(
          `Tiled (2 x 2) against one run: largest difference ${largest} level(s); rows with a seam ${seamRows}`,
        );
        expect(largest).toBeLessThanOrEqual(1);
        expect(seamRows).toBe(0);
      } finally {
        await session.release();
      }
    },
    SLOW,
  );

  it(
    'keeps the transparency of a source that has it',
    async () => {
      const [photo] = (await detailedProductPhotos(200, 150)).filter(({ name }) => name === 'text');
      // The carton alone: everything left and right of it transparent.
      const alpha = Buffer.alloc(200 * 150, 0);
      for (let y = 0; y < 150; y++) alpha.fill(255, y * 200 + 42, y * 200 + 158);
      const source = await fromFixture(photo.image)
        .joinChannel(alpha, { raw: { width: 200, height: 150, channels: 1 } })
        .png()
        .toBuffer();
      server.serve('/transparent.png', source, { contentType: 'image/png' });
      const res = await create({
        input: [{ image_url: server.url('/transparent.png'), external_id: 'transparent' }],
        operations: { restorations: { upscale: true } },
      }).expect(202);
      const { results } = await finished(res.body.job.id);
      const result = await rawOf(await resultFile(t, results[0].result_url as string));
      expect([result.width, result.height, result.channels]).toEqual([400, 300, 4]);
      const alphaAt = (x: number, y: number) => result.data[(y * 400 + x) * 4 + 3];
      expect([alphaAt(10, 150), alphaAt(390, 150), alphaAt(200, 150), alphaAt(100, 20)]).toEqual([0, 0, 255, 255]);
    },
    SLOW,
  );

  it('refuses at create an upscale whose stated size passes the limit, writing nothing', async () => {
    const before = await creditTotals(t, account.accountId);
    const res = await create({
      input: [{ image_url: server.url('/never-fetched.png'), external_id: 'huge' }],
      operations: upscaleTo({ width: 8192, height: 8192, fit: 'cover' }),
    });
    const error = expectError(res, 400, 'invalid_request');
    expect(error.details).toEqual({
      errors: [
        {
          path: 'operations.resizing',
          message: 'an upscaled result is at most 50 megapixels; 8192 x 8192 is 67.1 megapixels',
        },
      ],
    });
    expect(server.requests('/never-fetched.png')).toBe(0);
    expect(await creditTotals(t, account.accountId)).toEqual(before);
  });

  it(
    "fails, uncharged, an upscale whose result only the source's size shows would pass the limits",
    async () => {
      // Flat colour compresses to a few kilobytes whatever the size.
      const flat = (width: number, height: number) =>
        sharp({ create: { width, height, channels: 3, background: '#c0c0c0' } })
          .png()
          .toBuffer();
      server.serve('/wide.png', await flat(5000, 3000), { contentType: 'image/png' });
      server.serve('/square.png', await flat(4000, 4000), { contentType: 'image/png' });
      const before = await creditTotals(t, account.accountId);
      const sized = await create({
        input: [
          { image_url: server.url('/wide.png'), external_id: 'wider-than-8192' },
          { image_url: server.url('/square.png'), external_id: 'model-output-past-50-mp' },
        ],
        // 5000 x 3000 to a height of 5000 is 8333 wide; 4000 x 4000 to 5000 x 5000 runs the x2 model (8000 x 8000).
        operations: upscaleTo({ height: 5000 }),
      }).expect(202);
      const doubled = await create({
        input: [{ image_url: server.url('/wide.png'), external_id: 'doubled-past-8192' }],
        operations: { restorations: { upscale: true } },
      }).expect(202);
      const results = new Map<string, ResultBody>();
      for (const res of [sized, doubled]) {
        const { job, results: jobResults } = await finished(res.body.job.id);
        expect(job.status).toBe('failed');
        for (const result of jobResults) results.set(result.external_id, result);
      }
      const failures = [...results.values()].map(({ external_id, status, error_code, error_message }) => ({
        external_id,
        status,
        error_code,
        error_message,
      }));
      expect(failures).toEqual([
        {
          external_id: 'wider-than-8192',
          status: 'failed',
          error_code: 'source_too_large',
          error_message: expect.stringMatching(/8333 x 5000 image; results are at most 8192 pixels a side/),
        },
        {
          external_id: 'model-output-past-50-mp',
          status: 'failed',
          error_code: 'source_too_large',
          error_message: expect.stringMatching(/x2 model's output of 64 megapixels; at most 50 megapixels/),
        },
        {
          external_id: 'doubled-past-8192',
          status: 'failed',
          error_code: 'source_too_large',
          error_message: expect.stringMatching(/10000 x 6000 image; results are at most 8192 pixels a side/),
        },
      ]);
      const ledger: Array<{ kind: string; credits: number }> = await t.dataSource.query(
        `SELECT kind, sum(credits)::int AS credits FROM credit_ledger WHERE job_id = ANY($1) ` +
          `GROUP BY kind ORDER BY kind`,
        [[sized.body.job.id, doubled.body.job.id]],
      );
      expect(ledger).toEqual([
        { kind: 'release', credits: 3 },
        { kind: 'reserve', credits: 3 },
      ]);
      expect(await creditTotals(t, account.accountId)).toEqual(before);
    },
    SLOW,
  );
});

describe('upscale on a deployment without the model, and over the time limit', () => {
  let server: ImageSourceServer;
  beforeAll(async () => {
    server = await ImageSourceServer.start();
    server.serve(
      '/photo.png',
      await fromFixture((await detailedProductPhotos(1200, 900))[0].image)
        .png()
        .toBuffer(),
      {
        contentType: 'image/png',
      },
    );
  }, SLOW);
  afterAll(() => server.stop());

  async function upscaleOnce(settings: Record<string, string>) {
    const t = await createTestApp(
      { ...GENEROUS_LIMITS, OUTBOUND_ALLOWLIST: '127.0.0.1', ...settings },
      { role: ProcessRole.All },
    );
    try {
      const account = await seedAccount(t, { credits: 10 });
      const res = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.liveKey))
        .set('Idempotency-Key', idempotencyKey())
        .send({
          input: [{ image_url: server.url('/photo.png'), external_id: 'photo' }],
          operations: { restorations: { upscale: true } },
        })
        .expect(202);
      await waitForJob(t, res.body.job.id, undefined, SLOW);
      const [result] = await t.dataSource.query(
        `SELECT status, error_code, error_message, attempts FROM job_results WHERE job_id = $1`,
        [res.body.job.id],
      );
      return { result, credits: await creditTotals(t, account.accountId) };
    } finally {
      await t.close();
    }
  }

  it(
    'fails the result without fetching its source, says why, and charges nothing',
    async () => {
      const { result, credits } = await upscaleOnce({ UPSCALER: 'none' });
      expect(result).toMatchObject({ status: 'failed', error_code: 'processing_failed' });
      expect(result.error_message).toMatch(/needs the super-resolution model, .*\(UPSCALER is none\)/);
      expect(server.requests('/photo.png')).toBe(0);
      expect(credits).toEqual({ balance: 10, ledgerSum: 10 });
    },
    SLOW,
  );

  it(
    'stops an enlargement that outlasts the time limit, as a timeout, and charges nothing',
    async () => {
      // 1200 x 900 doubled is 12 tiles of the x2 model: several seconds, well past 1 s.
      const { result, credits } = await upscaleOnce({ UPSCALER: 'local', RESULT_TIMEOUT_SECONDS: '1' });
      expect(result).toMatchObject({ status: 'failed', error_code: 'timeout', attempts: 1 });
      expect(credits).toEqual({ balance: 10, ledgerSum: 10 });
    },
    SLOW,
  );
});
