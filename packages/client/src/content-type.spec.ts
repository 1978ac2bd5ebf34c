import { imageTypeOfFileName, sniffImageType } from './content-type';

describe(sniffImageType.name, () => {
  it('knows the image types by their first bytes', () => {
    expect(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffImageType(Buffer.from('89504e470d0a1a0a0000', 'hex'))).toBe('image/png');
    expect(sniffImageType(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1'))).toBe('image/webp');
    expect(sniffImageType(Buffer.from('\x00\x00\x00\x1cftypavif', 'latin1'))).toBe('image/avif');
    expect(sniffImageType(Buffer.from('GIF89a', 'latin1'))).toBe('image/gif');
    expect(sniffImageType(Buffer.from('<html>', 'latin1'))).toBeUndefined();
    expect(sniffImageType(new Uint8Array())).toBeUndefined();
  });
});

describe(imageTypeOfFileName.name, () => {
  it('reads the extension, in any case', () => {
    expect(imageTypeOfFileName('/photos/SHOE.JPG')).toBe('image/jpeg');
    expect(imageTypeOfFileName('shoe.webp')).toBe('image/webp');
    expect(imageTypeOfFileName('notes.txt')).toBeUndefined();
  });
});
