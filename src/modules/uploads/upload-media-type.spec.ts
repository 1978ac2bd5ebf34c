import { declaredUploadType, formatOf, matchesDeclaredType, uploadStorageKey } from './upload-media-type';

describe('upload media types', () => {
  it.each([
    ['image/jpeg', 'image/jpeg'],
    ['IMAGE/PNG', 'image/png'],
    ['image/webp; charset=binary', 'image/webp'],
    [' image/avif ', 'image/avif'],
    ['image/heic', 'image/heic'],
  ])('reads %j as %s', (header, type) => {
    expect(declaredUploadType(header)).toBe(type);
  });

  it.each([undefined, '', 'application/json', 'application/octet-stream', 'image/svg+xml', 'image/bmp', 'image/*'])(
    'refuses %j',
    (header) => {
      expect(declaredUploadType(header)).toBeNull();
    },
  );

  it('takes bytes of the declared type only; a HEIF declaration also takes HEIC content', () => {
    expect(matchesDeclaredType('image/png', 'image/png')).toBe(true);
    expect(matchesDeclaredType('image/jpeg', 'image/png')).toBe(false);
    expect(matchesDeclaredType('image/heif', 'image/heic')).toBe(true);
    expect(matchesDeclaredType('image/heic', 'image/heif')).toBe(false);
    expect(matchesDeclaredType('image/avif', 'image/heic')).toBe(false);
  });

  it('names the format by the subtype and stores under uploads/<account>/<id>.<extension>', () => {
    expect(formatOf('image/jpeg')).toBe('jpeg');
    expect(formatOf('image/avif')).toBe('avif');
    expect(uploadStorageKey('acc', 'upl_x', 'image/jpeg')).toBe('uploads/acc/upl_x.jpg');
    expect(uploadStorageKey('acc', 'upl_x', 'image/tiff')).toBe('uploads/acc/upl_x.tiff');
  });
});
