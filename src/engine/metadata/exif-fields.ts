import exifReader from 'exif-reader';
import { exifReadingCost } from './exif-reading-cost';

/** EXIF fields as sharp's withExif takes them: by directory (`IFD0`, and `IFD2` for the EXIF sub-directory). */
export type ExifFields = Record<'IFD0' | 'IFD2', Record<string, string>>;

/**
 * How a carried field's value is written for libvips: text (ASCII, and the dates exif-reader turns
 * into Date objects), whole numbers (SHORT), or fractions (RATIONAL and SRATIONAL, which exif-reader
 * turns into quotients and libvips reads back as `n/d`).
 */
export type ExifFieldKind = 'text' | 'whole' | 'fraction';

/**
 * The EXIF fields a result keeps, by name (exif-reader and libvips both use the EXIF standard's
 * names): who made the photo and holds its rights, what it shows, and the camera and settings it
 * was taken with. Left behind: Orientation (the pixels are already turned upright, and libvips
 * writes 1), the resolution and size (the result's own are written), the GPS directory (a photo's
 * location is private and no product image needs it), serial numbers and the camera owner's name
 * (they identify a person), maker notes (opaque, and full of offsets into the source's block) and
 * the thumbnail directory (a picture of the unedited photo).
 */
const CARRIED_IMAGE_FIELDS: ReadonlyMap<string, ExifFieldKind> = new Map([
  ['ImageDescription', 'text'],
  ['Make', 'text'],
  ['Model', 'text'],
  ['Software', 'text'],
  ['DateTime', 'text'],
  ['Artist', 'text'],
  ['Copyright', 'text'],
]);
const CARRIED_CAPTURE_FIELDS: ReadonlyMap<string, ExifFieldKind> = new Map([
  ['ExposureTime', 'fraction'],
  ['FNumber', 'fraction'],
  ['ExposureProgram', 'whole'],
  ['ISOSpeedRatings', 'whole'],
  ['DateTimeOriginal', 'text'],
  ['DateTimeDigitized', 'text'],
  ['OffsetTime', 'text'],
  ['OffsetTimeOriginal', 'text'],
  ['OffsetTimeDigitized', 'text'],
  ['ShutterSpeedValue', 'fraction'],
  ['ApertureValue', 'fraction'],
  ['BrightnessValue', 'fraction'],
  ['ExposureBiasValue', 'fraction'],
  ['MaxApertureValue', 'fraction'],
  ['MeteringMode', 'whole'],
  ['LightSource', 'whole'],
  ['Flash', 'whole'],
  ['FocalLength', 'fraction'],
  ['SubSecTime', 'text'],
  ['SubSecTimeOriginal', 'text'],
  ['SubSecTimeDigitized', 'text'],
  ['ExposureMode', 'whole'],
  ['WhiteBalance', 'whole'],
  ['DigitalZoomRatio', 'fraction'],
  ['FocalLengthIn35mmFilm', 'whole'],
  ['SceneCaptureType', 'whole'],
  ['Contrast', 'whole'],
  ['Saturation', 'whole'],
  ['Sharpness', 'whole'],
  ['LensSpecification', 'fraction'],
  ['LensMake', 'text'],
  ['LensModel', 'text'],
]);

/** The largest numerator or denominator an EXIF RATIONAL holds (32 bits). */
const RATIONAL_PART_MAX = 0xffffffff;

/**
 * The fraction whose quotient is `value`, in lowest terms. exif-reader divides a RATIONAL's two
 * integers in doubles; the convergents of the quotient's continued fraction reach the source's
 * fraction, reduced, before any other fraction gives the same double (for the denominators
 * cameras write, up to millions), so 1/250 comes back as 1/250 and 28/10 as 14/5, the same value;
 * past 32-bit parts, the last convergent that fits. A zero denominator gives NaN (0/0, which lenses
 * write for an unknown aperture) or an infinity.
 */
function fraction(value: number): string {
  if (Number.isNaN(value)) return '0/0';
  const sign = value < 0 ? '-' : '';
  const magnitude = Math.abs(value);
  if (magnitude === Infinity) return `${sign}1/0`;
  // The last two convergents, h/k, starting from the continued fraction's seeds 0/1 and 1/0.
  let [h0, k0, h1, k1] = [0, 1, 1, 0];
  let rest = magnitude;
  while (h1 / k1 !== magnitude) {
    const term = Math.floor(rest);
    const [h, k] = [term * h1 + h0, term * k1 + k0];
    if (h > RATIONAL_PART_MAX || k > RATIONAL_PART_MAX) break;
    [h0, k0, h1, k1] = [h1, k1, h, k];
    rest = 1 / (rest - term);
  }
  return `${sign}${h1}/${k1}`;
}

