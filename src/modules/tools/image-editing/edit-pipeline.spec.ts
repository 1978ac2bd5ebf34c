import { INLINE_ENGINE } from '../../../engine/pixel-engine';
import sharp from 'sharp';
import {
  decodeRgba,
  fromFixture,
  gaussian,
  lumaStats,
  paint,
  percentileOf,
  productPhoto,
  random,
  type Rgb,
} from '../../../../test/support/image-fixtures';
import { NearestUpscaler, nearestEnlargement } from '../../../../test/support/nearest-upscaler';
import { litScene, photograph, reportedWarmCast, washedOutResponse } from '../../../../test/support/lit-scenes';
import { cardDeltaE, meanLuma, midtoneContrast, tonalRange } from '../../../../test/support/tone-figures';
import type { OutputFormat } from '../../../core/image/output-format';
import { inspectSource } from '../../../core/image/source-image';
import { runPipeline } from '../shared/tool-steps';
import { editContext } from '../../../../test/support/tool-contexts';
import { EDIT_PIPELINE, EDIT_STEPS } from './edit-pipeline';
import type { EditRequest } from './edit-request';
import { DEFAULT_FILE_CHOICES } from '../tool-runner';

const LIMITS = { maxPixels: 50_000_000, timeoutSeconds: 60, engine: INLINE_ENGINE };
const NO_DEPENDENCIES = { segmenter: null, upscaler: null };

const request = (overrides: Partial<EditRequest> = {}): EditRequest => ({
  resize: { upscale: false },
  cutout: null,
  light: false,
  color: false,
  polish: false,
  unsupported: null,
  ...overrides,
});

/** The result's choices besides its edit: its format (png unless given) and variant (the first unless given). */
interface Chosen {
  format?: OutputFormat;
  variant?: number;
}

async function edit(
  source: Buffer,
  overrides: Partial<EditRequest> = {},
  { format = 'png', variant = 0 }: Chosen = {},
) {
  const edited = await runPipeline(
    EDIT_PIPELINE,
    editContext(request(overrides), await inspectSource(source, LIMITS.maxPixels), NO_DEPENDENCIES, LIMITS, {
      variant,
      output: { format, file: DEFAULT_FILE_CHOICES },
    }),
  );
  return { ...edited, decoded: await decodeRgba(edited.image), metadata: await sharp(edited.image).metadata() };
}

/** 1600 x 900: red left band, green middle, blue right band. */
const bands = () =>
  fromFixture(paint(1600, 900, (x) => (x < 320 ? [220, 20, 20] : x >= 1280 ? [20, 20, 220] : [20, 200, 20])))
    .png()
    .toBuffer();

const near = (actual: number[], expected: number[], tolerance = 12) =>
  expected.every((value, i) => Math.abs(actual[i] - value) <= tolerance);

