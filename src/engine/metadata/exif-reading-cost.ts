/**
 * What exif-reader (pinned at 2.0.3) would do with an EXIF block, counted before it is asked to.
 *
 * exif-reader reads five directories (IFD0, the thumbnail's IFD1, the EXIF, GPS and
 * interoperability directories; it follows no other pointer, so a directory pointing at itself
 * costs nothing more) and decodes every entry's values. An entry may claim up to 2^32 values at
 * any offset, and exif-reader builds an array of as many of them as the block holds: a 64 KiB
 * block of 5,000 entries each claiming the whole block asks for 300 million numbers. It offers no
 * limit of its own, so this walks the same structure the same way, counting instead of decoding,
 * in time linear in the block (at most a few thousand entries, each counted in constant time).
 */

/** Tags of the directories exif-reader follows from IFD0 and the EXIF directory. */
const EXIF_POINTER = 0x8769;
const GPS_POINTER = 0x8825;
const INTEROPERABILITY_POINTER = 0xa005;

/** Bytes per value of each TIFF type (1 BYTE to 10 SRATIONAL), as exif-reader sizes them. */
const VALUE_SIZES = [1, 1, 2, 4, 8, 1, 1, 2, 4, 8];
const ASCII = 2;
const UNDEFINED = 7;

interface Layout {
  block: Uint8Array;
  view: DataView;
  littleEndian: boolean;
  /** Where the TIFF header starts: offsets in the block count from here. */
  origin: number;
}

interface DirectoryCost {
  cost: number;
  /** Each entry's tag and its value where it is one positive whole number: where the pointers lead. */
  pointers: Map<number, number>;
}

/**
 * The number of values and entries exif-reader would materialise from `block` (an EXIF block as
 * sharp's metadata() returns it), or 0 for a block it would refuse at once.
 */
export function exifReadingCost(block: Uint8Array): number {
  const layout = layoutOf(block);
  if (!layout) return 0;
  const first = readUInt32(layout, layout.origin + 4);
  if (first === null || first < 8) return 0;
  const image = directoryCost(layout, first + layout.origin);
  let cost = image.cost;
  const entries = readUInt16(layout, first + layout.origin);
  const next = entries === null ? null : readUInt32(layout, first + layout.origin + 2 + entries * 12);
  if (next) cost += directoryCost(layout, next + layout.origin).cost;
  const exifAt = image.pointers.get(EXIF_POINTER);
  const gpsAt = image.pointers.get(GPS_POINTER);
  if (gpsAt) cost += directoryCost(layout, gpsAt + layout.origin).cost;
  if (exifAt) {
    const photo = directoryCost(layout, exifAt + layout.origin);
    cost += photo.cost;
    const interoperabilityAt = photo.pointers.get(INTEROPERABILITY_POINTER);
    if (interoperabilityAt) cost += directoryCost(layout, interoperabilityAt + layout.origin).cost;
  }
  return cost;
}

function layoutOf(block: Uint8Array): Layout | null {
  const text = (start: number, length: number) => String.fromCharCode(...block.subarray(start, start + length));
  const bare = text(0, 3) === 'MM\0' || text(0, 3) === 'II\x2a';
  if (!bare && text(0, 5) !== 'Exif\0') return null;
  const origin = bare ? 0 : 6;
  const order = text(origin, 2);
  if (order !== 'II' && order !== 'MM') return null;
  if (block.length <= origin + 8) return null;
  return {
    block,
    view: new DataView(block.buffer, block.byteOffset, block.byteLength),
    littleEndian: order === 'II',
    origin,
  };
}

/** One directory's entries and values, as exif-reader's readTags and readTag walk them. */
function directoryCost(layout: Layout, offset: number): DirectoryCost {
  const pointers = new Map<number, number>();
  const entries = readUInt16(layout, offset);
  if (entries === null) return { cost: 0, pointers };
  let cost = 0;
  for (let index = 0, at = offset + 2; index < entries; index++, at += 12) {
    const tag = readUInt16(layout, at);
    if (tag === null) break;
    cost += 1 + valuesCost(layout, at + 2);
    // A later entry of the same tag replaces an earlier one, as in exif-reader's result.
    const value = singleValue(layout, at + 2);
    if (value !== null && Number.isInteger(value) && value > 0) pointers.set(tag, value);
    else pointers.delete(tag);
  }
  return { cost, pointers };
}

/** The values exif-reader decodes for the entry whose type is at `at`. */
function valuesCost(layout: Layout, at: number): number {
  const { block } = layout;
  if (block.length < at + 7) return 0;
  const type = readUInt16(layout, at) ?? 0;
  if (type === 0 || type > VALUE_SIZES.length) return 0;
  const count = readUInt32(layout, at + 2) ?? 0;
  const size = VALUE_SIZES[type - 1];
  // Values of four bytes or fewer sit in the entry itself.
  if (size * count <= 4) return count;
  const offset = readUInt32(layout, at + 6);
  if (offset === null) return 0;
  const start = offset + layout.origin;
  const available = Math.max(0, block.length - start);
  // UNDEFINED is handed over as a view of the block; ASCII is scanned byte by byte; the rest become arrays.
  if (type === UNDEFINED) return 1;
  if (type === ASCII) return Math.min(count, available);
  if (count === 1) return 1;
  return Math.min(count, Math.ceil(available / size));
}

/** The number exif-reader decodes for an entry of one numeric value (type at `at`), else null. */
function singleValue(layout: Layout, at: number): number | null {
  const { block, view, littleEndian } = layout;
  if (block.length < at + 7) return null;
  const type = readUInt16(layout, at) ?? 0;
  if (type === 0 || type > VALUE_SIZES.length || type === ASCII || type === UNDEFINED) return null;
  if (readUInt32(layout, at + 2) !== 1) return null;
  const size = VALUE_SIZES[type - 1];
  // A value of four bytes or fewer sits in the entry; a larger one where the entry points.
  const pointed = size > 4 ? readUInt32(layout, at + 6) : null;
  const offset = size > 4 ? (pointed === null ? -1 : pointed + layout.origin) : at + 6;
  if (offset < 0 || offset + size > block.length) return null;
  switch (type) {
    case 1:
      return view.getUint8(offset);
    case 3:
      return view.getUint16(offset, littleEndian);
    case 4:
      return view.getUint32(offset, littleEndian);
    case 5:
      return view.getUint32(offset, littleEndian) / view.getUint32(offset + 4, littleEndian);
    case 6:
      return view.getInt8(offset);
    case 8:
      return view.getInt16(offset, littleEndian);
    case 9:
      return view.getInt32(offset, littleEndian);
    default:
      return view.getInt32(offset, littleEndian) / view.getInt32(offset + 4, littleEndian);
  }
}

function readUInt16({ view, littleEndian }: Layout, at: number): number | null {
  return at >= 0 && at + 2 <= view.byteLength ? view.getUint16(at, littleEndian) : null;
}

function readUInt32({ view, littleEndian }: Layout, at: number): number | null {
  return at >= 0 && at + 4 <= view.byteLength ? view.getUint32(at, littleEndian) : null;
}
