import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/**
 * Small image files whose metadata is built to make a parser work hard or fail: what an attacker
 * with an API key would send. Each is a real, decodable photo (a grey square) with one hostile
 * block spliced into it, written by hand here because no encoder would write them.
 */

const EXIF_NAMESPACE = 'http://ns.adobe.com/exif/1.0/';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/** A plain photo to splice blocks into. */
const grey = () => sharp({ create: { width: 64, height: 48, channels: 3, background: '#7a8088' } });

/** One PNG chunk: length, type, data, CRC of type and data. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed) >>> 0);
  return Buffer.concat([length, typed, crc]);
}

/** A grey PNG with `chunks` right after its header chunk (IHDR ends at byte 33). */
export async function pngWith(...chunks: Buffer[]): Promise<Buffer> {
  const png = await grey().png().toBuffer();
  return Buffer.concat([png.subarray(0, 33), ...chunks, png.subarray(33)]);
}

/** An iTXt chunk holding an XMP packet, compressed as PNG allows: a few kilobytes for megabytes of packet. */
export const compressedXmpChunk = (packet: string) =>
  pngChunk(
    'iTXt',
    Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\x01\x00\0\0', 'latin1'), deflateSync(packet, { level: 9 })]),
  );

/**
 * A zTXt chunk of `megabytes` of spaces deflated into about a thousandth of that: libspng
 * inflates it at every header read unless the service takes it out first.
 */
export const textBombChunk = (megabytes: number) =>
  pngChunk(
    'zTXt',
    Buffer.concat([
      Buffer.from('Comment\0\0', 'latin1'),
      deflateSync(Buffer.alloc(megabytes * 1e6, 0x20), { level: 9 }),
    ]),
  );

/** An iCCP chunk: a profile name, compression method 0, the deflated profile. */
export const iccChunk = (profile: Buffer) =>
  pngChunk('iCCP', Buffer.concat([Buffer.from('hostile\0\0', 'latin1'), deflateSync(profile, { level: 9 })]));