describe('EDIT_STEPS', () => {
  it('lists the edit in its order', () => {
    expect(EDIT_STEPS.map((step) => step.name)).toEqual([
      'decodeSource',
      'enlargeWithModel',
      'cropWindow',
      'segmentSubject',
      'correctPixels',
      'loadBackdrop',
      'replaceBackground',
      'encodeResult',
    ]);
  });

  describe('resizing', () => {
    it('contain: fits inside and pads to exactly the box, white for jpg', async () => {
      const { decoded, metadata } = await edit(
        await bands(),
        {
          resize: { width: 1200, height: 1200, fit: 'contain', upscale: false },
        },
        { format: 'jpg' },
      );
      expect([metadata.width, metadata.height, metadata.format]).toEqual([1200, 1200, 'jpeg']);
      // 1600 x 900 fitted: 1200 x 675, centred, so 262 rows of padding above and below.
      expect(near(decoded.pixel(600, 100), [255, 255, 255, 255], 2)).toBe(true);
      expect(near(decoded.pixel(600, 1100), [255, 255, 255, 255], 2)).toBe(true);
      expect(near(decoded.pixel(600, 600), [20, 200, 20, 255])).toBe(true);
      expect(near(decoded.pixel(100, 600), [220, 20, 20, 255])).toBe(true);
    });

    it('contain: pads with transparency for png and webp', async () => {
      for (const format of ['png', 'webp'] as const) {
        const { decoded, metadata } = await edit(
          await bands(),
          {
            resize: { width: 1000, height: 1000, fit: 'contain', upscale: false },
          },
          { format },
        );
        expect([metadata.width, metadata.height, metadata.hasAlpha]).toEqual([1000, 1000, true]);
        expect(decoded.pixel(500, 50)[3]).toBe(0);
        expect(decoded.pixel(500, 500)[3]).toBe(255);
      }
    });

    it('cover: fills the box and cuts the overflow centred', async () => {
      const { decoded, metadata } = await edit(await bands(), {
        resize: { width: 500, height: 500, fit: 'cover', upscale: false },
      });
      expect([metadata.width, metadata.height]).toEqual([500, 500]);
      // 1600 x 900 becomes 889 x 500; the centred 500 columns are the green middle.
      expect(near(decoded.pixel(2, 250), [20, 200, 20, 255])).toBe(true);
      expect(near(decoded.pixel(497, 250), [20, 200, 20, 255])).toBe(true);
    });

    it('crop: cuts the box at the source scale around the most interesting region', async () => {
      // Flat grey, and a 60 px checkerboard near the bottom-right corner.
      const source = paint(1200, 800, (x, y) =>
        x >= 1000 && x < 1060 && y >= 650 && y < 710
          ? ((x >> 2) + (y >> 2)) % 2 === 0
            ? [0, 0, 0]
            : [255, 255, 255]
          : [128, 128, 128],
      );
      const { decoded, metadata } = await edit(await fromFixture(source).png().toBuffer(), {
        resize: { width: 300, height: 200, fit: 'crop', upscale: false },
      });
      expect([metadata.width, metadata.height]).toEqual([300, 200]);
      // Not scaled: the checkerboard keeps its 4 px squares, so it holds pure black and pure white.
      const { values } = lumaStats(decoded, { left: 0, top: 0, width: 300, height: 200 });
      expect(Math.min(...values)).toBeLessThan(5);
      expect(Math.max(...values)).toBeGreaterThan(250);
      expect(values.filter((value) => value < 5).length).toBeGreaterThan(60 * 60 * 0.4);
    });

    it('crop: scales a source smaller than the box up just enough to cover it', async () => {
      const small = await fromFixture(paint(200, 100, () => [90, 120, 150]))
        .png()
        .toBuffer();
      const { metadata } = await edit(small, { resize: { width: 400, height: 400, fit: 'crop', upscale: false } });
      expect([metadata.width, metadata.height]).toEqual([400, 400]);
    });

    it('keeps the aspect ratio given only a width or only a height', async () => {
      expect((await edit(await bands(), { resize: { width: 800, upscale: false } })).metadata).toMatchObject({
        width: 800,
        height: 450,
      });
      expect((await edit(await bands(), { resize: { height: 300, upscale: false } })).metadata).toMatchObject({
        width: 533,
        height: 300,
      });
    });
  });

  it('applies the EXIF orientation and writes no metadata', async () => {
    // Stored 400 x 200 with red on the left; orientation 6 means "turn 90° clockwise to view".
    const stored = await fromFixture(paint(400, 200, (x) => (x < 200 ? [230, 10, 10] : [10, 10, 230])))
      .jpeg()
      .withMetadata({ orientation: 6, exif: { IFD0: { Copyright: 'fixture' } } })
      .toBuffer();
    const { decoded, metadata } = await edit(stored, {}, { format: 'jpg' });
    expect([metadata.width, metadata.height]).toEqual([200, 400]);
    expect(near(decoded.pixel(100, 50), [230, 10, 10, 255], 20)).toBe(true);
    expect(near(decoded.pixel(100, 350), [10, 10, 230, 255], 20)).toBe(true);
    expect(metadata.exif).toBeUndefined();
    expect(metadata.orientation).toBeUndefined();
    expect(metadata.space).toBe('srgb');
  });

  describe('adjustments', () => {
    it('light: lifts an underexposed photo visibly without clipping it', async () => {
      const noise = gaussian(random(7));
      const dark = paint(400, 300, (x, y) => {
        const base = 15 + (60 * x) / 400 + (20 * y) / 300 + noise() * 4;
        return [base * 1.05, base, base * 0.95];
      });
      const before = lumaStats(await decodeRgba(await fromFixture(dark).png().toBuffer()), {
        left: 0,
        top: 0,
        width: 400,
        height: 300,
      });
      const { decoded } = await edit(await fromFixture(dark).png().toBuffer(), { light: true });
      const after = lumaStats(decoded, { left: 0, top: 0, width: 400, height: 300 });
      expect(after.mean).toBeGreaterThan(before.mean + 40);
      // Highlights are not pushed into a wall of 255.
      expect(after.values.filter((value) => value >= 254.5).length / after.values.length).toBeLessThan(0.01);
    });

    it('light: lifts a dim, flat photo until its white reaches a light grey, keeping its black', async () => {
      // Greys 60..188: shadows dark enough to be in range, but nothing lighter than L* 76.
      const flat = paint(256, 200, (x) => [60 + x / 2, 60 + x / 2, 60 + x / 2]);
      const { decoded } = await edit(await fromFixture(flat).png().toBuffer(), { light: true });
      const { values } = lumaStats(decoded, { left: 0, top: 0, width: 256, height: 200 });
      expect(Math.abs(percentileOf(values, 0.01) - 61)).toBeLessThanOrEqual(2);
      // A white of 188 lies 15 % of the way from 200 down to 120: it is lifted 15 % of the way from 200 to 235.
      expect(percentileOf(values, 0.99)).toBeGreaterThan(200);
      expect(percentileOf(values, 0.99)).toBeLessThanOrEqual(206);
    });

    it('light: leaves a well-exposed photo as it is', async () => {
      const good = paint(256, 100, (x) => [x, x, x]);
      const source = await fromFixture(good).png().toBuffer();
      const { decoded } = await edit(source, { light: true });
      const original = await decodeRgba(source);
      let largest = 0;
      for (let i = 0; i < original.data.length; i++)
        largest = Math.max(largest, Math.abs(original.data[i] - decoded.data[i]));
      expect(largest).toBeLessThanOrEqual(1);
    });

    it('color: brings a neutral grey under a colour cast close to neutral', async () => {
      const cast = ([r, g, b]: Rgb): Rgb => [r * 1.18, g, b * 0.78];
      // A grey card in the middle of a scene of greys, all under the same warm cast, plus a blue mug.
      const scene = paint(300, 200, (x, y) =>
        x > 200 && y > 120
          ? [40, 60, 160]
          : cast(x > 100 && x < 200 && y > 50 && y < 150 ? [128, 128, 128] : [90 + x / 5, 90 + x / 5, 90 + x / 5]),
      );
      const { decoded } = await edit(await fromFixture(scene).png().toBuffer(), { color: true });
      const [r, g, b] = decoded.pixel(150, 100);
      expect(Math.max(r, g, b) - Math.min(r, g, b)).toBeLessThanOrEqual(8);
      // The mug stays blue.
      const [mr, mg, mb] = decoded.pixel(250, 170);
      expect(mb).toBeGreaterThan(mr + 60);
      expect(mb).toBeGreaterThan(mg + 40);
    });
  });

  describe('adjustments on the reported photos', () => {
    it('light: pulls a washed-out photo down (light wall, coloured product, brown table, all above 150)', async () => {
      const scene = litScene({ seed: 29, products: ['red'], productShare: 0.25, wall: [0.7, 0.68, 0.64] });
      const photo = photograph(scene, { seed: 29, encode: washedOutResponse(150, 0.8) });
      const source = await fromFixture(photo).png().toBuffer();
      const { decoded } = await edit(source, { light: true });
      const before = await decodeRgba(source);
      expect(meanLuma(before)).toBeGreaterThan(215);
      expect(meanLuma(before) - meanLuma(decoded)).toBeGreaterThan(20);
      expect(tonalRange(decoded)).toBeGreaterThan(1.5 * tonalRange(before));
      expect(midtoneContrast(decoded)).toBeGreaterThan(1.5 * midtoneContrast(before));
    });

    it('color: removes a warm cast with a red ball and a blue box in the picture', async () => {
      const { scene, light } = reportedWarmCast();
      const photo = photograph(scene, { seed: 29, light });
      const source = await fromFixture(photo).png().toBuffer();
      const card = scene.card as NonNullable<typeof scene.card>;
      const { decoded } = await edit(source, { color: true });
      expect(cardDeltaE(await decodeRgba(source), card).deltaE).toBeGreaterThan(10);
      expect(cardDeltaE(decoded, card).deltaE).toBeLessThanOrEqual(3);
    });
  });

  describe('restorations', () => {
    /** Flat grey with sensor noise on the left, a hard black/white edge on the right. */
    const noisyEdge = () => {
      const noise = gaussian(random(3));
      return fromFixture(
        paint(400, 200, (x) => {
          const value = x < 200 ? 128 : x < 300 ? 40 : 215;
          return [value + noise() * 12, value + noise() * 12, value + noise() * 12];
        }),
      )
        .png()
        .toBuffer();
    };
    /** Largest luma step between neighbours along row 100 around the edge at x = 300. */
    const edgeStep = (image: { data: Buffer; width: number }) => {
      const { values } = lumaStats(image, { left: 290, top: 100, width: 20, height: 1 });
      return Math.max(...values.slice(1).map((value, i) => Math.abs(value - values[i])));
    };

    it('polish: takes at least half the noise of flat areas out and keeps edges sharp', async () => {
      const source = await noisyEdge();
      // The source measured before the edit runs.
      const before = await decodeRgba(source);
      const flatBefore = lumaStats(before, { left: 20, top: 20, width: 160, height: 160 });
      const edgeBefore = edgeStep(before);
      const { decoded } = await edit(source, { polish: true });
      const flatAfter = lumaStats(decoded, { left: 20, top: 20, width: 160, height: 160 });
      expect(flatAfter.std).toBeLessThan(flatBefore.std * 0.5);
      expect(Math.abs(flatAfter.mean - flatBefore.mean)).toBeLessThan(3);
      expect(edgeStep(decoded)).toBeGreaterThanOrEqual(edgeBefore * 0.9);
    });

    it("upscale: doubles the size with the model, and does not sharpen the model's output", async () => {
      const photo = productPhoto(300, 200);
      const upscaler = new NearestUpscaler();
      const edited = await runPipeline(
        EDIT_PIPELINE,
        editContext(
          request({ resize: { upscale: true } }),
          await inspectSource(await fromFixture(photo).png().toBuffer(), LIMITS.maxPixels),
          { segmenter: null, upscaler },
          LIMITS,
        ),
      );
      expect(upscaler.calls).toEqual([{ scale: 2, width: 300, height: 200, channels: 3 }]);
      const decoded = await sharp(edited.image).raw().toBuffer({ resolveWithObject: true });
      expect([decoded.info.width, decoded.info.height]).toEqual([600, 400]);
      // Exactly the (stand-in) model's pixels: the sharpening of a resampled enlargement is not added on top.
      expect(decoded.data.equals(nearestEnlargement(photo, 2).data)).toBe(true);
    });
  });

  describe('output', () => {
    it.each([
      ['jpg', 'jpeg'],
      ['png', 'png'],
      ['webp', 'webp'],
    ] as const)('encodes %s in sRGB with a 256 px WebP thumbnail', async (format, sharpName) => {
      const { image, thumbnail, metadata } = await edit(
        await fromFixture(productPhoto(800, 600)).png().toBuffer(),
        {},
        { format },
      );
      expect([metadata.format, metadata.width, metadata.height, metadata.space]).toEqual([sharpName, 800, 600, 'srgb']);
      expect(metadata.exif).toBeUndefined();
      expect(image.length).toBeGreaterThan(1000);
      expect(await sharp(thumbnail).metadata()).toMatchObject({ format: 'webp', width: 256, height: 192 });
    });

    it('gives distinct variants where an operation has something to vary, identical ones where none has', async () => {
      const source = await fromFixture(productPhoto(400, 300)).png().toBuffer();
      const [first, second] = await Promise.all(
        [0, 1].map((variant) => edit(source, { light: true, color: true, polish: true }, { variant })),
      );
      expect(first.image.equals(second.image)).toBe(false);
      const plain = await Promise.all(
        [0, 1].map((variant) =>
          edit(source, { resize: { width: 200, height: 200, fit: 'contain', upscale: false } }, { variant }),
        ),
      );
      expect(plain[0].image.equals(plain[1].image)).toBe(true);
    });
  });
});
