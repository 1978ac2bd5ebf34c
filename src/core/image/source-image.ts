import sharp from 'sharp';

/**
 * Formats a source may be in, by sharp's name for them. AVIF is reported as `heif`; HEIC
 * (HEVC-coded HEIF) is accepted here and decodes only where the installed libvips has a decoder
 * for it. SVG, PDF and the like are refused: they are documents, not photos, and a small one can
 * ask the renderer for a huge canvas.
 */
const ACCEPTED_FORMATS: ReadonlySet<string> = new Set(['jpeg', 'png', 'webp', 'gif', 'tiff', 'heif']);

export enum SourceImageProblem {
  NotImage = 'not_image',
  TooLarge = 'too_large',
}

/** Why downloaded bytes cannot be used as a source image. The message is shown to API clients. */
export class SourceImageError extends Error {
  constructor(
    readonly problem: SourceImageProblem,
    message: string,
  ) {
    super(message);
    this.name = SourceImageError.name;
  }
}

/** Downloaded bytes that were read as an image from their header, before any pixel is decoded. */
export interface SourceImage {
  bytes: Buffer;
  /** Size as a viewer shows it: EXIF orientation applied. */
  width: number;
  height: number;
  format: string;
  hasAlpha: boolean;
}

/** Options every decode of a source uses: the same pixel limit and tolerance everywhere. */
export function sourceDecodeOptions(maxPixels: number): sharp.SharpOptions {
  // Only the first frame of a GIF or animated WebP (pages: 1, the default) is read.
  return { limitInputPixels: maxPixels, failOn: 'error' };
}

/** A source read from its header, with the IANA media type of what its bytes are. */
export interface TypedSourceImage extends SourceImage {
  /** `image/jpeg`, `image/png`, `image/webp`, `image/gif`, `image/tiff`, `image/avif`, `image/heic` or `image/heif`. */
  mediaType: string;
}

/**
 * Reads `bytes` as an image by their content (never a Content-Type), refusing what is not one
 * of the accepted formats and what would decode to more than `maxPixels`. Only the header is
 * parsed, so a small file that would decode to a huge image costs nothing.
 */
export async function inspectSource(bytes: Buffer, maxPixels: number): Promise<SourceImage> {
  const { mediaType: _mediaType, ...source } = await inspectTypedSource(bytes, maxPixels);
  return source;
}

/** As `inspectSource`, also naming the media type the bytes are in (an upload is checked against its declared type). */
export async function inspectTypedSource(bytes: Buffer, maxPixels: number): Promise<TypedSourceImage> {
  let metadata: sharp.Metadata;
  try {
    metadata = await sharp(bytes, sourceDecodeOptions(Number.MAX_SAFE_INTEGER)).metadata();
  } catch {
    throw new SourceImageError(SourceImageProblem.NotImage, 'The source is not an image this service can read.');
  }
  const { format, width, height } = metadata;
  if (!format || !ACCEPTED_FORMATS.has(format) || !width || !height) {
    throw new SourceImageError(
      SourceImageProblem.NotImage,
      `The source is not a supported image${format ? ` (${format})` : ''}: send JPEG, PNG, WebP, ` +
        `AVIF, GIF, TIFF or HEIF.`,
    );
  }
  if (width * height > maxPixels) {
    throw new SourceImageError(
      SourceImageProblem.TooLarge,
      `The source is ${width} x ${height} pixels; at most ${Math.round(maxPixels / 1e6)} megapixels are accepted.`,
    );
  }
  const oriented = metadata.autoOrient ?? { width, height };
  return {
    bytes,
    width: oriented.width,
    height: oriented.height,
    format,
    hasAlpha: metadata.hasAlpha ?? false,
    mediaType: mediaTypeOf(format, metadata.compression),
  };
}

/** libvips names AVIF and HEIC both `heif`; the compression inside the container tells them apart. */
function mediaTypeOf(format: string, compression: sharp.Metadata['compression']): string {
  if (format !== 'heif') return `image/${format}`;
  if (compression === 'av1') return 'image/avif';
  return compression === 'hevc' ? 'image/heic' : 'image/heif';
}
