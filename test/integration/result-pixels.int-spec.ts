import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { FAKE_IMAGE_PROVIDER_KEY, FakeImageProvider } from '../support/fake-image-provider';
import { generativeClient } from '../support/generative';
import { fromFixture, productPhoto } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { GENEROUS_LIMITS } from '../support/limits';
import { productShot } from '../support/product-shots';
import { createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

/**
 * The pixels every tool gives for a fixed set of requests, as fingerprints (format, size,
 * channels and a hash of the decoded pixels of the image and its thumbnail), kept in a jest
 * snapshot. A change to how a tool is structured must leave every fingerprint as it was; a change
 * that means to alter a tool's output updates the snapshot on purpose (`jest -u`), in review.
 */

interface Case {
  name: string;
  path: string;
  body: (sources: Sources) => object;
}

interface Sources {
  shot: string;
  photo: string;
}

async function fingerprint(encoded: Buffer): Promise<string> {
  const { data, info } = await sharp(encoded).raw().toBuffer({ resolveWithObject: true });
  const hash = createHash('sha256').update(data).digest('hex').slice(0, 24);
  return `${info.width}x${info.height}x${info.channels} ${hash}`;
}

const LOCAL_CASES: Case[] = [
  {
    name: 'edit: contain resize to png',
    path: '/image/edit',
    body: (s) => ({ input: [{ image_url: s.photo }], operations: { resizing: { width: 320, height: 320 } } }),
  },
  {
    name: 'edit: crop, two variants',
    path: '/image/edit',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      operations: { resizing: { width: 300, height: 300, fit: 'crop' } },
      output: { number_of_images: 2, format: 'jpg' },
    }),
  },
  {
    name: 'edit: light, colour, polish, upscale to webp',
    path: '/image/edit',
    body: (s) => ({
      input: [{ image_url: s.photo }],
      operations: { adjustments: { light: true, color: true }, restorations: { polish: true, upscale: true } },
      output: { format: 'webp' },
    }),
  },
  {
    name: 'edit: white background with a soft shadow, contained',
    path: '/image/edit',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      operations: { background: { type: 'white', shadow: 'soft' }, resizing: { width: 500, height: 400 } },
      output: { format: 'jpg' },
    }),
  },
  {
    name: 'edit: shadow on the original background',
    path: '/image/edit',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      operations: { background: { type: 'original', shadow: 'natural' } },
    }),
  },
  { name: 'cut-out: transparent', path: '/remove-background', body: (s) => ({ input: [{ image_url: s.shot }] }) },
  {
    name: 'cut-out: colour, natural shadow, cropped, two variants',
    path: '/remove-background',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      background: { type: 'color', color: '#204060', shadow: 'natural' },
      output: { crop_to_subject: true, margin_percent: 10, number_of_images: 2, format: 'webp' },
    }),
  },
  {
    name: 'cut-out: mask',
    path: '/remove-background',
    body: (s) => ({ input: [{ image_url: s.shot }], output: { channels: 'alpha' } }),
  },
  {
    name: 'cut-out: region hint',
    path: '/remove-background',
    body: (s) => ({
      input: [
        {
          image_url: s.shot,
          subject_hints: {
            region: { left: 0.15, top: 0.1, right: 0.85, bottom: 0.95 },
            keep_points: [{ x: 0.5, y: 0.55 }],
          },
        },
      ],
    }),
  },
  {
    name: 'product photo: studio packshot',
    path: '/product-photo-jobs',
    body: (s) => ({ images: [{ source_url: s.shot, external_id: 'a' }], operation: 'studio_packshot' }),
  },
  {
    name: 'product photo: marketplace clean, eBay',
    path: '/product-photo-jobs',
    body: (s) => ({ images: [{ source_url: s.shot, external_id: 'a' }], preset: 'ebay_listing_image' }),
  },
  {
    name: 'product photo: enhance, balanced',
    path: '/product-photo-jobs',
    body: (s) => ({ images: [{ source_url: s.photo, external_id: 'a' }], preservation_level: 'balanced' }),
  },
  {
    name: 'product photo: transparent cut-out preset',
    path: '/product-photo-jobs',
    body: (s) => ({ images: [{ source_url: s.shot, external_id: 'a' }], preset: 'transparent_cutout' }),
  },
  {
    name: 'product photo: lifestyle on a studio backdrop',
    path: '/product-photo-jobs',
    body: (s) => ({ images: [{ source_url: s.shot, external_id: 'a' }], operation: 'natural_lifestyle' }),
  },
  {
    name: 'scene: studio backdrops at 16:9, two variants',
    path: '/scene/create',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      scene: { prompt: 'On a kitchen counter', aspect_ratio: '16:9', shadow: 'soft' },
      output: { number_of_images: 2 },
    }),
  },
  {
    name: 'ad: instagram feed with copy',
    path: '/ad/create',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      creative: {
        platform: 'instagram_feed',
        headline: 'Brew better',
        call_to_action: 'Shop now',
        brand_color: '#aa3300',
      },
      output: { format: 'jpg' },
    }),
  },
  {
    name: 'ad: story, bold, two variants',
    path: '/ad/create',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      creative: { platform: 'instagram_story', style: 'bold', goal: 'awareness', headline: 'New season' },
      output: { number_of_images: 2 },
    }),
  },
  {
    name: 'product photo: premium ad without a provider',
    path: '/product-photo-jobs',
    body: (s) => ({ images: [{ source_url: s.shot, external_id: 'a' }], operation: 'premium_ad' }),
  },
];

