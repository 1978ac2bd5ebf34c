import sharp from 'sharp';
import { laplacianVariance, meanColour } from '../../../test/support/sharpness';
import type { RawImage } from '../raw-image';
import { cutoutPixels, type CutoutComposition } from '../cutout-pixels';
import type { AlphaMask } from '../mask/alpha-mask';
import { fittedPhoto } from './backdrop';
import { blurredBackground, blurRadius } from './blurred-background';

/**
 * A 300 x 200 photo: a striped red ellipse (the product, a 2 px soft edge) on a fine grey
 * checkerboard (3 px squares, 90 and 170), so both have detail a blur takes away.
 */
const W = 300;
const H = 200;
const CENTRE = { x: 150, y: 100 };
const RADII = { x: 60, y: 45 };
/** How far outside (positive) or inside the ellipse's edge a pixel is, in pixels along the normal, roughly. */
const edgeDistance = (x: number, y: number) => {
  const dx = (x - CENTRE.x) / RADII.x;
  const dy = (y - CENTRE.y) / RADII.y;
  return (Math.hypot(dx, dy) - 1) * Math.min(RADII.x, RADII.y);
};

function productAlpha(): AlphaMask {
  const data = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++)
      data[y * W + x] = Math.round(255 * Math.min(1, Math.max(0, (1 - edgeDistance(x, y)) / 2)));
  }
  return { data, width: W, height: H };
}

function productPhoto(): RawImage {
  const data = Buffer.alloc(W * H * 3);
  const alpha = productAlpha();
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const grey = (Math.floor(x / 3) + Math.floor(y / 3)) % 2 === 0 ? 90 : 170;
      const red = Math.floor(x / 3) % 2 === 0 ? [230, 30, 30] : [160, 20, 25];
      const a = alpha.data[y * W + x] / 255;
      for (let c = 0; c < 3; c++) data[(y * W + x) * 3 + c] = Math.round(red[c] * a + grey * (1 - a));
    }
  }
  return { data, width: W, height: H, channels: 3 };
}

const background = (x: number, y: number) => edgeDistance(x, y) > 15;
/** Just outside the product's edge, where a blur of the whole photo would smear the product. */
const ring = (x: number, y: number) => edgeDistance(x, y) > 2 && edgeDistance(x, y) < 10;
const productInterior = (x: number, y: number) => edgeDistance(x, y) < -6;
/** How red a region is: its red above its green (0 for the grey checkerboard). */
const redness = (image: RawImage, inside: (x: number, y: number) => boolean) => {
  const [r, g] = meanColour(image, inside);
  return r - g;
};

const composition = (backdrop: CutoutComposition['backdrop']): CutoutComposition => ({
  channels: 'rgba',
  light: false,
  color: false,
  polish: false,
  background: null,
  backdrop,
  shadow: { kind: 'none', spread: 1, lean: 0 },
  placement: { kind: 'source' },
});

describe('blurredBackground', () => {
  it('blurs the background far below its own sharpness without smearing the product into it', async () => {
    const photo = productPhoto();
    const blurred = await blurredBackground(photo, productAlpha(), { mode: 'gaussian', strength: 60 });
    const before = laplacianVariance(photo, background);
    const after = laplacianVariance(blurred, background);
    expect(after).toBeLessThan(before * 0.02);
    // The checkerboard averages to 130 grey; the product's red stays out of the ring around it.
    expect(Math.abs(redness(blurred, ring))).toBeLessThan(1.5);
    // A blur of the whole photo, product and all, leaves a red halo there: what the ring would show.
    const naive = await sharp(photo.data, { raw: { width: W, height: H, channels: 3 } })
      .blur(blurRadius(photo, 60) / 2)
      .raw()
      .toBuffer();
    expect(redness({ ...photo, data: naive }, ring)).toBeGreaterThan(6);
  });

  it('fills the hole the product leaves with the background around it, not the product', async () => {
    const blurred = await blurredBackground(productPhoto(), productAlpha(), { mode: 'gaussian', strength: 20 });
    const [r, g, b] = meanColour(blurred, productInterior);
    expect(Math.abs(r - g)).toBeLessThan(2);
    expect(Math.abs(g - b)).toBeLessThan(2);
    expect(Math.abs(g - 130)).toBeLessThan(12);
  });

  it('opens a highlight into a flat disc of its radius with bokeh, and keeps a flat area at its level', async () => {
    const size = 200;
    const data = Buffer.alloc(size * size * 3, 40);
    const dot = { x: 100, y: 100 };
    for (let y = dot.y - 1; y <= dot.y + 1; y++)
      for (let x = dot.x - 1; x <= dot.x + 1; x++) data.fill(255, (y * size + x) * 3, (y * size + x) * 3 + 3);
    const photo: RawImage = { data, width: size, height: size, channels: 3 };
    const none: AlphaMask = { data: new Uint8Array(size * size), width: size, height: size };
    const strength = 100;
    const radius = blurRadius(photo, strength);
    expect(radius).toBe(8);
    const bokeh = await blurredBackground(photo, none, { mode: 'bokeh', strength });
    const level = (dx: number) => bokeh.data[(dot.y * size + dot.x + Math.round(dx)) * 3];
    // Inside the disc the light is spread evenly; outside it there is none.
    expect(level(0.3 * radius)).toBeGreaterThan(60);
    expect(Math.abs(level(0.3 * radius) - level(0.65 * radius))).toBeLessThan(0.25 * (level(0.3 * radius) - 40));
    expect(level(1.6 * radius)).toBeLessThanOrEqual(41);
    // A gaussian falls off over the same span: the disc is the lens's, not a softer gaussian.
    const soft = await blurredBackground(photo, none, { mode: 'gaussian', strength });
    const softLevel = (dx: number) => soft.data[(dot.y * size + dot.x + Math.round(dx)) * 3];
    expect(softLevel(0.3 * radius) - softLevel(0.65 * radius)).toBeGreaterThan(
      level(0.3 * radius) - level(0.65 * radius),
    );
    expect(Math.abs(bokeh.data[(20 * size + 20) * 3] - 40)).toBeLessThanOrEqual(1);
  });
});

