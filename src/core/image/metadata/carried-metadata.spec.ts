import sharp from 'sharp';
import {
  fileStatement,
  photographersJpeg,
  SOURCE_ARTIST,
  SOURCE_COPYRIGHT,
  TAG,
  XMP_RIGHTS,
} from '../../../../test/support/photo-metadata';
import { pngWithLongDescription } from '../../../../test/support/hostile-metadata';
import { INLINE_ENGINE, type PixelEngine } from '../../../engine/pixel-engine';
import { inspectSource } from '../source-image';
import { readCarriedMetadata } from './carried-metadata';
import { METADATA_READ_LIMITS } from './metadata-limits';

const grey = () => sharp({ create: { width: 30, height: 20, channels: 3, background: '#808080' } });

/** What a PNG result keeps of `file`'s metadata, read on the calling thread. */
const carriedFrom = async (file: Buffer, format: 'png' | 'jpg' = 'png') =>
  (await readCarriedMetadata(await inspectSource(file, 1e6), format, INLINE_ENGINE)).carried;

describe(readCarriedMetadata.name, () => {
  it("keeps a photographer's rights, camera and settings, and leaves orientation, GPS and serial numbers", async () => {
    const source = await photographersJpeg(grey());
    // The fixture does hold what must be left behind.
    const stated = await fileStatement(source);
    expect(stated.exif?.image.get(TAG.orientation)?.value).toBe('6');
    expect(stated.exif?.image.has(TAG.gpsPointer)).toBe(true);
    expect(stated.exif?.capture.get(TAG.bodySerialNumber)?.value).toBe('0042-1234');

    const carried = await carriedFrom(source);
    expect(carried?.exif).toEqual({
      IFD0: { Copyright: `${SOURCE_COPYRIGHT} ()`, Artist: `${SOURCE_ARTIST} ()`, Make: 'Test Camera Co ()' },
      IFD2: { ExposureTime: '1/125', FNumber: '14/5' },
    });
    expect(carried?.density).toBe(300);
    expect(carried?.xmp).toContain(XMP_RIGHTS);
    expect(carried?.xmp).toContain('xmp:CreatorTool="Test Camera"');
    expect(carried?.xmp).not.toMatch(/GPS|Orientation/);
  });

  it('has nothing to carry from a file without EXIF or XMP', async () => {
    expect(await carriedFrom(await grey().png().toBuffer())).toBeNull();
    expect(await carriedFrom(await grey().jpeg().toBuffer())).toBeNull();
  });

  it('carries XMP alone, or EXIF alone', async () => {
    const xmpOnly = await carriedFrom(await grey().withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"/>').png().toBuffer());
    expect(xmpOnly).toMatchObject({ exif: null, xmp: '<x:xmpmeta xmlns:x="adobe:ns:meta/"/>' });
    const exifOnly = await carriedFrom(
      await grey()
        .withExif({ IFD0: { Artist: 'Ann' } })
        .webp()
        .toBuffer(),
    );
    expect(exifOnly).toMatchObject({ exif: { IFD0: { Artist: 'Ann ()' }, IFD2: {} }, xmp: null });
  });
});

describe(`${readCarriedMetadata.name}, within its limits`, () => {
  const reading = async (file: Buffer, format: 'png' | 'jpg') =>
    readCarriedMetadata(await inspectSource(file, 1e6), format, INLINE_ENGINE);
  const packetOf = (bytes: number) =>
    `<x:xmpmeta xmlns:x="adobe:ns:meta/" xmlns:dc="http://purl.org/dc/elements/1.1/" dc:source="${'s'.repeat(bytes)}"/>`;

  it('leaves out an XMP block over the read limit, and reads one just within it', async () => {
    const over = await reading(await grey().withXmp(packetOf(METADATA_READ_LIMITS.xmpBytes)).png().toBuffer(), 'png');
    expect(over).toEqual({
      carried: null,
      dropped: ['the XMP block inflates past the 1024 KiB the service reads'],
    });
    const within = await reading(
      await grey()
        .withXmp(packetOf(METADATA_READ_LIMITS.xmpBytes - 200))
        .png()
        .toBuffer(),
      'png',
    );
    expect(within.dropped).toEqual([]);
    expect(within.carried?.xmp).toHaveLength(METADATA_READ_LIMITS.xmpBytes - 200 + packetOf(0).length);
  });

  it('leaves out an EXIF block over the read limit', async () => {
    const file = await pngWithLongDescription(METADATA_READ_LIMITS.exifBytes);
    const { carried, dropped } = await reading(file, 'png');
    expect(carried).toBeNull();
    expect(dropped).toEqual([expect.stringMatching(/^the EXIF block is 64 KiB, over the 64 KiB the service reads$/)]);
  });

  it('keeps in a PNG what a JPEG cannot hold, and leaves it out of a JPEG, saying so', async () => {
    const file = await grey()
      .withXmp(packetOf(70_000))
      .withExif({ IFD0: { ImageDescription: 'e'.repeat(61_000), Artist: 'Ann' } })
      .png()
      .toBuffer();
    const png = await reading(file, 'png');
    expect(png.dropped).toEqual([]);
    expect(png.carried?.exif?.IFD0.Artist).toBe('Ann ()');
    expect(png.carried?.xmp).toContain('sss');
    const jpg = await reading(file, 'jpg');
    expect(jpg).toEqual({
      carried: null,
      dropped: [
        'the EXIF fields hold 60 KiB of text, more than a jpg file takes',
        'the XMP packet is 68 KiB, more than a jpg file takes',
      ],
    });
  });

  it('parses the blocks in the engine it is given, and asks nothing of it when there are none', async () => {
    const operations: string[] = [];
    const engine: PixelEngine = {
      run(name, args) {
        operations.push(name);
        return INLINE_ENGINE.run(name, args);
      },
    };
    const source = await inspectSource(await photographersJpeg(grey()), 1e6);
    expect((await readCarriedMetadata(source, 'png', engine)).carried?.xmp).toContain(XMP_RIGHTS);
    await readCarriedMetadata(await inspectSource(await grey().png().toBuffer(), 1e6), 'png', engine);
    expect(operations).toEqual(['carriedBlocks']);
  });
});
