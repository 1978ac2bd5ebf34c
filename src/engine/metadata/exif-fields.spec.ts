import exifReader from 'exif-reader';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import sharp from 'sharp';
import { carriedExifFields, exifFieldText, type ExifFields } from './exif-fields';
import { exifReadingCost } from './exif-reading-cost';

const grey = () => sharp({ create: { width: 30, height: 20, channels: 3, background: '#808080' } });

/** The EXIF block sharp's metadata() reads from a JPEG written with `fields`: `Exif\0\0`, then the TIFF structure. */
async function exifBlock(fields: Parameters<sharp.Sharp['withExif']>[0]): Promise<Buffer> {
  const { exif } = await sharp(await grey().withExif(fields).jpeg().toBuffer()).metadata();
  if (!exif) throw new Error('libvips wrote no EXIF');
  return exif;
}

/**
 * A camera's EXIF, as libvips writes it from sharp's withExif: every carried field, in text,
 * whole numbers, fractions (an unknown aperture of a zoom as 0/0) and dates, and what is left
 * behind: orientation, serial number, owner, GPS.
 */
const CAMERA = {
  IFD0: {
    ImageDescription: 'Red mug on oak',
    Make: 'Test Camera Co',
    Model: 'TC-1 (Mk II) ()',
    Software: 'Firmware 1.2',
    DateTime: '2024:03:05 14:07:09',
    Artist: 'Ann',
    Copyright: 'Acme Photo (2024) ()',
    Orientation: '6',
  },
  IFD2: {
    ExposureTime: '1/250',
    FNumber: '28/10',
    ExposureProgram: '3',
    ISOSpeedRatings: '400',
    DateTimeOriginal: '2024:03:05 14:07:08',
    DateTimeDigitized: '2023:12:31 23:59:59',
    OffsetTime: '+09:00',
    OffsetTimeOriginal: '-05:30',
    OffsetTimeDigitized: '+00:00',
    ShutterSpeedValue: '7965784/1000000',
    ApertureValue: '2970854/1000000',
    BrightnessValue: '-123/100',
    ExposureBiasValue: '-1/3',
    MaxApertureValue: '297/100',
    MeteringMode: '5',
    LightSource: '0',
    Flash: '16',
    FocalLength: '50/1',
    SubSecTimeOriginal: '05',
    SubSecTimeDigitized: '999',
    ExposureMode: '0',
    WhiteBalance: '1',
    DigitalZoomRatio: '0/1',
    FocalLengthIn35mmFilm: '75',
    SceneCaptureType: '0',
    Contrast: '1',
    Saturation: '2',
    Sharpness: '0',
    LensSpecification: '24/1 70/1 0/0 0/0',
    LensMake: 'Lens Co',
    LensModel: 'Zoom 24-70mm F2.8',
    BodySerialNumber: '0042-1234',
    CameraOwnerName: 'Ann Example',
  },
  IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 30/1' },
};
const LEFT_BEHIND = { IFD0: ['Orientation'], IFD2: ['BodySerialNumber', 'CameraOwnerName'] };

/** The fields carried from `source`, in a result written with them, as exif-reader decodes it. */
async function carriedInto(source: Buffer): Promise<{ carried: ExifFields; result: exifReader.Exif }> {
  const carried = fieldsOf(source);
  if (!carried) throw new Error('nothing carried');
  return { carried, result: exifReader(await exifBlock(carried)) };
}

/** The carried fields of a block that is read; a block that is not read fails the test. */
function fieldsOf(block: Uint8Array): ExifFields | null {
  const reading = carriedExifFields(block);
  if ('dropped' in reading) throw new Error(reading.dropped);
  return reading.fields;
}

/** Where IFD0's EXIF pointer (tag 0x8769) keeps its offset in a bare TIFF block. */
function exifPointerAt(tiff: Buffer): number {
  const littleEndian = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number) => (littleEndian ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const ifd0 = littleEndian ? tiff.readUInt32LE(4) : tiff.readUInt32BE(4);
  for (let entry = ifd0 + 2; entry < ifd0 + 2 + u16(ifd0) * 12; entry += 12)
    if (u16(entry) === 0x8769) return entry + 8;
  throw new Error('no EXIF pointer');
}

