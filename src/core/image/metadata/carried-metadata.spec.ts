import sharp from 'sharp';
import {
  fileStatement,
  photographersJpeg,
  SOURCE_ARTIST,
  SOURCE_COPYRIGHT,
  TAG,
  XMP_RIGHTS,
} from '../../../../test/support/photo-metadata';
import { carriedMetadata } from './carried-metadata';

const grey = () => sharp({ create: { width: 30, height: 20, channels: 3, background: '#808080' } });

describe(carriedMetadata.name, () => {
  it("keeps a photographer's rights, camera and settings, and leaves orientation, GPS and serial numbers", async () => {
    const source = await photographersJpeg(grey());
    // The fixture does hold what must be left behind.
    const stated = await fileStatement(source);
    expect(stated.exif?.image.get(TAG.orientation)?.value).toBe('6');
    expect(stated.exif?.image.has(TAG.gpsPointer)).toBe(true);
    expect(stated.exif?.capture.get(TAG.bodySerialNumber)?.value).toBe('0042-1234');

    const carried = await carriedMetadata(source);
    expect(carried?.exif).toEqual({
      IFD0: { Copyright: `${SOURCE_COPYRIGHT} ()`, Artist: `${SOURCE_ARTIST} ()`, Make: 'Test Camera Co ()' },
      IFD2: { ExposureTime: '1/125', FNumber: '28/10' },
    });
    expect(carried?.density).toBe(300);
    expect(carried?.xmp).toContain(XMP_RIGHTS);
    expect(carried?.xmp).toContain('xmp:CreatorTool="Test Camera"');
    expect(carried?.xmp).not.toMatch(/GPS|Orientation/);
  });

  it('has nothing to carry from a file without EXIF or XMP', async () => {
    expect(await carriedMetadata(await grey().png().toBuffer())).toBeNull();
    expect(await carriedMetadata(await grey().jpeg().toBuffer())).toBeNull();
  });

  it('carries XMP alone, or EXIF alone', async () => {
    const xmpOnly = await carriedMetadata(
      await grey().withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"/>').png().toBuffer(),
    );
    expect(xmpOnly).toMatchObject({ exif: null, xmp: '<x:xmpmeta xmlns:x="adobe:ns:meta/"/>' });
    const exifOnly = await carriedMetadata(
      await grey()
        .withExif({ IFD0: { Artist: 'Ann' } })
        .webp()
        .toBuffer(),
    );
    expect(exifOnly).toMatchObject({ exif: { IFD0: { Artist: 'Ann ()' }, IFD2: {} }, xmp: null });
  });
});