const PROVIDER_CASES: Case[] = [
  {
    name: 'ai edit: strict',
    path: '/image/ai-edit',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      options: { prompt: 'On marble', preservation_level: 'strict', aspect_ratio: '4:5' },
    }),
  },
  {
    name: 'ai edit: creative',
    path: '/image/ai-edit',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      options: { prompt: 'In a forest', preservation_level: 'creative' },
    }),
  },
  {
    name: 'generation: from a prompt',
    path: '/image/generate',
    body: () => ({ prompt: 'A red bicycle', options: { aspect_ratio: '3:2' } }),
  },
  {
    name: 'generation: from a reference',
    path: '/image/generate',
    body: (s) => ({ prompt: 'The same mug in blue', input: [{ image_url: s.shot }] }),
  },
  {
    name: 'scene: painted by the provider',
    path: '/scene/create',
    body: (s) => ({ input: [{ image_url: s.shot }], scene: { prompt: 'On a beach', shadow: 'natural' } }),
  },
  {
    name: 'product photo: premium ad with a painted backdrop',
    path: '/product-photo-jobs',
    body: (s) => ({
      images: [{ source_url: s.shot, external_id: 'a' }],
      operation: 'premium_ad',
      instructions: 'Dark velvet',
    }),
  },
];

describe('result pixels for a fixed set of requests', () => {
  let server: ImageSourceServer;
  let sources: Sources;

  beforeAll(async () => {
    server = await ImageSourceServer.start();
    const shot = await productShot('mug', 'tabletop', { width: 640, height: 480 });
    server.serve('/shot.jpg', shot.jpeg, { contentType: 'image/jpeg' });
    server.serve('/photo.png', await fromFixture(productPhoto(400, 300)).png().toBuffer(), {
      contentType: 'image/png',
    });
    sources = { shot: server.url('/shot.jpg'), photo: server.url('/photo.png') };
  });
  afterAll(async () => {
    await server?.stop();
  });

  /**
   * Runs the cases one job at a time (so a provider answering in turn paints the same images) and fingerprints every
   * image.
   */
  async function fingerprints(t: TestApp, account: SeededAccount, cases: Case[]): Promise<Record<string, string[]>> {
    const client = generativeClient(t, () => account);
    const prints: Record<string, string[]> = {};
    for (const testCase of cases) {
      const res = await client.create(testCase.path, testCase.body(sources));
      expect({ name: testCase.name, status: res.status }).toEqual({ name: testCase.name, status: 202 });
      const results = await client.results(res.body.job.id);
      prints[testCase.name] = await Promise.all(
        results.map(async (result) => {
          if (result.status !== 'completed') return `${result.status} ${result.error_code}`;
          const [image, thumbnail] = await Promise.all([
            client.bytes(result.result_url as string),
            client.bytes(result.thumbnail_url as string),
          ]);
          const format = (await sharp(image).metadata()).format;
          return `${format} ${await fingerprint(image)} thumbnail ${await fingerprint(thumbnail)}`;
        }),
      );
    }
    return prints;
  }

  const settings = {
    ...GENEROUS_LIMITS,
    SEGMENTER: 'local',
    OUTBOUND_ALLOWLIST: '127.0.0.1',
    CAPACITY_ACCOUNT_SHARE: '1',
    RESULT_TIMEOUT_SECONDS: '300',
  };

  it('are the same for edits, cut-outs, product photos, studio scenes and ads', async () => {
    const t = await createTestApp({ ...settings, STUDIO_BACKDROPS: 'true' }, { role: ProcessRole.All });
    try {
      const account = await seedAccount(t, { credits: 1000 });
      expect(await fingerprints(t, account, LOCAL_CASES)).toMatchSnapshot();
    } finally {
      await t.close();
    }
  }, 600_000);

  it('are the same for AI edits, generation, painted scenes and premium ads with a provider', async () => {
    const provider = await FakeImageProvider.start();
    const t = await createTestApp(
      {
        ...settings,
        IMAGE_PROVIDER: 'openai',
        IMAGE_PROVIDER_BASE_URL: provider.url,
        IMAGE_PROVIDER_API_KEY: FAKE_IMAGE_PROVIDER_KEY,
      },
      { role: ProcessRole.All },
    );
    try {
      const account = await seedAccount(t, { credits: 1000 });
      expect(await fingerprints(t, account, PROVIDER_CASES)).toMatchSnapshot();
    } finally {
      await t.close();
      await provider.stop();
    }
  }, 600_000);
});
