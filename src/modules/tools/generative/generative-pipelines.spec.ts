import { INLINE_ENGINE } from '../../../engine/pixel-engine';
import { preservedSubject } from '../../../engine/preserved-subject';
import sharp from 'sharp';
import { fileStatement, photographersJpeg } from '../../../../test/support/photo-metadata';
import type { ImageProvider } from '../../../core/image-provider/image-provider';
import type { AlphaMask } from '../../../engine/mask/alpha-mask';
import type { RawImage } from '../../../engine/raw-image';
import { renderStudioBackdrop, STUDIO_BACKDROPS, studioBackdropFor } from '../../../engine/compose/studio-backdrop';
import { inspectSource } from '../../../core/image/source-image';
import { photoArea, photoOnCanvas, placeOnCanvas, providerInputs } from './ai-edit-pipeline';
import { DEFAULT_FILE_CHOICES } from '../tool-runner';
import { runPipeline } from '../shared/tool-steps';
import { toolContext } from '../../../../test/support/tool-contexts';
import { GENERATION_PIPELINE } from './generation-pipeline';
import { composeScene, type BackdropPainter } from './scene-pipeline';

const LIMITS = {
  maxPixels: 50_000_000,
  timeoutSeconds: 30,
  engine: INLINE_ENGINE,
  signal: new AbortController().signal,
};

/** A 200 x 120 photo: an orange square at x 70..129, y 30..89 on blue-grey, and its exact mask. */
function photoWithSquare(): { photo: RawImage; alpha: AlphaMask } {
  const width = 200;
  const height = 120;
  const data = Buffer.alloc(width * height * 3);
  const mask = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inside = x >= 70 && x < 130 && y >= 30 && y < 90;
      data.set(inside ? [240, 140, 30] : [90, 100, 120], (y * width + x) * 3);
      mask[y * width + x] = inside ? 255 : 0;
    }
  }
  return { photo: { data, width, height, channels: 3 }, alpha: { data: mask, width, height } };
}

/** What a provider that repaints the whole image returns: flat green at the canvas size. */
const repainted = (width: number, height: number): RawImage => ({
  data: Buffer.alloc(width * height * 3, Buffer.from([20, 200, 60])),
  width,
  height,
  channels: 3,
});

const pixel = (image: RawImage, x: number, y: number) => [
  ...image.data.subarray((y * image.width + x) * image.channels, (y * image.width + x) * image.channels + 3),
];

describe('AI edit pipeline', () => {
  it(
    "keeps the subject's own pixels under strict preservation " +
      'when the provider repaints everything, at the exact ratio',
    async () => {
      const { photo, alpha } = photoWithSquare();
      const placement = placeOnCanvas(photo, { left: 70, top: 30, width: 60, height: 60 }, { width: 1, height: 1 });
      expect(placement.canvas).toEqual({ width: 200, height: 200 });
      const placed = await photoOnCanvas(photo, alpha, placement);
      const result = await preservedSubject(placed, repainted(200, 200), 'strict');
      expect(result.width / result.height).toBe(1);
      let kept = 0;
      for (let y = 0; y < 200; y++) {
        for (let x = 0; x < 200; x++) {
          const inside = x >= 70 && x < 130 && y >= placement.top + 30 && y < placement.top + 90;
          const [r, g, b] = pixel(result, x, y);
          if (inside) {
            expect(Math.abs(r - 240) + Math.abs(g - 140) + Math.abs(b - 30)).toBeLessThanOrEqual(6);
            kept++;
          } else {
            expect([r, g, b]).toEqual([20, 200, 60]);
          }
        }
      }
      expect(kept).toBe(3600);
    },
  );

  it('lets balanced blend the edge band and creative repaint the subject', async () => {
    const { photo, alpha } = photoWithSquare();
    const placement = placeOnCanvas(photo, null, null);
    const placed = await photoOnCanvas(photo, alpha, placement);
    const balanced = await preservedSubject(placed, repainted(200, 120), 'balanced');
    expect(pixel(balanced, 100, 60)).toEqual([240, 140, 30]);
    expect(pixel(balanced, 70, 60)).not.toEqual([240, 140, 30]);
    const creative = await preservedSubject(placed, repainted(200, 120), 'creative');
    expect(pixel(creative, 100, 60)).toEqual([20, 200, 60]);
  });

  it('asks the provider to keep the subject, and to paint the canvas extension, except under creative', async () => {
    const { photo, alpha } = photoWithSquare();
    const placement = placeOnCanvas(photo, { left: 70, top: 30, width: 60, height: 60 }, { width: 1, height: 1 });
    const placed = await photoOnCanvas(photo, alpha, placement);
    const area = photoArea(placement, photo);
    const strict = providerInputs(placed, area, 'strict');
    const at = (mask: AlphaMask, x: number, y: number) => mask.data[y * mask.width + x];
    expect(at(strict.keep, 100, placement.top + 60)).toBe(255);
    expect(at(strict.keep, 10, placement.top + 10)).toBe(0);
    // The extension above the photo is transparent in what the provider is sent.
    expect(strict.image.data[(5 * 200 + 100) * 4 + 3]).toBe(0);
    expect(strict.image.data[((placement.top + 5) * 200 + 100) * 4 + 3]).toBe(255);
    expect(Math.max(...providerInputs(placed, area, 'creative').keep.data)).toBe(0);
  });
});

