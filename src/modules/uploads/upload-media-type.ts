/**
 * The media types an upload may declare and be: the source formats the service reads
 * (core/image/source-image.ts), each with the file extension it is stored under. SVG and the
 * like are refused as sources are: they are documents, not photos.
 */
export const UPLOAD_MEDIA_TYPES = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/tiff': 'tiff',
  'image/avif': 'avif',
  'image/heic': 'heic',
  'image/heif': 'heif',
} as const;

export type UploadMediaType = keyof typeof UPLOAD_MEDIA_TYPES;

export const UPLOAD_MEDIA_TYPE_LIST = Object.keys(UPLOAD_MEDIA_TYPES) as UploadMediaType[];

const isUploadMediaType = (value: string): value is UploadMediaType => value in UPLOAD_MEDIA_TYPES;

/**
 * The media type a Content-Type header declares (`image/PNG; charset=binary` declares
 * `image/png`), when it is one an upload may be; null for a missing header or any other type.
 */
export function declaredUploadType(contentType: string | undefined): UploadMediaType | null {
  const essence = contentType?.split(';')[0].trim().toLowerCase() ?? '';
  return isUploadMediaType(essence) ? essence : null;
}

/**
 * Whether bytes read as `actual` (core's `mediaType`) may be stored as declared. They must be
 * the same type, so the type a client names is the type it gets back and a mislabelled file is
 * caught at the door rather than surprising a later reader. `image/heif` names the container,
 * so it also takes HEVC-coded content (`image/heic`).
 */
export function matchesDeclaredType(declared: UploadMediaType, actual: string): actual is UploadMediaType {
  return actual === declared || (declared === 'image/heif' && actual === 'image/heic');
}

/** The name the response gives the format: the media type's subtype (`jpeg`, `png`, `avif`, ...). */
export const formatOf = (mediaType: UploadMediaType): string => mediaType.slice('image/'.length);

/** Where an upload's file is stored: under its account, in the `uploads/` prefix results never use. */
export function uploadStorageKey(accountId: string, uploadId: string, mediaType: UploadMediaType): string {
  return `uploads/${accountId}/${uploadId}.${UPLOAD_MEDIA_TYPES[mediaType]}`;
}
