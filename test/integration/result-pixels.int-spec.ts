import { join } from 'node:path';
import sharp from 'sharp';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { FAKE_IMAGE_PROVIDER_KEY, FakeImageProvider } from '../support/fake-image-provider';
import { jobsClient } from '../support/jobs';
import { fromFixture, productPhoto } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { GENEROUS_LIMITS } from '../support/limits';
import { productShot } from '../support/product-shots';
import {
  decodePixels,
  outsideTolerance,
  pixelDifference,
  pixelHash,
  readReference,
  reduced,
  shapeOf,
  writeReference,
  type Pixels,
  type Tolerance,
} from '../support/reference-pixels';
import { createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

/**
 * The pixels every tool gives for a fixed set of requests, kept in a jest snapshot: each result's
 * format, and for the image and its thumbnail their width, height and channels, always exactly,
 * and their decoded pixels, compared in one of two ways that each case declares with its reason:
 *
 * - `exact`: a hash of the pixels. No step has float results that depend on the CPU: libvips's
 *   SIMD paths are integer fixed-point (the same on every x86 target), the service's own pixel
 *   code is JS arithmetic in a fixed order (V8's Math functions are its own code, not the CPU's),
 *   and the fake provider paints the same images.
 * - `tolerant`: the pixels pass through an onnxruntime model (ISNet segmentation, the ESRGAN
 *   upscaler), whose float kernels differ by CPU (AVX2, AVX-512, ...): an AMD EPYC gave another
 *   upscaled image, the same one run after run. These are compared with reference pixels in a
 *   lossless PNG per image in __snapshots__/result-pixels/, within TOLERANCE. An image larger than
 *   REFERENCE_SIDE is compared reduced by the smallest whole factor that brings it within (each
 *   reference sample the mean of a block of factor x factor), which keeps the PNGs small enough to
 *   review; thumbnails, at most 256 px, are compared whole.
 *
 * A change to how a tool is structured (moving pixel work to worker threads, say) must leave every
 * result as it was; a change that means to alter a tool's output updates the snapshot and the
 * reference PNGs on purpose (`jest -u`), in review. A missing reference is written as jest writes a
 * new snapshot (not under `--ci`); `-u` rewrites those whose pixels are not the same.
 */

/** How a case's pixels are compared: by hash, or with its reference PNGs within TOLERANCE. */
type Comparison = 'exact' | 'tolerant';

/** Longest side of a reference PNG. */
const REFERENCE_SIDE = 512;

/**
 * How far a tolerant image may stray from its reference, by the format of its file (thumbnails are
 * WebP), on every channel (alpha included), at the size it is compared. Measured by running every
 * case with each model's float outputs multiplied by 1 + e, e uniform in -1e-6..1e-6 (which moves
 * what the EPYC moved: the upscaled image, nothing segmented) and in -1e-4..1e-4 (which moves every
 * result of both models). The worst seen at 1e-4, as largest sample difference, PSNR, largest
 * shift of a channel's mean, and of a BLOCK-px block's mean:
 *
 * - PNG, lossless, moves where the model's output rounds otherwise: 2 levels, 85.8 dB, 0.00, 0.01;
 * - JPEG spreads that over its 8 px blocks: 5 levels, 72.7 dB, 0.00, 0.11;
 * - WebP (lossy) answers a changed input with other choices of its own across the image:
 *   32 levels, 41.9 dB, 0.07, 4.2 (at 1e-6: 19 levels, 53.6 dB, 0.00, 0.8).
 *
 * The bounds leave room above that, and a result moved on purpose by a few levels still fails: a
 * channel's mean shifted by more than 0.1 level (0.25 in WebP), or one block's by 1, 2 or 8 levels.
 */
const TOLERANCE: Record<'png' | 'jpeg' | 'webp', Tolerance> = {
  png: { maxLevels: 4, minPsnr: 70, maxMeanShift: 0.1, maxBlockShift: 1 },
  jpeg: { maxLevels: 12, minPsnr: 60, maxMeanShift: 0.1, maxBlockShift: 2 },
  webp: { maxLevels: 48, minPsnr: 38, maxMeanShift: 0.25, maxBlockShift: 8 },
};

/** Where the reference PNGs are kept, beside the jest snapshot. */
const REFERENCES = join(__dirname, '__snapshots__', 'result-pixels');

interface Case {
  name: string;
  compare: Comparison;
  /** Why the case is compared so: what its pixels pass through. */
  why: string;
  path: string;
  body: (sources: Sources) => object;
}

interface Sources {
  shot: string;
  photo: string;
}

/** A case's name as a file name: lower case, words joined by hyphens. */
const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** How this jest run writes snapshots: `all` under -u, `new` (the missing ones) by default, `none` under --ci. */
function snapshotUpdate(): 'all' | 'new' | 'none' {
  return (expect.getState().snapshotState as { _updateSnapshot: 'all' | 'new' | 'none' })._updateSnapshot;
}

/** A result's file, decoded. */
interface Decoded {
  format: string;
  pixels: Pixels;
}

async function decoded(encoded: Buffer): Promise<Decoded> {
  const [{ format }, pixels] = await Promise.all([sharp(encoded).metadata(), decodePixels(encoded)]);
  return { format, pixels };
}

/**
 * What the snapshot records of one image: its size and channels, and either the hash of its pixels
 * (`exact`) or the reference PNG `file` they are compared with and at what reduction (`tolerant`).
 * A tolerant image's reference is written where it is missing, or under -u where it differs at
 * all; otherwise what lies outside TOLERANCE is added to `mismatches`.
 */
async function recorded(
  { format, pixels }: Decoded,
  compare: Comparison,
  file: string,
  mismatches: string[],
): Promise<string> {
  if (compare === 'exact') return `${shapeOf(pixels)} ${pixelHash(pixels)}`;
  const factor = Math.ceil(Math.max(pixels.width, pixels.height) / REFERENCE_SIDE);
  const compared = reduced(pixels, factor);
  const path = join(REFERENCES, file);
  const reference = await readReference(path);
  const same = reference !== null && shapeOf(reference) === shapeOf(compared) && reference.data.equals(compared.data);
  const update = snapshotUpdate();
  const tolerance = TOLERANCE[format as keyof typeof TOLERANCE];
  if (!tolerance) {
    mismatches.push(`${file}: no tolerance for ${format}`);
  } else if (!same && (update === 'all' || (update === 'new' && reference === null))) {
    await writeReference(path, compared);
  } else if (reference === null) {
    mismatches.push(`${file}: no reference PNG (jest writes it when run without --ci)`);
  } else if (shapeOf(reference) !== shapeOf(compared)) {
    mismatches.push(`${file}: ${shapeOf(compared)} to compare, the reference is ${shapeOf(reference)}`);
  } else {
    const outside = outsideTolerance(pixelDifference(reference, compared), tolerance);
    if (outside) mismatches.push(`${file} (${format}): ${outside}`);
  }
  return `${shapeOf(pixels)} ~ ${file}${factor > 1 ? ` at 1/${factor}` : ''}`;
}

const LOCAL_CASES: Case[] = [
  {
    name: 'edit: contain resize to png',
    compare: 'exact',
    why: "decode, Lanczos resize and padding in libvips' integer paths; no model",
    path: '/image/edit',
    body: (s) => ({ input: [{ image_url: s.photo }], operations: { resizing: { width: 320, height: 320 } } }),
  },
  {
    name: 'edit: crop, two variants',
    compare: 'exact',
    why: "resize, the window picked in JS and the variants' tone curves; no model",
    path: '/image/edit',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      operations: { resizing: { width: 300, height: 300, fit: 'crop' } },
      output: { number_of_images: 2, format: 'jpg' },
    }),
  },
  {
    name: 'edit: light, colour, polish, upscale to webp',
    compare: 'tolerant',
    why: 'the ESRGAN model enlarges the photo x2',
    path: '/image/edit',
    body: (s) => ({
      input: [{ image_url: s.photo }],
      operations: { adjustments: { light: true, color: true }, restorations: { polish: true, upscale: true } },
      output: { format: 'webp' },
    }),
  },
  {
    name: 'edit: white background with a soft shadow, contained',
    compare: 'tolerant',
    why: "the subject's mask is the ISNet model's",
    path: '/image/edit',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      operations: { background: { type: 'white', shadow: 'soft' }, resizing: { width: 500, height: 400 } },
      output: { format: 'jpg' },
    }),
  },
  {
    name: 'edit: shadow on the original background',
    compare: 'tolerant',
    why: "the shadow is cast from the ISNet model's mask",
    path: '/image/edit',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      operations: { background: { type: 'original', shadow: 'natural' } },
    }),
  },
  {
    name: 'cut-out: transparent',
    compare: 'tolerant',
    why: "the cut-out is the ISNet model's",
    path: '/remove-background',
    body: (s) => ({ input: [{ image_url: s.shot }] }),
  },
  {
    name: 'cut-out: colour, natural shadow, cropped, two variants',
    compare: 'tolerant',
    why: "the cut-out is the ISNet model's",
    path: '/remove-background',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      background: { type: 'color', color: '#204060', shadow: 'natural' },
      output: { crop_to_subject: true, margin_percent: 10, number_of_images: 2, format: 'webp' },
    }),
  },
  {
    name: 'cut-out: mask',
    compare: 'tolerant',
    why: "the mask is the ISNet model's",
    path: '/remove-background',
    body: (s) => ({ input: [{ image_url: s.shot }], output: { channels: 'alpha' } }),
  },
  {
    name: 'cut-out: region hint',
    compare: 'tolerant',
    why: "the cut-out is the ISNet model's, steered by the hint",
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
    compare: 'tolerant',
    why: "the cut-out is the ISNet model's",
    path: '/product-photo-jobs',
    body: (s) => ({ images: [{ source_url: s.shot, external_id: 'a' }], operation: 'studio_packshot' }),
  },
  {
    name: 'product photo: marketplace clean, eBay',
    compare: 'tolerant',
    why: "the cut-out is the ISNet model's",
    path: '/product-photo-jobs',
    body: (s) => ({ images: [{ source_url: s.shot, external_id: 'a' }], preset: 'ebay_listing_image' }),
  },
  {
    name: 'product photo: enhance, balanced',
    compare: 'exact',
    why: 'relight, colour, polish and sharpening in JS and libvips, background kept; no model',
    path: '/product-photo-jobs',
    body: (s) => ({ images: [{ source_url: s.photo, external_id: 'a' }], preservation_level: 'balanced' }),
  },
  {
    name: 'product photo: transparent cut-out preset',
    compare: 'tolerant',
    why: "the cut-out is the ISNet model's",
    path: '/product-photo-jobs',
    body: (s) => ({ images: [{ source_url: s.shot, external_id: 'a' }], preset: 'transparent_cutout' }),
  },
  {
    name: 'product photo: lifestyle on a studio backdrop',
    compare: 'tolerant',
    why: "the product is the ISNet model's cut-out",
    path: '/product-photo-jobs',
    body: (s) => ({ images: [{ source_url: s.shot, external_id: 'a' }], operation: 'natural_lifestyle' }),
  },
  {
    name: 'scene: studio backdrops at 16:9, two variants',
    compare: 'tolerant',
    why: "the product is the ISNet model's cut-out",
    path: '/scene/create',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      scene: { prompt: 'On a kitchen counter', aspect_ratio: '16:9', shadow: 'soft' },
      output: { number_of_images: 2 },
    }),
  },
  {
    name: 'ad: instagram feed with copy',
    compare: 'tolerant',
    why: "the product is the ISNet model's cut-out",
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
    compare: 'tolerant',
    why: "the product is the ISNet model's cut-out",
    path: '/ad/create',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      creative: { platform: 'instagram_story', style: 'bold', goal: 'awareness', headline: 'New season' },
      output: { number_of_images: 2 },
    }),
  },
  {
    name: 'product photo: premium ad without a provider',
    compare: 'tolerant',
    why: "the product is the ISNet model's cut-out",
    path: '/product-photo-jobs',
    body: (s) => ({ images: [{ source_url: s.shot, external_id: 'a' }], operation: 'premium_ad' }),
  },
];

