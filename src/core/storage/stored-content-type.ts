import { extname } from 'node:path';
import { InvalidStorageKeyError } from './result-storage';

/**
 * The content type of each extension the stores accept. The type is derived from the key on
 * read rather than kept beside the file, so every driver serves a key with the same type and
 * no second record has to be replaced atomically with the file.
 */
const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  // Uploaded sources (`uploads/...`) keep the format they came in.
  '.gif': 'image/gif',
  '.tiff': 'image/tiff',
  '.avif': 'image/avif',
  '.heic': 'image/heic',
  '.heif': 'image/heif',
};

/** `image/png; charset=binary` and `IMAGE/PNG` name the same type as `image/png`. */
const essence = (contentType: string) => contentType.split(';')[0].trim().toLowerCase();

/** The content type a key is served with; throws `InvalidStorageKeyError` for an extension no store serves. */
export function contentTypeOfKey(key: string): string {
  const contentType = CONTENT_TYPES[extname(key).toLowerCase()];
  if (!contentType) {
    throw new InvalidStorageKeyError(key, `must end in one of ${Object.keys(CONTENT_TYPES).join(', ')}`);
  }
  return contentType;
}

/** Throws unless `contentType` is the type `key` will be served with. */
export function assertContentTypeOfKey(key: string, contentType: string): void {
  const expected = contentTypeOfKey(key);
  if (essence(contentType) !== expected) {
    throw new Error(`Content type ${contentType} does not match the extension of ${key} (${expected})`);
  }
}
