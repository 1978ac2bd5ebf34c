/**
 * The entries of an EXIF block's main image directory (IFD0) and of its EXIF sub-directory, read
 * from the TIFF structure that sharp's metadata() returns (with the `Exif\0\0` prefix of JPEG and
 * WebP, or bare as in PNG). Each value is given in the string form libvips writes EXIF from
 * (sharp's withExif): text as it is, whole numbers separated by spaces, rationals as `n/d`.
 * Entries of any other type are skipped. Every read is bounds-checked, since the block comes from
 * a client's file: a damaged block yields what could be read, never an exception.
 */
export interface ExifEntry {
  value: string;
  /** Whether the value is text (ASCII), rather than numbers. */
  text: boolean;
}

export interface ExifDirectories {
  /** IFD0, by tag number. */
  image: Map<number, ExifEntry>;
  /** The EXIF sub-directory (camera and capture settings), by tag number. */
  capture: Map<number, ExifEntry>;
}

/** Tag of IFD0's pointer to the EXIF sub-directory. */
const EXIF_POINTER = 0x8769;
const ENTRY_BYTES = 12;
const EXIF_PREFIX = Buffer.from('Exif\0\0', 'latin1');

/** TIFF field types the service carries, with the bytes one value takes. */
enum FieldType {
  Ascii = 2,
  Short = 3,
  Long = 4,
  Rational = 5,
  SignedShort = 8,
  SignedLong = 9,
  SignedRational = 10,
  /** An offset to a directory, as some writers type the EXIF pointer. */
  Directory = 13,
}
const VALUE_BYTES: Record<FieldType, number> = {
  [FieldType.Ascii]: 1,
  [FieldType.Short]: 2,
  [FieldType.Long]: 4,
  [FieldType.Rational]: 8,
  [FieldType.SignedShort]: 2,
  [FieldType.SignedLong]: 4,
  [FieldType.SignedRational]: 8,
  [FieldType.Directory]: 4,
};

/** A TIFF structure and its byte order; offsets are from the TIFF header, as the format counts them. */
class TiffReader {
  constructor(
    private readonly view: DataView,
    private readonly littleEndian: boolean,
  ) {}

  fits(offset: number, bytes: number): boolean {
    return offset >= 0 && bytes >= 0 && offset + bytes <= this.view.byteLength;
  }
  u16(offset: number): number {
    return this.view.getUint16(offset, this.littleEndian);
  }
  u32(offset: number): number {
    return this.view.getUint32(offset, this.littleEndian);
  }
  i16(offset: number): number {
    return this.view.getInt16(offset, this.littleEndian);
  }
  i32(offset: number): number {
    return this.view.getInt32(offset, this.littleEndian);
  }
  text(offset: number, length: number): string {
    const bytes = new Uint8Array(this.view.buffer, this.view.byteOffset + offset, length);
    const end = bytes.indexOf(0);
    return Buffer.from(end < 0 ? bytes : bytes.subarray(0, end))
      .toString('utf8')
      .trim();
  }
}

/** One value of a numeric entry, in libvips' notation. */
function numberAt(tiff: TiffReader, type: FieldType, offset: number): string {
  switch (type) {
    case FieldType.Short:
      return String(tiff.u16(offset));
    case FieldType.Long:
    case FieldType.Directory:
      return String(tiff.u32(offset));
    case FieldType.SignedShort:
      return String(tiff.i16(offset));
    case FieldType.SignedLong:
      return String(tiff.i32(offset));
    case FieldType.Rational:
      return `${tiff.u32(offset)}/${tiff.u32(offset + 4)}`;
    default:
      return `${tiff.i32(offset)}/${tiff.i32(offset + 4)}`;
  }
}

/** The entries of the directory at `offset` whose type is carried; values of up to 4 bytes sit in the entry itself. */
function readDirectory(tiff: TiffReader, offset: number): Map<number, ExifEntry> {
  const entries = new Map<number, ExifEntry>();
  if (!tiff.fits(offset, 2)) return entries;
  const count = tiff.u16(offset);
  for (let i = 0; i < count; i++) {
    const entry = offset + 2 + i * ENTRY_BYTES;
    if (!tiff.fits(entry, ENTRY_BYTES)) break;
    const type = tiff.u16(entry + 2) as FieldType;
    const valueBytes = VALUE_BYTES[type];
    if (valueBytes === undefined) continue;
    const values = tiff.u32(entry + 4);
    const size = values * valueBytes;
    const start = size <= 4 ? entry + 8 : tiff.u32(entry + 8);
    if (values === 0 || !tiff.fits(start, size)) continue;
    const text = type === FieldType.Ascii;
    const value = text
      ? tiff.text(start, size)
      : Array.from({ length: values }, (_, v) => numberAt(tiff, type, start + v * valueBytes)).join(' ');
    entries.set(tiff.u16(entry), { value, text });
  }
  return entries;
}

export function readExifDirectories(exif: Buffer): ExifDirectories {
  const empty: ExifDirectories = { image: new Map(), capture: new Map() };
  const start = exif.subarray(0, EXIF_PREFIX.length).equals(EXIF_PREFIX) ? EXIF_PREFIX.length : 0;
  const block = exif.subarray(start);
  if (block.length < 8) return empty;
  const order = block.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return empty;
  const tiff = new TiffReader(new DataView(block.buffer, block.byteOffset, block.length), order === 'II');
  if (tiff.u16(2) !== 42) return empty;
  const image = readDirectory(tiff, tiff.u32(4));
  const pointer = Number(image.get(EXIF_POINTER)?.value);
  image.delete(EXIF_POINTER);
  const capture =
    Number.isInteger(pointer) && pointer > 0 ? readDirectory(tiff, pointer) : new Map<number, ExifEntry>();
  return { image, capture };
}