const PROVIDER_CASES: Case[] = [
  {
    name: 'ai edit: strict',
    compare: 'tolerant',
    why: "the product's own pixels are kept under the ISNet model's mask",
    path: '/image/ai-edit',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      options: { prompt: 'On marble', preservation_level: 'strict', aspect_ratio: '4:5' },
    }),
  },
  {
    name: 'ai edit: creative',
    compare: 'exact',
    why: "the provider's painting, resized: `creative` keeps nothing, so nothing is segmented",
    path: '/image/ai-edit',
    body: (s) => ({
      input: [{ image_url: s.shot }],
      options: { prompt: 'In a forest', preservation_level: 'creative' },
    }),
  },
  {
    name: 'generation: from a prompt',
    compare: 'exact',
    why: "the provider's painting, cut to the ratio; no model",
    path: '/image/generate',
    body: () => ({ prompt: 'A red bicycle', options: { aspect_ratio: '3:2' } }),
  },
  {
    name: 'generation: from a reference',
    compare: 'exact',
    why: "the provider's painting; the reference is only sent to it; no model",
    path: '/image/generate',
    body: (s) => ({ prompt: 'The same mug in blue', input: [{ image_url: s.shot }] }),
  },
  {
    name: 'scene: painted by the provider',
    compare: 'tolerant',
    why: "the product is the ISNet model's cut-out",
    path: '/scene/create',
    body: (s) => ({ input: [{ image_url: s.shot }], scene: { prompt: 'On a beach', shadow: 'natural' } }),
  },
  {
    name: 'product photo: premium ad with a painted backdrop',
    compare: 'tolerant',
    why: "the product is the ISNet model's cut-out",
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
   * Runs the cases one job at a time (so a provider answering in turn paints the same images) and records every image
   * and thumbnail as its case compares them; what a tolerant one does not match is added to `mismatches`.
   */
  async function fingerprints(
    t: TestApp,
    account: SeededAccount,
    cases: Case[],
    mismatches: string[],
  ): Promise<Record<string, { compare: Comparison; results: string[] }>> {
    const client = jobsClient(t, () => account.liveKey);
    const prints: Record<string, { compare: Comparison; results: string[] }> = {};
    for (const testCase of cases) {
      const res = await client.create(testCase.path, testCase.body(sources));
      expect({ name: testCase.name, status: res.status }).toEqual({ name: testCase.name, status: 202 });
      const results = await client.results(res.body.job.id);
      const recordedResults = await Promise.all(
        results.map(async (result, index) => {
          if (result.status !== 'completed') return `${result.status} ${result.error_code}`;
          const [image, thumbnail] = await Promise.all([
            client.bytes(result.result_url as string),
            client.bytes(result.thumbnail_url as string),
          ]);
          const [imageFile, thumbnailFile] = await Promise.all([decoded(image), decoded(thumbnail)]);
          const file = `${slug(testCase.name)}-${index + 1}`;
          const [imagePrint, thumbnailPrint] = await Promise.all([
            recorded(imageFile, testCase.compare, `${file}.png`, mismatches),
            recorded(thumbnailFile, testCase.compare, `${file}-thumbnail.png`, mismatches),
          ]);
          return `${imageFile.format} ${imagePrint} thumbnail ${thumbnailPrint}`;
        }),
      );
      prints[testCase.name] = { compare: testCase.compare, results: recordedResults };
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
      const mismatches: string[] = [];
      expect(await fingerprints(t, account, LOCAL_CASES, mismatches)).toMatchSnapshot();
      expect(mismatches).toEqual([]);
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
      const mismatches: string[] = [];
      expect(await fingerprints(t, account, PROVIDER_CASES, mismatches)).toMatchSnapshot();
      expect(mismatches).toEqual([]);
    } finally {
      await t.close();
      await provider.stop();
    }
  }, 600_000);
});