describe('scene pipeline', () => {
  it('stands the subject, fully inside the canvas, on the floor line over the painted backdrop', async () => {
    const { photo, alpha } = photoWithSquare();
    const painter: BackdropPainter = async (_placed, size) => repainted(size.width, size.height);
    const canvas = { width: 400, height: 300 };
    const plan = { canvas, shadow: { kind: 'none' as const, spread: 1, lean: 0 }, floorLine: 0.86, variant: 0 };
    const scene = await composeScene(photo, alpha, plan, painter, LIMITS);
    expect({ width: scene.width, height: scene.height }).toEqual(canvas);
    let top = canvas.height;
    let bottom = -1;
    let left = canvas.width;
    let right = -1;
    for (let y = 0; y < canvas.height; y++) {
      for (let x = 0; x < canvas.width; x++) {
        const [r, g, b] = pixel(scene, x, y);
        if (Math.abs(r - 240) + Math.abs(g - 140) + Math.abs(b - 30) < 30) {
          top = Math.min(top, y);
          bottom = Math.max(bottom, y);
          left = Math.min(left, x);
          right = Math.max(right, x);
        }
      }
    }
    // Fills 62 % of the tighter side (the height here), centred, its base on the floor line.
    expect(bottom - top + 1).toBeGreaterThanOrEqual(182);
    expect(bottom - top + 1).toBeLessThanOrEqual(190);
    expect(Math.abs(bottom - 0.86 * canvas.height)).toBeLessThanOrEqual(4);
    expect(Math.abs((left + right) / 2 - canvas.width / 2)).toBeLessThanOrEqual(2);
    expect(pixel(scene, 5, 5)).toEqual([20, 200, 60]);
  });

  it('draws a different studio backdrop for each of the first variants, the same one twice alike', async () => {
    const size = { width: 160, height: 120 };
    const drawn = await Promise.all(STUDIO_BACKDROPS.map((backdrop) => renderStudioBackdrop(backdrop, size)));
    for (let i = 0; i < drawn.length; i++) {
      for (let j = i + 1; j < drawn.length; j++) expect(drawn[i].data.equals(drawn[j].data)).toBe(false);
    }
    expect((await renderStudioBackdrop(studioBackdropFor(0), size)).data.equals(drawn[0].data)).toBe(true);
    expect(studioBackdropFor(STUDIO_BACKDROPS.length)).toBe(STUDIO_BACKDROPS[0]);
  });
});

describe('generation pipeline', () => {
  it("keeps none of a reference image's metadata: a generated image is new, not the reference photo", async () => {
    const painted = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3080c0' } })
      .png()
      .toBuffer();
    const provider: ImageProvider = {
      description: 'fake',
      edit: () => Promise.reject(new Error('not used')),
      generate: () => Promise.resolve(painted),
    };
    const reference = await inspectSource(
      await photographersJpeg(sharp({ create: { width: 40, height: 30, channels: 3, background: '#808080' } })),
      LIMITS.maxPixels,
    );
    const output = { format: 'jpg' as const, file: { ...DEFAULT_FILE_CHOICES, metadata: 'keep' as const } };
    const { image } = await runPipeline(
      GENERATION_PIPELINE,
      toolContext({ prompt: 'a mug', ratio: null }, reference, { provider }, { limits: LIMITS, choices: { output } }),
    );
    expect(await fileStatement(image)).toMatchObject({ exif: null, xmp: null });
  });
});