/** One JPEG marker segment (APPn and the like): marker, length (its own two bytes included), payload. */
function jpegSegment(marker: number, payload: Buffer): Buffer {
  if (payload.length + 2 > 0xffff) throw new Error('a JPEG segment holds at most 65,533 bytes');
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/** A grey JPEG with `segments` right after its start-of-image marker. */
async function jpegWith(...segments: Buffer[]): Promise<Buffer> {
  const jpeg = await grey().jpeg().toBuffer();
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}

/** A packet binding the `exif:` namespace, with `body` inside its description. */
const xmpPacket = (attributes: string, body: string) =>
  `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="${RDF}"><rdf:Description rdf:about="" ` +
  `xmlns:exif="${EXIF_NAMESPACE}" xmlns:dc="http://purl.org/dc/elements/1.1/"${attributes}>${body}` +
  `</rdf:Description></rdf:RDF></x:xmpmeta>`;

/** A little-endian TIFF structure (an EXIF block's body) from its directories, laid out as given. */
interface Entry {
  tag: number;
  type: number;
  count: number;
  /** The value itself when it fits in four bytes, else the offset of the values. */
  value: number;
}

function tiffDirectory(entries: Entry[], next: number): Buffer {
  const directory = Buffer.alloc(2 + entries.length * 12 + 4);
  directory.writeUInt16LE(entries.length, 0);
  entries.forEach(({ tag, type, count, value }, index) => {
    const at = 2 + index * 12;
    directory.writeUInt16LE(tag, at);
    directory.writeUInt16LE(type, at + 2);
    directory.writeUInt32LE(count, at + 4);
    directory.writeUInt32LE(value, at + 8);
  });
  directory.writeUInt32LE(next, 2 + entries.length * 12);
  return directory;
}

/** `Exif\0\0`, a little-endian TIFF header pointing at offset 8, then IFD0 and whatever follows. */
function exifBlock(ifd0: Buffer, rest: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.concat([Buffer.from('Exif\0\0II\x2a\0\x08\0\0\0', 'latin1'), ifd0, rest]);
}

const ASCII = 2;
const LONG = 4;
const EXIF_POINTER = 0x8769;

/**
 * IFD0 names itself as its successor and as the EXIF directory: a reader that followed pointers
 * without a bound would go round for ever.
 */
function exifLoop(): Buffer {
  const make = Buffer.from('Loop Camera Co\0', 'latin1');
  const entries: Entry[] = [
    { tag: 0x010f, type: ASCII, count: make.length, value: 8 + 2 + 2 * 12 + 4 },
    { tag: EXIF_POINTER, type: LONG, count: 1, value: 8 },
  ];
  return exifBlock(tiffDirectory(entries, 8), make);
}

/**
 * A block of thousands of entries, each claiming 2^32 values that start at the block's first byte:
 * a reader that decodes what it is told builds an array of the whole block for each.
 */
function exifAmplifier(): Buffer {
  const entries = Array.from({ length: 5000 }, (_, index) => ({
    tag: 0x9000 + index,
    type: 1,
    count: 0xffffffff,
    value: 0,
  }));
  return exifBlock(tiffDirectory(entries, 0));
}

/**
 * A grey PNG whose eXIf chunk holds an ImageDescription of `length` characters and an Artist,
 * built by hand: asked for a block over 64 KiB, libvips (8.18) writes a broken one instead.
 */
export async function pngWithLongDescription(length: number): Promise<Buffer> {
  const description = Buffer.from(`${'d'.repeat(length)}\0`, 'latin1');
  const artist = Buffer.from('Ann\0', 'latin1');
  const values = 8 + 2 + 2 * 12 + 4;
  const ifd0 = tiffDirectory(
    [
      { tag: 0x010e, type: ASCII, count: description.length, value: values },
      { tag: 0x013b, type: ASCII, count: artist.length, value: values + description.length },
    ],
    0,
  );
  // A PNG's eXIf chunk holds the TIFF structure without the `Exif\0\0` a JPEG's APP1 starts with.
  return pngWith(pngChunk('eXIf', exifBlock(ifd0, Buffer.concat([description, artist])).subarray(6)));
}

/** A real ICC profile, as libvips embeds it: the small sRGB one sharp ships. */
async function srgbProfile(): Promise<Buffer> {
  const { icc } = await sharp(await grey().withIccProfile('srgb').png().toBuffer()).metadata();
  if (!icc) throw new Error('libvips embedded no profile');
  return icc;
}

export interface HostileFile {
  /** What it is, for test names and logs. */
  name: string;
  bytes: Buffer;
  /** The block it attacks; `text` is a PNG text chunk, which the service reads none of. */
  block: 'XMP' | 'EXIF' | 'ICC' | 'text';
  /**
   * When the service leaves the block out of a result that keeps metadata (and logs it): for any
   * result, only for a JPEG one (which holds less), or never (read within its bounds and kept).
   * An ICC profile left out is one the source's pixels are not converted by.
   */
  leftOut: 'always' | 'jpg' | 'never';
}

/**
 * The fuzz set: every shape of hostile metadata the service must read within its bounds, each in
 * a file of a few kilobytes (the XMP ones compressed in PNG's iTXt, as the attack was sent).
 */
export async function hostileMetadataFiles(): Promise<HostileFile[]> {
  const profile = await srgbProfile();
  const lyingProfile = Buffer.from(profile);
  lyingProfile.writeUInt32BE(0x7fffffff, 0);
  const oversizedProfile = Buffer.concat([profile, Buffer.alloc(20_000_000)]);
  oversizedProfile.writeUInt32BE(oversizedProfile.length, 0);
  const files: Array<[string, HostileFile['block'], HostileFile['leftOut'], Promise<Buffer>]> = [
    [
      'a 2 MB run of white space in the exif description',
      'XMP',
      'always',
      pngWith(compressedXmpChunk(xmpPacket(' '.repeat(2_000_000), ''))),
    ],
    [
      'a run of white space just within the XMP read limit',
      'XMP',
      'never',
      pngWith(compressedXmpChunk(xmpPacket(' '.repeat(1_000_000), ''))),
    ],
    [
      'thousands of properties opened and never closed',
      'XMP',
      'always',
      pngWith(compressedXmpChunk(xmpPacket('', '<exif:GPSAltitude>'.repeat(50_000)))),
    ],
    [
      'thousands of nested properties, closed',
      'XMP',
      'always',
      pngWith(compressedXmpChunk(xmpPacket('', `${'<exif:Flash>'.repeat(40_000)}1${'</exif:Flash>'.repeat(40_000)}`))),
    ],
    [
      'thousands of sibling properties, half of them removed',
      'XMP',
      'jpg',
      pngWith(
        compressedXmpChunk(
          xmpPacket('', '<exif:GPSAltitude>1</exif:GPSAltitude><dc:title>t</dc:title>'.repeat(15_000)),
        ),
      ),
    ],
    [
      'huge attribute values, one removed and one kept',
      'XMP',
      'jpg',
      pngWith(
        compressedXmpChunk(
          xmpPacket(` exif:GPSVersionID="${'9'.repeat(800_000)}" dc:source="${'s'.repeat(100_000)}"`, ''),
        ),
      ),
    ],
    [
      'a truncated packet',
      'XMP',
      'always',
      pngWith(compressedXmpChunk(xmpPacket('', '<dc:title>cut</dc:title>').slice(0, 150))),
    ],
    [
      'an XMP packet that is not XML',
      'XMP',
      'always',
      pngWith(compressedXmpChunk(`{"xmp": "JSON, not XML"} <<<${'&'.repeat(1000)}>>>`)),
    ],
    [
      'an XMP packet over the read limit',
      'XMP',
      'always',
      pngWith(compressedXmpChunk(xmpPacket(` dc:source="${'x'.repeat(3_000_000)}"`, ''))),
    ],
    ['a 40 MB text chunk compressed into 40 KB', 'text', 'never', pngWith(textBombChunk(40))],
    ['an EXIF directory pointing at itself', 'EXIF', 'never', jpegWith(jpegSegment(0xe1, exifLoop()))],
    [
      'an EXIF block whose entries claim 2^32 values each',
      'EXIF',
      'always',
      jpegWith(jpegSegment(0xe1, exifAmplifier())),
    ],
    ['an oversized ICC profile (20 MB, compressed)', 'ICC', 'always', pngWith(iccChunk(oversizedProfile))],
    ['an ICC profile whose header lies about its size', 'ICC', 'always', pngWith(iccChunk(lyingProfile))],
    [
      'an ICC chunk that holds no profile',
      'ICC',
      'always',
      pngWith(iccChunk(Buffer.from('not a colour profile at all '.repeat(20)))),
    ],
  ];
  return Promise.all(
    files.map(async ([name, block, leftOut, bytes]) => ({ name, block, leftOut, bytes: await bytes })),
  );
}
