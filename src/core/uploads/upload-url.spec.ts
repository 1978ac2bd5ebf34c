import { isUploadId, isUploadScheme, newUploadId, uploadIdOf, uploadUrlOf } from './upload-url';

describe('upload URLs', () => {
  it('makes ids of upl_ and 24 base62 characters, different each time', () => {
    const ids = Array.from({ length: 50 }, () => newUploadId());
    for (const id of ids) expect(isUploadId(id)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names an upload as upload://<id> and reads the id back', () => {
    const id = newUploadId();
    expect(uploadUrlOf(id)).toBe(`upload://${id}`);
    expect(uploadIdOf(uploadUrlOf(id))).toBe(id);
  });

  it.each([
    'upload://upl_short',
    'upload://upl_4fQ9zK2mX7bN1cV8dR5tY3wA/extra',
    'upload://upl_4fQ9zK2mX7bN1cV8dR5tY3w!',
    'upload://../upl_4fQ9zK2mX7bN1cV8dR5tY3wA',
    'UPLOAD://upl_4fQ9zK2mX7bN1cV8dR5tY3wA',
    'https://upl_4fQ9zK2mX7bN1cV8dR5tY3wA',
    'upl_4fQ9zK2mX7bN1cV8dR5tY3wA',
  ])('finds no upload id in %s', (url) => {
    expect(uploadIdOf(url)).toBeNull();
  });

  it('tells the upload scheme from http, in any case', () => {
    expect(isUploadScheme('upload://anything')).toBe(true);
    expect(isUploadScheme('Upload://anything')).toBe(true);
    expect(isUploadScheme('https://example.com/upload://x')).toBe(false);
  });
});
