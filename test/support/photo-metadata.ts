import exifReader from 'exif-reader';
import sharp from 'sharp';
import { exifFieldText } from '../../src/engine/metadata/exif-fields';

/**
 * Metadata written into test sources and read back from results: a photographer's JPEG with
 * rights, camera data, a GPS position and an orientation, and a reader for what a file states.
 */

export const SOURCE_COPYRIGHT = 'Acme Photo (2024)';
export const SOURCE_ARTIST = 'Ann Example';
export const XMP_RIGHTS = '© Acme Photo 2024, all rights reserved';

/** EXIF field names the tests look for (the standard's, as exif-reader and libvips name them). */
export const TAG = {
  orientation: 'Orientation',
  artist: 'Artist',
  copyright: 'Copyright',
  make: 'Make',
  gpsPointer: 'GPSTag',
  exposureTime: 'ExposureTime',
  fNumber: 'FNumber',
  bodySerialNumber: 'BodySerialNumber',
  colourSpace: 'ColorSpace',
} as const;

/** An XMP packet with rights, a creator tool, a GPS position and an orientation. */
export const SOURCE_XMP =
  '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>' +
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
  'xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:exif="http://ns.adobe.com/exif/1.0/" ' +
  'xmlns:tiff="http://ns.adobe.com/tiff/1.0/" xmp:CreatorTool="Test Camera" tiff:Orientation="6" ' +
  'exif:GPSLatitude="48,51.5N" exif:GPSLongitude="2,17.6E">' +
  `<dc:rights><rdf:Alt><rdf:li xml:lang="x-default">${XMP_RIGHTS}</rdf:li></rdf:Alt></dc:rights>` +
  '</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>';

/**
 * `pipeline`'s pixels as a JPEG stored sideways, as cameras store it: EXIF Orientation 6 (turn 90
 * degrees clockwise to view), IFD0 rights and camera, capture settings with a body serial number,
 * a GPS position, and SOURCE_XMP.
 */
export function photographersJpeg(pipeline: sharp.Sharp): Promise<Buffer> {
  return pipeline
    .withMetadata({ orientation: 6, density: 300 })
    .withExif({
      // libvips drops a trailing " (...)" from text it is given: the empty pair keeps "(2024)".
      IFD0: { Copyright: `${SOURCE_COPYRIGHT} ()`, Artist: SOURCE_ARTIST, Make: 'Test Camera Co' },
      IFD2: { ExposureTime: '1/125', FNumber: '28/10', BodySerialNumber: '0042-1234' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 30/1', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 36/1' },
    })
    .withXmp(SOURCE_XMP)
    .jpeg({ quality: 95 })
    .toBuffer();
}

/** An EXIF value in the string form sharp's withExif takes: numbers, fractions (`n/d`), dates as EXIF writes them. */
export interface StatedExifValue {
  value: string;
}

/** The values of one directory exif-reader decoded; numbers with a fraction part were RATIONALs. */
function statedDirectory(
  directory: Readonly<Record<string, unknown>> | null | undefined,
): Map<string, StatedExifValue> {
  const stated = new Map<string, StatedExifValue>();
  for (const [name, decoded] of Object.entries(directory ?? {})) {
    const numbers: unknown[] = [decoded].flat();
    const numeric = numbers.every((item) => typeof item === 'number');
    const kind = !numeric ? 'text' : numbers.every(Number.isInteger) ? 'whole' : 'fraction';
    const value = exifFieldText(decoded, kind);
    if (value !== null) stated.set(name, { value });
  }
  return stated;
}

/** What a file states about itself, as a reader finds it. */
export interface FileStatement {
  format: string;
  channels: number;
  /** Pixels per inch: sharp's reading, else (WebP) the EXIF XResolution. */
  density: number | null;
  /** The embedded ICC profile's colour space and description, or null without one. */
  icc: { space: string; description: string } | null;
  /** IFD0 and the EXIF sub-directory, by field name. */
  exif: { image: Map<string, StatedExifValue>; capture: Map<string, StatedExifValue> } | null;
  xmp: string | null;
}

/** The description of an ICC profile: a v2 `desc` (ASCII) or a v4 `mluc` (UTF-16) tag. */
function iccDescription(icc: Buffer): string {
  const tags = icc.readUInt32BE(128);
  for (let i = 0; i < tags; i++) {
    const entry = 132 + i * 12;
    if (icc.toString('latin1', entry, entry + 4) !== 'desc') continue;
    const offset = icc.readUInt32BE(entry + 4);
    const type = icc.toString('latin1', offset, offset + 4);
    if (type === 'desc') {
      const length = icc.readUInt32BE(offset + 8);
      return icc.toString('latin1', offset + 12, offset + 12 + length).replace(/\0+$/, '');
    }
    if (type === 'mluc') {
      const length = icc.readUInt32BE(offset + 20);
      const start = offset + icc.readUInt32BE(offset + 24);
      return Buffer.from(icc.subarray(start, start + length))
        .swap16()
        .toString('utf16le');
    }
  }
  return '';
}

export async function fileStatement(file: Buffer): Promise<FileStatement> {
  const meta = await sharp(file).metadata();
  const read = meta.exif ? exifReader(meta.exif) : null;
  const exifDensity = read?.Image?.XResolution;
  return {
    format: meta.format ?? '',
    channels: meta.channels ?? 0,
    density: meta.density ?? exifDensity ?? null,
    icc: meta.icc ? { space: meta.icc.toString('latin1', 16, 20).trim(), description: iccDescription(meta.icc) } : null,
    exif: read ? { image: statedDirectory(read.Image), capture: statedDirectory(read.Photo) } : null,
    xmp: meta.xmp ? meta.xmp.toString('utf8') : null,
  };
}
