import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { compressedXmpChunk, iccChunk, pngChunk, pngWith, textBombChunk } from '../../../test/support/hostile-metadata';
import { withBoundedPngChunks } from './png-chunks';

/** The chunk types of a PNG in order, read by their lengths. */
function chunkTypes(png: Buffer): string[] {
  const types: string[] = [];
  for (let at = 8; at + 12 <= png.length; at += 12 + png.readUInt32BE(at))
    types.push(png.toString('latin1', at + 4, at + 8));
  return types;
}

const pixelsOf = async (png: Buffer) => (await sharp(png).raw().toBuffer()).toString('hex');

const PACKET = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>';
const textChunk = (type: 'tEXt' | 'iTXt', keyword: string, text: string) =>
  pngChunk(type, Buffer.from(type === 'tEXt' ? `${keyword}\0${text}` : `${keyword}\0\0\0\0\0${text}`, 'latin1'));

describe(withBoundedPngChunks.name, () => {
  it('takes out every text chunk but the XMP packet, and keeps the pixels, the packet and the EXIF', async () => {
    const exif = pngChunk('eXIf', Buffer.from('II\x2a\0\x08\0\0\0\0\0\0\0\0\0', 'latin1'));
    const png = await pngWith(
      textChunk('tEXt', 'Comment', 'hello'),
      textBombChunk(40),
      textChunk('iTXt', 'Description', 'a caption'),
      compressedXmpChunk(PACKET),
      exif,
    );
    const bounded = await withBoundedPngChunks(png);
    expect(chunkTypes(png)).toEqual(['IHDR', 'tEXt', 'zTXt', 'iTXt', 'iTXt', 'eXIf', 'pHYs', 'IDAT', 'IEND']);
    expect(chunkTypes(bounded.bytes)).toEqual(['IHDR', 'iTXt', 'eXIf', 'pHYs', 'IDAT', 'IEND']);
    expect(bounded).toMatchObject({ xmpLeftOut: null, profileLeftOut: null });
    expect(await pixelsOf(bounded.bytes)).toBe(await pixelsOf(png));
    const read = await sharp(bounded.bytes).metadata();
    expect(read.xmp?.toString()).toBe(PACKET);
    expect(read.exif).toBeDefined();
  });

  it('takes out a packet or a profile that inflates past its read limit or not at all, saying why', async () => {
    const overXmp = await withBoundedPngChunks(await pngWith(compressedXmpChunk(' '.repeat(2_000_000))));
    expect(chunkTypes(overXmp.bytes)).toEqual(['IHDR', 'pHYs', 'IDAT', 'IEND']);
    expect(overXmp.xmpLeftOut).toBe('the XMP block inflates past the 1024 KiB the service reads');
    // libvips writes the packet as zTXt, and reads it from there too.
    const asZtxt = pngChunk(
      'zTXt',
      Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0', 'latin1'), deflateSync(' '.repeat(2_000_000))]),
    );
    expect((await withBoundedPngChunks(await pngWith(asZtxt))).xmpLeftOut).toBe(
      'the XMP block inflates past the 1024 KiB the service reads',
    );

    const overProfile = await withBoundedPngChunks(await pngWith(iccChunk(Buffer.alloc(5_000_000))));
    expect(chunkTypes(overProfile.bytes)).toEqual(['IHDR', 'pHYs', 'IDAT', 'IEND']);
    expect(overProfile.profileLeftOut).toBe('the ICC profile inflates past the 4096 KiB the service reads');

    const damaged = pngChunk('iCCP', Buffer.concat([Buffer.from('p\0\0', 'latin1'), Buffer.from('not deflated')]));
    expect((await withBoundedPngChunks(await pngWith(damaged))).profileLeftOut).toBe(
      'the ICC profile does not inflate (its compressed data is damaged)',
    );
  });

  it('keeps a second packet or profile out, and the first within its limit in', async () => {
    const profile = (
      await sharp(
        await sharp({ create: { width: 2, height: 2, channels: 3, background: '#888' } })
          .withIccProfile('p3')
          .png()
          .toBuffer(),
      ).metadata()
    ).icc as Buffer;
    const png = await pngWith(
      iccChunk(profile),
      iccChunk(profile),
      compressedXmpChunk(PACKET),
      compressedXmpChunk(PACKET),
    );
    const bounded = await withBoundedPngChunks(png);
    expect(chunkTypes(bounded.bytes)).toEqual(['IHDR', 'iCCP', 'iTXt', 'pHYs', 'IDAT', 'IEND']);
    expect(bounded).toMatchObject({ xmpLeftOut: null, profileLeftOut: null });
    expect((await sharp(bounded.bytes).metadata()).icc).toEqual(profile);
  });

  it('returns the same bytes when there is nothing to take out, and leaves a chunk past the end alone', async () => {
    const png = await pngWith(pngChunk('eXIf', Buffer.alloc(16)));
    expect((await withBoundedPngChunks(png)).bytes).toBe(png);
    const cut = Buffer.concat([png, textChunk('tEXt', 'Comment', 'x'.repeat(100))]).subarray(0, png.length - 12 + 20);
    expect((await withBoundedPngChunks(cut)).bytes).toEqual(cut);
  });

  it('lets the event loop turn while it walks a file of hundreds of thousands of chunks', async () => {
    const empty = pngChunk('tEXt', Buffer.from('k\0', 'latin1'));
    const png = await pngWith(Buffer.concat(Array.from({ length: 200_000 }, () => empty)));
    let turns = 0;
    let walking = true;
    const turn = () => {
      turns++;
      if (walking) setImmediate(turn);
    };
    setImmediate(turn);
    const bounded = await withBoundedPngChunks(png);
    walking = false;
    expect(chunkTypes(bounded.bytes)).toEqual(['IHDR', 'pHYs', 'IDAT', 'IEND']);
    // One turn at least every 65,536 chunks: three within the walk, whatever the machine's speed.
    expect(turns).toBeGreaterThanOrEqual(3);
  });

  it('takes out a text chunk whatever it holds, without a word', async () => {
    const notDeflate = pngChunk('zTXt', Buffer.concat([Buffer.from('Comment\0\0', 'latin1'), Buffer.from('garbage')]));
    const bounded = await withBoundedPngChunks(await pngWith(notDeflate, pngChunk('zTXt', deflateSync('fine'))));
    expect(chunkTypes(bounded.bytes)).toEqual(['IHDR', 'pHYs', 'IDAT', 'IEND']);
    expect(bounded).toMatchObject({ xmpLeftOut: null, profileLeftOut: null });
  });
});