describe(carriedExifFields.name, () => {
  it("writes every carried field so that the result states the source's values, and nothing left behind", async () => {
    const block = await exifBlock(CAMERA);
    const source = exifReader(block);
    const { carried, result } = await carriedInto(block);

    const rows = [
      ...Object.keys(carried.IFD0).map((name) => ['Image', name, carried.IFD0[name]] as const),
      ...Object.keys(carried.IFD2).map((name) => ['Photo', name, carried.IFD2[name]] as const),
    ];
    console.log(
      'field                  written for libvips          source as decoded   result as decoded\n' +
        rows
          .map(
            ([directory, name, written]) =>
              `${name.padEnd(22)} ${written.padEnd(28)} ${String(source[directory]?.[name]).padEnd(19)} ` +
              String(result[directory]?.[name]),
          )
          .join('\n'),
    );
    for (const directory of ['IFD0', 'IFD2'] as const) {
      const kept = Object.keys(CAMERA[directory]).filter((name) => !LEFT_BEHIND[directory].includes(name));
      expect(Object.keys(carried[directory]).sort()).toEqual(kept.sort());
    }
    // Decoded alike: fractions as the same quotients, dates as the same instants (toEqual holds NaN, 0/0, equal).
    for (const [directory, name] of rows)
      expect([name, result[directory]?.[name]]).toEqual([name, source[directory]?.[name]]);
    expect(result.Photo?.ExposureTime).toBe(1 / 250);

    expect(carried.IFD2).toMatchObject({
      ExposureTime: '1/250',
      FNumber: '14/5',
      ExposureBiasValue: '-1/3',
      BrightnessValue: '-123/100',
      ShutterSpeedValue: '995723/125000',
      LensSpecification: '24/1 70/1 0/0 0/0',
      ISOSpeedRatings: '400',
      DateTimeOriginal: '2024:03:05 14:07:08 ()',
      OffsetTimeOriginal: '-05:30 ()',
    });
    expect(carried.IFD0).toMatchObject({ DateTime: '2024:03:05 14:07:09 ()', Model: 'TC-1 (Mk II) ()' });
    expect(result.Image?.Orientation).toBe(1);
    expect(result.GPSInfo).toBeUndefined();
    expect(result.Photo).not.toHaveProperty('BodySerialNumber');
    expect(result.Photo).not.toHaveProperty('CameraOwnerName');
  });

  it("writes dates as the source states them, whatever the server's time zone", async () => {
    const block = await exifBlock({
      IFD0: { DateTime: '2024:12:31 23:59:59' },
      IFD2: { DateTimeOriginal: '2024:01:01 00:00:00', DateTimeDigitized: '0000:00:00 00:00:00' },
    });
    // Jest's sandbox keeps a copy of the environment, so the zones are set in a process of their own.
    const zones = { 'Pacific/Chatham': -825, 'America/St_Johns': 210, UTC: 0 };
    const script = `
      const block = Buffer.from('${block.toString('base64')}', 'base64');
      const { carriedExifFields } = require(${JSON.stringify(require.resolve('./exif-fields'))});
      const read = ${JSON.stringify(Object.keys(zones))}.map((zone) => {
        process.env.TZ = zone;
        return [zone, new Date(Date.UTC(2024, 0, 1)).getTimezoneOffset(), carriedExifFields(block).fields];
      });
      process.stdout.write(JSON.stringify(read));`;
    const output = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
      env: { ...process.env, TS_NODE_PROJECT: join(__dirname, '../../../tsconfig.json') },
    });
    const expected = {
      IFD0: { DateTime: '2024:12:31 23:59:59 ()' },
      // A camera whose clock was never set writes zeros: written back as they are.
      IFD2: { DateTimeOriginal: '2024:01:01 00:00:00 ()', DateTimeDigitized: '0000:00:00 00:00:00 ()' },
    };
    expect(JSON.parse(output.toString('utf8'))).toEqual(
      Object.entries(zones).map(([zone, minutesBehindUtc]) => [zone, minutesBehindUtc, expected]),
    );
  });

  it('gives back every fraction up to 300/300 in lowest terms, and the large ones cameras write', () => {
    const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
    const wrong: string[] = [];
    const check = (numerator: number, denominator: number) => {
      const divisor = gcd(Math.abs(numerator), denominator);
      const expected = `${numerator / divisor}/${denominator / divisor}`;
      const text = exifFieldText(numerator / denominator, 'fraction');
      if (text !== expected) wrong.push(`${numerator}/${denominator} gave ${text}`);
    };
    for (let denominator = 1; denominator <= 300; denominator++)
      for (let numerator = -300; numerator <= 300; numerator++) check(numerator, denominator);
    for (const [numerator, denominator] of [
      [7965784, 1000000],
      [2970854, 1000000],
      [-2147483648, 1],
      [1, 4294967295],
      [1, 8000],
      [30, 1],
      [4294967295, 3],
      [1234567, 10000000],
    ])
      check(numerator, denominator);
    expect(wrong).toEqual([]);
    expect([NaN, Infinity, -Infinity].map((quotient) => exifFieldText(quotient, 'fraction'))).toEqual([
      '0/0',
      '1/0',
      '-1/0',
    ]);
  });

  it('carries text, whole numbers and fractions only as their kind', () => {
    expect(exifFieldText([24, 70, NaN, NaN], 'fraction')).toBe('24/1 70/1 0/0 0/0');
    expect(exifFieldText([100, 200], 'whole')).toBe('100 200');
    expect(exifFieldText(2.5, 'whole')).toBeNull();
    expect(exifFieldText([1, null], 'whole')).toBeNull();
    expect(exifFieldText('16', 'whole')).toBeNull();
    expect(exifFieldText(16, 'text')).toBeNull();
    // A Copyright's photographer, before the NUL and its editor; padding trimmed; nothing left, nothing carried.
    expect(exifFieldText('Ann\0Bob Editor', 'text')).toBe('Ann');
    expect(exifFieldText('  Test Camera Co  ', 'text')).toBe('Test Camera Co');
    expect(exifFieldText('   ', 'text')).toBeNull();
  });

  it('reads the UTF-8 some phones write into text fields', async () => {
    const block = await exifBlock({ IFD0: { Artist: 'Rene Xx' } });
    // libvips writes ASCII only: put the two bytes of an é in place of "Xx", as a phone would write "René".
    const at = block.indexOf('Xx', 0, 'latin1');
    block.set([0xc3, 0xa9], at);
    expect(fieldsOf(block)).toEqual({ IFD0: { Artist: 'Rene \u00e9 ()' }, IFD2: {} });
  });

  it('reads the bare TIFF block of a PNG as the prefixed one of a JPEG', async () => {
    const block = await exifBlock(CAMERA);
    const bare = block.subarray('Exif\0\0'.length);
    expect(bare.toString('latin1', 0, 2)).toBe('II');
    expect(fieldsOf(bare)).toEqual(fieldsOf(block));
  });

  it('carries nothing from a damaged or truncated block, and never throws', async () => {
    const block = await exifBlock(CAMERA);
    const whole = fieldsOf(block);
    // The EXIF pointer leads outside the block: IFD0 is still read.
    const astray = Buffer.from(block);
    astray.writeUInt32LE(1_000_000, 'Exif\0\0'.length + exifPointerAt(block.subarray('Exif\0\0'.length)));
    expect(fieldsOf(astray)).toEqual({ IFD0: whole?.IFD0, IFD2: {} });
    // Cut at every length: headers, directories and values go missing, nothing throws.
    let unread = 0;
    for (let length = 0; length <= block.length; length++) {
      const cut = block.subarray(0, length);
      expect(() => carriedExifFields(cut)).not.toThrow();
      const reading = carriedExifFields(cut);
      if ('dropped' in reading || reading.fields === null) unread++;
    }
    console.log(
      `cuts of a ${block.length}-byte block: ${unread} carry nothing, ${block.length + 1 - unread} carry some`,
    );
    expect(carriedExifFields(block.subarray(0, 10))).toEqual({ dropped: expect.stringContaining('not read') });
    expect(carriedExifFields(Buffer.from('not exif at all'))).toEqual({ dropped: expect.stringContaining('not read') });
    expect(carriedExifFields(Buffer.from('Exif\0\0XX*\0', 'latin1'))).toEqual({
      dropped: expect.stringContaining('not read'),
    });
  });
});

