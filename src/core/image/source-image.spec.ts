import sharp from 'sharp';
import { hostileMetadataFiles } from '../../../test/support/hostile-metadata';
import {
  inspectSource,
  inspectTypedSource,
  SourceImageError,
  SourceImageProblem,
  sourceDecodeOptions,
} from './source-image';

const grey = () => sharp({ create: { width: 40, height: 30, channels: 3, background: '#7a8088' } });

const notImage = (bytes: Buffer) =>
  inspectTypedSource(bytes, 1e6).then(
    () => null,
    (error: unknown) => (error instanceof SourceImageError ? [error.problem, error.message] : error),
  );

describe(inspectTypedSource.name, () => {
  it('reads every accepted format by its bytes, whatever is asked of it', async () => {
    const formats = {
      'image/jpeg': grey().jpeg(),
      'image/png': grey().png(),
      'image/webp': grey().webp(),
      'image/gif': grey().gif(),
      'image/tiff': grey().tiff(),
      'image/avif': grey().avif(),
    };
    for (const [mediaType, pipeline] of Object.entries(formats)) {
      const source = await inspectTypedSource(await pipeline.toBuffer(), 1e6);
      expect([mediaType, source.width, source.height, source.unusedProfile]).toEqual([mediaType, 40, 30, null]);
    }
  });

  it('refuses an SVG, a PDF and whatever else does not start like a photo, before any decoder reads it', async () => {
    const refusal = [
      SourceImageProblem.NotImage,
      'The source is not an image this service can read: send JPEG, PNG, WebP, AVIF, GIF, TIFF or HEIF.',
    ];
    // libvips would read this SVG's header as 10^10 pixels (and name its format); it is refused for what it is.
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="1" height="1"/></svg>';
    expect(await notImage(Buffer.from(svg))).toEqual(refusal);
    expect(await notImage(Buffer.from(`<?xml version="1.0"?>${svg}`))).toEqual(refusal);
    expect(await notImage(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj <<>> endobj', 'latin1'))).toEqual(refusal);
    expect(await notImage(Buffer.from('P6\n40 30\n255\n'))).toEqual(refusal);
    expect(await notImage(Buffer.alloc(0))).toEqual(refusal);
  });

  it('refuses bytes that start like one format and are another, or nothing', async () => {
    const png = await grey().png().toBuffer();
    const jpegHeadOnPng = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), png]);
    expect(await notImage(jpegHeadOnPng)).toEqual([SourceImageProblem.NotImage, expect.any(String)]);
    expect(await notImage(png.subarray(0, 40))).toEqual([SourceImageProblem.NotImage, expect.any(String)]);
  });

  it('applies an embedded profile that is one, and leaves out one too large or not a profile, saying why', async () => {
    const p3 = await inspectSource(await grey().withIccProfile('p3').png().toBuffer(), 1e6);
    expect(p3.unusedProfile).toBeNull();
    const unused = await Promise.all(
      (await hostileMetadataFiles())
        .filter((file) => file.block === 'ICC')
        .map(async (file) => [file.name, (await inspectSource(file.bytes, 1e6)).unusedProfile]),
    );
    expect(unused).toEqual([
      ['an oversized ICC profile (20 MB, compressed)', 'the ICC profile inflates past the 4096 KiB the service reads'],
      // libvips (8.18, sharp 0.35) drops an embedded profile that is not one as it reads the
      // header, so neither reaches the service: there is nothing left to apply or to leave out.
      ['an ICC profile whose header lies about its size', null],
      ['an ICC chunk that holds no profile', null],
    ]);
  });

  it('reads a GIF of thousands of frames by its first frame alone', async () => {
    const frames = 2000;
    const side = 16;
    const raw = Buffer.alloc(side * side * 3 * frames);
    // Each frame differs from the one before, so the encoder keeps them all; the first is the darkest.
    for (let frame = 0; frame < frames; frame++)
      raw.fill(frame === 0 ? 30 : frame % 2 ? 220 : 120, frame * side * side * 3);
    const gif = await sharp(raw, { raw: { width: side, height: side * frames, channels: 3, pageHeight: side } })
      .gif()
      .toBuffer();
    expect((await sharp(gif).metadata()).pages).toBe(frames);
    const source = await inspectSource(gif, 1e6);
    expect([source.width, source.height]).toEqual([side, side]);
    const { data, info } = await sharp(source.bytes, sourceDecodeOptions(1e6))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([side, side]);
    expect(Math.max(...data)).toBeLessThanOrEqual(40);
  });
});
