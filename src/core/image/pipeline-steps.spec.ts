import sharp from 'sharp';
import { decodeRgba, productPhoto } from '../../../test/support/image-fixtures';
import { fileStatement, TAG } from '../../../test/support/photo-metadata';
import type { CarriedMetadata } from './metadata/carried-metadata';
import {
  DEFAULT_QUALITY,
  encode,
  encodeMask,
  encodeSourcePreview,
  encodeThumbnail,
  SOURCE_PREVIEW_SIDE,
  type FileOptions,
} from './pipeline-steps';
import type { RawImage } from '../../engine/raw-image';
import { inspectSource } from './source-image';

const PHOTO: RawImage = productPhoto(96, 64, 7);
const FORMATS = ['jpg', 'png', 'webp'] as const;
const file = (overrides: Partial<FileOptions>): FileOptions => ({
  format: 'png',
  quality: null,
  dpi: null,
  carried: null,
  ...overrides,
});
const CARRIED: CarriedMetadata = {
  exif: { IFD0: { Copyright: 'Acme (2024) ()', Artist: 'Ann ()' }, IFD2: { ExposureTime: '1/125' } },
  xmp: '<x:xmpmeta xmlns:x="adobe:ns:meta/"/>',
  density: 240,
};
const MASK = { data: Uint8Array.from({ length: 40 * 30 }, (_, i) => (i * 37) % 256), width: 40, height: 30 };

describe(encode.name, () => {
  it.each(FORMATS)('tags a %s result sRGB and writes nothing else by default', async (format) => {
    const stated = await fileStatement(await encode(PHOTO, file({ format }), null));
    expect(stated.icc).toEqual({ space: 'RGB', description: expect.stringContaining('sRGB') });
    expect(stated).toMatchObject({ exif: null, xmp: null });
  });

  it('leaves the pixels as they are: the sRGB profile is attached, not applied', async () => {
    const png = await encode(PHOTO, file({ format: 'png' }), null);
    expect(await sharp(png).raw().toBuffer()).toEqual(PHOTO.data);
    const thumbnail = await encodeThumbnail(PHOTO, 'png', null);
    expect((await fileStatement(thumbnail)).icc?.description).toContain('sRGB');
  });

  it.each(['jpg', 'webp'] as const)(
    'writes %s at the quality asked for, DEFAULT_QUALITY without one',
    async (format) => {
      const at = (quality: number | null) => encode(PHOTO, file({ format, quality }), null);
      expect(await at(null)).toEqual(await at(DEFAULT_QUALITY[format]));
      expect((await at(40)).length).toBeLessThan((await at(95)).length);
    },
  );

  it.each(FORMATS)('writes a %s dpi with only technical EXIF beside it', async (format) => {
    const stated = await fileStatement(await encode(PHOTO, file({ format, dpi: 300 }), null));
    expect(stated.density).toBe(300);
    expect(stated.exif?.image.get(TAG.orientation)?.value).toBe('1');
    expect(stated.exif?.capture.get(TAG.colourSpace)?.value).toBe('1');
    for (const tag of [TAG.copyright, TAG.artist, TAG.make, TAG.gpsPointer])
      expect(stated.exif?.image.has(tag)).toBe(false);
    expect(stated.xmp).toBeNull();
  });

  it.each(FORMATS)('writes carried metadata into a %s, at its density unless a dpi is asked for', async (format) => {
    const kept = await fileStatement(await encode(PHOTO, file({ format, carried: CARRIED }), null));
    expect(kept.exif?.image.get(TAG.copyright)?.value).toBe('Acme (2024)');
    expect(kept.exif?.image.get(TAG.artist)?.value).toBe('Ann');
    expect(kept.exif?.capture.get(TAG.exposureTime)?.value).toBe('1/125');
    expect(kept.exif?.image.get(TAG.orientation)?.value).toBe('1');
    expect(kept.xmp).toContain('adobe:ns:meta/');
    expect(kept.density).toBe(240);
    expect(kept.icc?.description).toContain('sRGB');
    const asked = await fileStatement(await encode(PHOTO, file({ format, carried: CARRIED, dpi: 150 }), null));
    expect(asked.density).toBe(150);
  });
});

describe(encodeMask.name, () => {
  it('writes one channel, with no profile, and a dpi in pHYs without EXIF', async () => {
    const plain = await encodeMask(MASK, { dpi: null, carried: null });
    expect(await fileStatement(plain)).toMatchObject({ channels: 1, icc: null, exif: null, xmp: null });
    const withDpi = await encodeMask(MASK, { dpi: 300, carried: null });
    expect(await fileStatement(withDpi)).toMatchObject({ channels: 1, icc: null, exif: null, density: 300 });
    expect(await sharp(withDpi).extractChannel(0).raw().toBuffer()).toEqual(Buffer.from(MASK.data));
  });

  it('writes carried metadata and stays one channel', async () => {
    const kept = await fileStatement(await encodeMask(MASK, { dpi: null, carried: CARRIED }));
    expect(kept).toMatchObject({ channels: 1, icc: null, density: 240 });
    expect(kept.exif?.image.get(TAG.copyright)?.value).toBe('Acme (2024)');
    expect(kept.xmp).toContain('adobe:ns:meta/');
  });
});

describe(encodeSourcePreview.name, () => {
  const options = { maxPixels: 50_000_000, timeoutSeconds: 30 };

  it('keeps a source’s transparency, within 1600 px on its longer side', async () => {
    // Left half opaque red, right half fully transparent.
    const width = 2000;
    const height = 500;
    const data = Buffer.alloc(width * height * 4);
    for (let i = 0; i < width * height; i++) {
      if (i % width < width / 2) data.set([220, 20, 20, 255], i * 4);
    }
    const png = await sharp(data, { raw: { width, height, channels: 4 } })
      .png()
      .toBuffer();
    const preview = await encodeSourcePreview(await inspectSource(png, options.maxPixels), options);

    const stated = await fileStatement(preview);
    expect(stated).toMatchObject({ icc: null, exif: null, xmp: null });
    const pixels = await decodeRgba(preview);
    expect({ width: pixels.width, height: pixels.height }).toEqual({ width: SOURCE_PREVIEW_SIDE, height: 400 });
    expect(pixels.pixel(200, 200)).toEqual([expect.any(Number), expect.any(Number), expect.any(Number), 255]);
    expect(pixels.pixel(200, 200)[0]).toBeGreaterThan(200);
    expect(pixels.pixel(1400, 200)[3]).toBe(0);
  });

  it('turns a 16-bit grey source into 8-bit sRGB', async () => {
    const grey = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#808080' } })
      .toColourspace('grey16')
      .png()
      .toBuffer();
    const preview = await encodeSourcePreview(await inspectSource(grey, options.maxPixels), options);
    const { data, info } = await sharp(preview).raw().toBuffer({ resolveWithObject: true });
    expect(info).toMatchObject({ width: 40, height: 30, channels: 3 });
    expect(Math.abs(data[0] - 128)).toBeLessThanOrEqual(2);
    expect(data[0]).toBe(data[1]);
  });
});