/**
 * A date in EXIF's `YYYY:MM:DD HH:MM:SS`, as the source wrote it. exif-reader builds the Date with
 * Date.UTC from the source's digits, so its UTC fields give those digits back whatever the
 * server's time zone. Date.UTC takes year 0 as 1900 and rolls a zero month and day back, so the
 * `0000:00:00 00:00:00` of a camera whose clock was never set comes back in 1899: it is written
 * back as the camera wrote it.
 */
function exifDate(date: Date): string {
  if (date.getTime() === Date.UTC(0, -1, 0)) return '0000:00:00 00:00:00';
  const two = (part: number) => String(part).padStart(2, '0');
  const year = String(date.getUTCFullYear()).padStart(4, '0');
  const day = `${year}:${two(date.getUTCMonth() + 1)}:${two(date.getUTCDate())}`;
  return `${day} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}`;
}

function exifText(value: unknown): string | null {
  if (value instanceof Date) return exifDate(value);
  // exif-reader hands an ASCII field holding bytes above 127 (the UTF-8 some phones write) over as bytes.
  const text = Buffer.isBuffer(value) ? value.toString('utf8') : typeof value === 'string' ? value : '';
  // A Copyright may hold two texts split by a NUL (photographer, then editor): libvips takes C strings, so the first
  // is kept. Cameras pad Make and Model with spaces.
  return text.split('\0')[0].trim() || null;
}

/**
 * A value exif-reader decoded, in the string form libvips writes EXIF from (sharp's withExif):
 * text as it is, dates as EXIF writes them, whole numbers and fractions (`n/d`) separated by
 * spaces; null when the value is missing, empty, damaged or not of the field's kind.
 */
export function exifFieldText(value: unknown, kind: ExifFieldKind): string | null {
  if (kind === 'text') return exifText(value);
  const values: unknown[] = Array.isArray(value) ? value : [value];
  const numbers = values.filter((item): item is number => typeof item === 'number');
  if (numbers.length === 0 || numbers.length < values.length) return null;
  if (kind === 'fraction') return numbers.map(fraction).join(' ');
  return numbers.every(Number.isInteger) ? numbers.join(' ') : null;
}

function carriedFields(
  directory: Readonly<Record<string, unknown>> | null | undefined,
  carried: ReadonlyMap<string, ExifFieldKind>,
): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, kind] of carried) {
    const value = exifFieldText(directory?.[name], kind);
    if (value === null) continue;
    // libvips drops a trailing ` (...)` from text it is given (its notation for a value's type): an empty pair for it
    // to drop keeps a value that itself ends in parentheses ("Acme (2024)") whole.
    fields[name] = kind === 'text' ? `${value} ()` : value;
  }
  return fields;
}

/**
 * Values and entries exif-reader may decode per byte of the block. A camera's block stores each
 * value once, so it needs about one per byte; twice that leaves room for what writers share
 * between entries, and keeps a hostile block's cost linear in its size.
 */
const EXIF_READING_COST_PER_BYTE = 2;

/** What reading a block's carried fields gave: the fields (null for none), or why the block is not carried. */
export type ExifReading = { fields: ExifFields | null } | { dropped: string };

/**
 * The fields of `exif` (an EXIF block as sharp's metadata() returns it) a result keeps
 * (CARRIED_IMAGE_FIELDS, CARRIED_CAPTURE_FIELDS), null when it has none; a block exif-reader
 * would spend more than EXIF_READING_COST_PER_BYTE on, or cannot read at all, is not carried.
 */
export function carriedExifFields(exif: Uint8Array): ExifReading {
  const cost = exifReadingCost(exif);
  if (cost > EXIF_READING_COST_PER_BYTE * exif.length) {
    return { dropped: `the EXIF block asks for ${cost} values in ${exif.length} bytes` };
  }
  let read: exifReader.Exif;
  try {
    read = exifReader(Buffer.from(exif.buffer, exif.byteOffset, exif.byteLength));
  } catch (error) {
    return { dropped: `the EXIF block is not read: ${(error as Error).message}` };
  }
  const fields: ExifFields = {
    IFD0: carriedFields(read.Image, CARRIED_IMAGE_FIELDS),
    IFD2: carriedFields(read.Photo, CARRIED_CAPTURE_FIELDS),
  };
  return { fields: Object.keys(fields.IFD0).length + Object.keys(fields.IFD2).length > 0 ? fields : null };
}