describe(exifReadingCost.name, () => {
  it("counts about a value a byte for a camera's block", async () => {
    const block = await exifBlock(CAMERA);
    expect(exifReadingCost(block)).toBeGreaterThan(40);
    expect(exifReadingCost(block)).toBeLessThanOrEqual(block.length);
  });

  it('counts what exif-reader would build for entries that claim the whole block, and refuses to read it', () => {
    // 2,000 entries of BYTE values claiming 2^32 each from the block's first byte: exif-reader would build 2,000
    // arrays of the whole block (48 million numbers).
    const entries = 2000;
    const directory = Buffer.alloc(2 + entries * 12 + 4);
    directory.writeUInt16LE(entries, 0);
    for (let index = 0; index < entries; index++) {
      directory.writeUInt16LE(0x9000 + index, 2 + index * 12);
      directory.writeUInt16LE(1, 4 + index * 12);
      directory.writeUInt32LE(0xffffffff, 6 + index * 12);
    }
    const block = Buffer.concat([Buffer.from('Exif\0\0II\x2a\0\x08\0\0\0', 'latin1'), directory]);
    const cost = exifReadingCost(block);
    expect(cost).toBeGreaterThan(entries * (block.length - 6 - 8));
    expect(carriedExifFields(block)).toEqual({
      dropped: `the EXIF block asks for ${cost} values in ${block.length} bytes`,
    });
  });

  it('follows each directory once, as exif-reader does, however the pointers loop', () => {
    // IFD0 names itself as the next directory and as the EXIF directory: IFD0 counted three times, then no more.
    const directory = Buffer.alloc(2 + 12 + 4);
    directory.writeUInt16LE(1, 0);
    directory.writeUInt16LE(0x8769, 2);
    directory.writeUInt16LE(4, 4);
    directory.writeUInt32LE(1, 6);
    directory.writeUInt32LE(8, 10);
    directory.writeUInt32LE(8, 14);
    const block = Buffer.concat([Buffer.from('II\x2a\0\x08\0\0\0', 'latin1'), directory]);
    expect(exifReadingCost(block)).toBe(3 * 2);
    expect(carriedExifFields(block)).toEqual({ fields: null });
  });
});
