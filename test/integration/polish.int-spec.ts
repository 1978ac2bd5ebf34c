import sharp from 'sharp';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { detailKept, edgeContrastKept, noiseRms, smoothRegion, type Pixels } from '../support/denoise-measures';
import { fromFixture } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { jobsClient } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { asJpeg, cleanPhotos, withGaussianNoise, type CleanPhoto } from '../support/polish-photos';
import { createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

/**
 * `restorations.polish` through the API with a live key and a real worker, judged on decoded
 * pixels against the clean photos the inputs were made from (test/support/polish-photos.ts,
 * measures in test/support/denoise-measures.ts). Results are PNG, so their encoding adds nothing.
 *
 * - Noise: Gaussian of σ 8 on each channel (seeded), and the clean photo as a JPEG of quality 30.
 *   The noise left on flat and smoothly shaded parts must be at most half the input's; every
 *   known edge must keep at least 90 % of its step.
 * - A clean photo (as PNG, and as a JPEG of quality 90, as sellers upload them) must not be
 *   blurred: every edge keeps 90 % of its step, texture 90 % of its detail, and flat parts change
 *   by at most one level (RMS).
 */

const SHARPEST_LOSS = 0.9;
const LEAST_REDUCTION = 0.5;
const CLEAN_CHANGE = 1;

type Input = 'gaussian σ 8' | 'JPEG q30' | 'clean PNG' | 'clean JPEG q90';
const NOISY: Input[] = ['gaussian σ 8', 'JPEG q30'];

interface Case {
  id: string;
  photo: CleanPhoto;
  input: Input;
  /** What the API is given, decoded: the noisy (or clean) photo. */
  given: Pixels;
}

const slug = (text: string) => text.replace(/[^a-z0-9]+/gi, '-').toLowerCase();

async function decoded(encoded: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(encoded).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

async function encodedInput(photo: CleanPhoto, input: Input, seed: number): Promise<[Buffer, string]> {
  switch (input) {
    case 'gaussian σ 8':
      return [
        await fromFixture(withGaussianNoise(photo.image, 8, seed))
          .png()
          .toBuffer(),
        'image/png',
      ];
    case 'JPEG q30':
      return [await asJpeg(photo.image, 30), 'image/jpeg'];
    case 'clean PNG':
      return [await fromFixture(photo.image).png().toBuffer(), 'image/png'];
    case 'clean JPEG q90':
      return [await asJpeg(photo.image, 90), 'image/jpeg'];
  }
}

describe('polish through the API and a live worker', () => {
  let t: TestApp;
  let server: ImageSourceServer;
  let account: SeededAccount;
  const cases: Case[] = [];

  beforeAll(async () => {
    server = await ImageSourceServer.start();
    const photos = await cleanPhotos();
    for (const [p, photo] of photos.entries()) {
      for (const input of ['gaussian σ 8', 'JPEG q30', 'clean PNG', 'clean JPEG q90'] as const) {
        const id = `${slug(photo.name)}-${slug(input)}`;
        const [bytes, contentType] = await encodedInput(photo, input, 100 + p);
        server.serve(`/${id}`, bytes, { contentType });
        cases.push({ id, photo, input, given: await decoded(bytes) });
      }
    }
    t = await createTestApp({ ...GENEROUS_LIMITS, OUTBOUND_ALLOWLIST: '127.0.0.1' }, { role: ProcessRole.All });
    account = await seedAccount(t, { credits: 100 });
  });
  afterAll(async () => {
    await t.close();
    await server.stop();
  });

  it('halves Gaussian noise and JPEG blocking, keeps edges and texture, and leaves clean photos crisp', async () => {
    const jobs = jobsClient(t, () => account.liveKey);
    const res = await jobs
      .create('/image/edit', {
        input: cases.map(({ id }) => ({ image_url: server.url(`/${id}`), external_id: id })),
        operations: { restorations: { polish: true } },
        output: { format: 'png' },
      })
      .expect(202);
    const results = new Map((await jobs.results(res.body.job.id)).map((result) => [result.external_id, result]));

    const rows: string[] = [];
    const measured: Array<Case & { before: number; after: number; edges: number; detail: number | null }> = [];
    for (const entry of cases) {
      const result = results.get(entry.id);
      expect({ id: entry.id, status: result?.status }).toEqual({ id: entry.id, status: 'completed' });
      const polished = await decoded(await jobs.bytes(result?.result_url as string));
      const clean = entry.photo.image;
      const region = smoothRegion(clean);
      const before = noiseRms(entry.given, clean, region);
      const after = noiseRms(polished, clean, region);
      const edges = Math.min(...edgeContrastKept(polished, clean, entry.photo.edges).values());
      const detail = entry.photo.texture ? detailKept(polished, clean, entry.photo.texture) : null;
      measured.push({ ...entry, before, after, edges, detail });
      const reduction = NOISY.includes(entry.input) ? `${Math.round(100 * (1 - after / before))} %` : '–';
      rows.push(
        `| ${entry.photo.name} | ${entry.input} | ${before.toFixed(2)} | ${after.toFixed(2)} | ${reduction} | ` +
          `${edges.toFixed(3)} | ${detail === null ? '–' : detail.toFixed(3)} |`,
      );
    }
    console.log(
      [
        'polish: noise = luma RMS against the clean photo on its flat and smoothly shaded parts;',
        'edge contrast = the worst known edge step kept; texture detail kept (woven cushion)',
        '| photo | input | noise before | noise after | reduction (≥ 50 %) | edges kept (≥ 0.90) | texture detail |',
        '|---|---|---|---|---|---|---|',
        ...rows,
      ].join('\n'),
    );

    for (const { id, input, before, after, edges, detail } of measured) {
      expect({ id, edges: edges >= SHARPEST_LOSS }).toEqual({ id, edges: true });
      if (NOISY.includes(input)) {
        expect({ id, halved: after <= (1 - LEAST_REDUCTION) * before }).toEqual({ id, halved: true });
      } else {
        expect({ id, changed: after, small: after <= CLEAN_CHANGE }).toEqual({ id, changed: after, small: true });
        if (detail !== null) expect({ id, detail: detail >= SHARPEST_LOSS }).toEqual({ id, detail: true });
      }
    }
  });
});
