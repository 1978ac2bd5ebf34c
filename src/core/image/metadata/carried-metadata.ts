import sharp from 'sharp';
import { readExifDirectories, type ExifEntry } from './exif-directories';
import { scrubbedXmp } from './xmp-packet';

/** EXIF fields as sharp's withExif takes them: by directory (`IFD0`, and `IFD2` for the EXIF sub-directory). */
export type ExifFields = Record<'IFD0' | 'IFD2', Record<string, string>>;

/** What a result's file carries over from its source when the client keeps metadata. */
export interface CarriedMetadata {
  /** The carried EXIF fields; null when the source has none of them. */
  exif: ExifFields | null;
  /** The source's XMP packet, scrubbed (see xmp-packet.ts); null when it has none. */
  xmp: string | null;
  /** The source's resolution in pixels per inch, when its header states one. */
  density: number | null;
}

/**
 * The EXIF fields a result keeps, by tag number and libvips' name for them: who made the photo and
 * holds its rights, what it shows, and the camera and settings it was taken with. Left behind:
 * Orientation (the pixels are already turned upright, and libvips writes 1), the resolution and
 * size (the result's own are written), the GPS directory (a photo's location is private and no
 * product image needs it), serial numbers and the camera owner's name (they identify a person),
 * maker notes (opaque, and full of offsets into the source's block) and the thumbnail directory (a
 * picture of the unedited photo).
 */
const CARRIED_IMAGE_TAGS: ReadonlyMap<number, string> = new Map([
  [0x010e, 'ImageDescription'],
  [0x010f, 'Make'],
  [0x0110, 'Model'],
  [0x0131, 'Software'],
  [0x0132, 'DateTime'],
  [0x013b, 'Artist'],
  [0x8298, 'Copyright'],
]);
const CARRIED_CAPTURE_TAGS: ReadonlyMap<number, string> = new Map([
  [0x829a, 'ExposureTime'],
  [0x829d, 'FNumber'],
  [0x8822, 'ExposureProgram'],
  [0x8827, 'ISOSpeedRatings'],
  [0x9003, 'DateTimeOriginal'],
  [0x9004, 'DateTimeDigitized'],
  [0x9010, 'OffsetTime'],
  [0x9011, 'OffsetTimeOriginal'],
  [0x9012, 'OffsetTimeDigitized'],
  [0x9201, 'ShutterSpeedValue'],
  [0x9202, 'ApertureValue'],
  [0x9203, 'BrightnessValue'],
  [0x9204, 'ExposureBiasValue'],
  [0x9205, 'MaxApertureValue'],
  [0x9207, 'MeteringMode'],
  [0x9208, 'LightSource'],
  [0x9209, 'Flash'],
  [0x920a, 'FocalLength'],
  [0x9290, 'SubSecTime'],
  [0x9291, 'SubSecTimeOriginal'],
  [0x9292, 'SubSecTimeDigitized'],
  [0xa402, 'ExposureMode'],
  [0xa403, 'WhiteBalance'],
  [0xa404, 'DigitalZoomRatio'],
  [0xa405, 'FocalLengthIn35mmFilm'],
  [0xa406, 'SceneCaptureType'],
  [0xa408, 'Contrast'],
  [0xa409, 'Saturation'],
  [0xa40a, 'Sharpness'],
  [0xa432, 'LensSpecification'],
  [0xa433, 'LensMake'],
  [0xa434, 'LensModel'],
]);

function carriedFields(entries: Map<number, ExifEntry>, names: ReadonlyMap<number, string>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [tag, { value, text }] of entries) {
    const name = names.get(tag);
    if (!name || value === '') continue;
    // libvips drops a trailing ` (...)` from text it is given (its notation for a value's type): an empty pair for it
    // to drop keeps a value that itself ends in parentheses ("Acme (2024)") whole.
    fields[name] = text ? `${value} ()` : value;
  }
  return fields;
}

/** The fields of `exif` a result keeps (CARRIED_IMAGE_TAGS, CARRIED_CAPTURE_TAGS), or null when it has none. */
export function carriedExifFields(exif: Buffer): ExifFields | null {
  const { image, capture } = readExifDirectories(exif);
  const fields: ExifFields = {
    IFD0: carriedFields(image, CARRIED_IMAGE_TAGS),
    IFD2: carriedFields(capture, CARRIED_CAPTURE_TAGS),
  };
  return Object.keys(fields.IFD0).length + Object.keys(fields.IFD2).length > 0 ? fields : null;
}

/**
 * What a result keeps of its source's metadata, read from the source's header (no pixel is
 * decoded): its EXIF fields, its XMP packet and its resolution; null when it has neither EXIF
 * fields nor XMP to keep. IPTC is not carried: its rights and credits are repeated in XMP by
 * every tool that writes both.
 */
export async function carriedMetadata(source: Buffer): Promise<CarriedMetadata | null> {
  const { exif, xmp, density } = await sharp(source).metadata();
  const fields = exif ? carriedExifFields(exif) : null;
  const packet = xmp ? scrubbedXmp(xmp.toString('utf8')).trim() : '';
  if (!fields && !packet) return null;
  return { exif: fields, xmp: packet || null, density: density ?? null };
}
