import { readExifDirectories } from './exif-directories';

/** One directory entry: tag, TIFF type, value count, and the value's bytes (inline when 4 or fewer). */
interface Entry {
  tag: number;
  type: number;
  count: number;
  bytes: number[];
}

/** Whole numbers as bytes in a block's byte order. */
function byteOrder(littleEndian: boolean) {
  const u16 = (value: number) => (littleEndian ? [value & 255, value >> 8] : [value >> 8, value & 255]);
  const u32 = (value: number) => {
    const bytes = [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
    return littleEndian ? bytes.reverse() : bytes;
  };
  return { u16, u32 };
}

/**
 * A TIFF block laid out by hand: header, IFD0 at 8, the EXIF sub-directory after it, out-of-line
 * values at the end. `pointerTo` overrides where IFD0's EXIF pointer points (for damaged blocks).
 */
function tiffBlock(
  littleEndian: boolean,
  image: Entry[],
  capture: Entry[],
  { pointerTo }: { pointerTo?: number } = {},
): Buffer {
  const { u16, u32 } = byteOrder(littleEndian);
  const directoryBytes = (entries: Entry[]) => 2 + entries.length * 12 + 4;
  const imageEntries = [...image, { tag: 0x8769, type: 4, count: 1, bytes: [] }];
  const captureAt = 8 + directoryBytes(imageEntries);
  let valuesAt = captureAt + directoryBytes(capture);
  const values: number[] = [];
  const directory = (entries: Entry[]) => {
    const out = [...u16(entries.length)];
    for (const entry of entries) {
      const pointer = entry.tag === 0x8769;
      out.push(...u16(entry.tag), ...u16(entry.type), ...u32(entry.count));
      if (pointer) out.push(...u32(pointerTo ?? captureAt));
      else if (entry.bytes.length <= 4) out.push(...entry.bytes, ...new Array<number>(4 - entry.bytes.length).fill(0));
      else {
        out.push(...u32(valuesAt));
        values.push(...entry.bytes);
        valuesAt += entry.bytes.length;
      }
    }
    return [...out, ...u32(0)];
  };
  const header = [...(littleEndian ? [0x49, 0x49] : [0x4d, 0x4d]), ...u16(42), ...u32(8)];
  return Buffer.from([...header, ...directory(imageEntries), ...directory(capture), ...values]);
}

/** The entries of both directories: text, a SHORT inline, rationals out of line, and an entry not carried. */
function entries(littleEndian: boolean) {
  const { u16, u32 } = byteOrder(littleEndian);
  const ascii = (tag: number, text: string): Entry => ({
    tag,
    type: 2,
    count: text.length + 1,
    bytes: [...Buffer.from(text, 'latin1'), 0],
  });
  return {
    image: [
      ascii(0x8298, 'Acme Photo (2024)'),
      ascii(0x013b, 'Ann'),
      { tag: 0x0112, type: 3, count: 1, bytes: u16(6) },
    ],
    capture: [
      { tag: 0x829a, type: 5, count: 1, bytes: [...u32(1), ...u32(125)] },
      { tag: 0x8827, type: 3, count: 1, bytes: u16(200) },
      { tag: 0x9204, type: 10, count: 1, bytes: [...u32(-1 >>> 0), ...u32(3)] },
      { tag: 0xa432, type: 5, count: 2, bytes: [...u32(24), ...u32(1), ...u32(70), ...u32(1)] },
      // An UNDEFINED entry (a maker note, say) is not carried.
      { tag: 0x927c, type: 7, count: 6, bytes: [1, 2, 3, 4, 5, 6] },
    ],
  };
}

const EXPECTED = {
  image: [
    [0x8298, { value: 'Acme Photo (2024)', text: true }],
    [0x013b, { value: 'Ann', text: true }],
    [0x0112, { value: '6', text: false }],
  ],
  capture: [
    [0x829a, { value: '1/125', text: false }],
    [0x8827, { value: '200', text: false }],
    [0x9204, { value: '-1/3', text: false }],
    [0xa432, { value: '24/1 70/1', text: false }],
  ],
};

describe(readExifDirectories.name, () => {
  it.each([
    ['little-endian', true],
    ['big-endian', false],
  ])('reads text, whole numbers and rationals of both directories, %s', (_order, littleEndian) => {
    const { image, capture } = entries(littleEndian);
    const read = readExifDirectories(tiffBlock(littleEndian, image, capture));
    expect([...read.image]).toEqual(EXPECTED.image);
    expect([...read.capture]).toEqual(EXPECTED.capture);
  });

  it("skips the `Exif\\0\\0` prefix of a JPEG's or WebP's block", () => {
    const { image, capture } = entries(true);
    const block = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiffBlock(true, image, capture)]);
    expect([...readExifDirectories(block).image]).toEqual(EXPECTED.image);
  });

  it('reads what it can of a damaged block and never throws', () => {
    const { image, capture } = entries(true);
    const whole = tiffBlock(true, image, capture);
    // The EXIF pointer leads outside the block: IFD0 is still read.
    const astray = readExifDirectories(tiffBlock(true, image, capture, { pointerTo: 1_000_000 }));
    expect([...astray.image]).toEqual(EXPECTED.image);
    expect(astray.capture.size).toBe(0);
    // Cut at every length: out-of-line values and whole directories go missing, nothing throws.
    for (let length = 0; length <= whole.length; length++) {
      expect(() => readExifDirectories(whole.subarray(0, length))).not.toThrow();
    }
    expect(readExifDirectories(Buffer.from('not exif at all')).image.size).toBe(0);
  });
});