describe('cutoutPixels over a backdrop', () => {
  it('keeps the product sharp over its own blurred background', async () => {
    const photo = productPhoto();
    const original = laplacianVariance(photo, productInterior);
    const { image } = (await cutoutPixels(
      { ...photo, data: Buffer.from(photo.data) },
      productAlpha(),
      composition({ kind: 'blur', blur: { mode: 'bokeh', strength: 60 } }),
      30,
    )) as { kind: 'image'; image: RawImage };
    expect(image.channels).toBe(3);
    expect(laplacianVariance(image, productInterior)).toBeGreaterThan(original * 0.9);
    expect(laplacianVariance(image, background)).toBeLessThan(laplacianVariance(photo, background) * 0.05);
  });

  it('shows a background photo fitted to the result around the product, with its shadow darker on it', async () => {
    // A 400 x 100 backdrop, blue on the left and green on the right: cover on 300 x 200 shows its middle.
    const backdropPixels = Buffer.alloc(400 * 100 * 3);
    for (let i = 0; i < 400 * 100; i++) backdropPixels.set(i % 400 < 200 ? [40, 60, 200] : [40, 180, 60], i * 3);
    const backdrop = { data: backdropPixels, width: 400, height: 100, channels: 3 as const };
    const fitted = await fittedPhoto(backdrop, { width: W, height: H }, 'cover', { r: 255, g: 255, b: 255, alpha: 1 });
    const photoBackdrop = {
      kind: 'photo' as const,
      image: backdrop,
      fit: 'cover' as const,
      pad: { r: 255, g: 255, b: 255, alpha: 1 },
    };
    const plain = composition(photoBackdrop);
    const { image } = (await cutoutPixels(productPhoto(), productAlpha(), plain, 30)) as {
      kind: 'image';
      image: RawImage;
    };
    for (const [x, y] of [
      [10, 10],
      [290, 190],
      [40, 150],
    ]) {
      const i = (y * W + x) * 3;
      expect([...image.data.subarray(i, i + 3)]).toEqual([...fitted.data.subarray(i, i + 3)]);
    }
    const shaded = (await cutoutPixels(
      productPhoto(),
      productAlpha(),
      { ...plain, shadow: { kind: 'soft', spread: 1, lean: 0 } },
      30,
    )) as { kind: 'image'; image: RawImage };
    // Just below the product's base the backdrop is darker with the shadow than without it.
    const below = ((CENTRE.y + RADII.y + 3) * W + CENTRE.x) * 3;
    expect(shaded.image.data[below + 1]).toBeLessThan(image.data[below + 1] - 10);
    // Beside the product, far from the shadow, it is the backdrop itself.
    expect(shaded.image.data[(10 * W + 10) * 3 + 2]).toBe(fitted.data[(10 * W + 10) * 3 + 2]);
  });
});

describe('fittedPhoto', () => {
  const halves = (): RawImage => {
    const data = Buffer.alloc(400 * 100 * 3);
    for (let i = 0; i < 400 * 100; i++) data.set(i % 400 < 200 ? [0, 0, 255] : [0, 255, 0], i * 3);
    return { data, width: 400, height: 100, channels: 3 };
  };
  const at = (image: RawImage, x: number, y: number) => [
    ...image.data.subarray((y * image.width + x) * 3, (y * image.width + x) * 3 + 3),
  ];

  it('covers the size, centred, cutting the overflow', async () => {
    const cover = await fittedPhoto(halves(), { width: 200, height: 200 }, 'cover', {
      r: 255,
      g: 255,
      b: 255,
      alpha: 1,
    });
    expect([cover.width, cover.height, cover.channels]).toEqual([200, 200, 3]);
    expect(at(cover, 5, 100)).toEqual([0, 0, 255]);
    expect(at(cover, 195, 100)).toEqual([0, 255, 0]);
  });

  it('contains the photo whole, centred on the pad colour', async () => {
    const contain = await fittedPhoto(halves(), { width: 200, height: 200 }, 'contain', {
      r: 250,
      g: 10,
      b: 10,
      alpha: 1,
    });
    expect(at(contain, 100, 5)).toEqual([250, 10, 10]);
    expect(at(contain, 100, 195)).toEqual([250, 10, 10]);
    expect(at(contain, 5, 100)).toEqual([0, 0, 255]);
    expect(at(contain, 195, 100)).toEqual([0, 255, 0]);
  });
});
