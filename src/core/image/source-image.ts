import sharp from 'sharp';
import { signedFormat } from './image-signature';
import { withBoundedPngChunks } from './png-chunks';
import { METADATA_READ_LIMITS } from './metadata/metadata-limits';

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
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = SourceImageError.name;
  }
}

/**
 * What a client reads when an image's header was read but its pixels would not decode. libvips'
 * own text can name its internals, so it stays in the log as the error's cause.
 */
export const undecodableMessage = (image: string): string =>
  `${image} could not be decoded: its pixel data is damaged, truncated or in an encoding this service cannot read.`;

/** The source's pixels would not decode (see undecodableMessage). */
export const undecodableSource = (cause: unknown): SourceImageError =>
  new SourceImageError(SourceImageProblem.NotImage, undecodableMessage('The source image'), { cause });

/** Downloaded bytes that were read as an image from their header, before any pixel is decoded. */
export interface SourceImage {
  bytes: Buffer;
  /** Size as a viewer shows it: EXIF orientation applied. */
  width: number;
  height: number;
  format: string;
  hasAlpha: boolean;
  /**
   * Why the source's embedded ICC profile is not applied (over METADATA_READ_LIMITS.iccBytes, or
   * not a profile at all), so its pixels are taken as sRGB; null when it has none or it applies.
   */
  unusedProfile: string | null;
  /**
   * Why the source's XMP packet was taken out of `bytes` before any read (a PNG's packet compressed
   * past METADATA_READ_LIMITS.xmpBytes, or damaged: see png-chunks.ts); null when it was not.
   */
  xmpLeftOut: string | null;
}

/** Options every decode of a source uses: the same pixel limit and tolerance everywhere. */
export function sourceDecodeOptions(maxPixels: number, ignoreProfile = false): sharp.SharpOptions {
  // Only the first frame of a GIF or animated WebP (pages: 1, the default) is read.
  return { limitInputPixels: maxPixels, failOn: 'error', ignoreIcc: ignoreProfile };
}

/** The ICC header's size: its fields, then the count of its tags. */
const ICC_HEADER_BYTES = 132;

/**
 * Why an embedded ICC profile is not applied, or null when it may be: within the size the service
 * reads, and a profile by its header (its own length and the `acsp` signature). lcms, which
 * libvips hands it to, skips a profile it cannot open but applies one whose header lies about its
 * size; a profile that is not what it says is not trusted with the colours. libvips 8.18 already
 * drops such a profile when it reads the header (it is then not in the metadata at all); the
 * check stays for any other that gets through.
 */
function unusedProfileOf(icc: Buffer | undefined): string | null {
  if (!icc) return null;
  if (icc.length > METADATA_READ_LIMITS.iccBytes) {
    return `the ICC profile is ${icc.length} bytes, over the ${METADATA_READ_LIMITS.iccBytes} the service reads`;
  }
  if (
    icc.length < ICC_HEADER_BYTES ||
    icc.readUInt32BE(0) !== icc.length ||
    icc.toString('latin1', 36, 40) !== 'acsp'
  ) {
    return 'the ICC profile is not a profile (its header does not state its length and signature)';
  }
  return null;
}

/** A source read from its header, with the IANA media type of what its bytes are. */
export interface TypedSourceImage extends SourceImage {
  /** `image/jpeg`, `image/png`, `image/webp`, `image/gif`, `image/tiff`, `image/avif`, `image/heic` or `image/heif`. */
  mediaType: string;
}

/**
 * Reads `bytes` as an image by their content (never a Content-Type), refusing what is not one
 * of the accepted formats and what would decode to more than `maxPixels`. Bytes that do not start
 * like an accepted format reach no decoder at all (image-signature.ts); of the rest only the
 * header is parsed, so a small file that would decode to a huge image costs nothing.
 */
export async function inspectSource(bytes: Buffer, maxPixels: number): Promise<SourceImage> {
  const { mediaType: _mediaType, ...source } = await inspectTypedSource(bytes, maxPixels);
  return source;
}

/** As `inspectSource`, also naming the media type the bytes are in (an upload is checked against its declared type). */
export async function inspectTypedSource(received: Buffer, maxPixels: number): Promise<TypedSourceImage> {
  const signed = signedFormat(received);
  if (!signed) throw unreadable();
  const { bytes, xmpLeftOut, profileLeftOut } =
    signed === 'png'
      ? await withBoundedPngChunks(received)
      : { bytes: received, xmpLeftOut: null, profileLeftOut: null };
  let metadata: sharp.Metadata;
  try {
    metadata = await sharp(bytes, sourceDecodeOptions(Number.MAX_SAFE_INTEGER)).metadata();
  } catch {
    throw unreadable();
  }
  const { format, width, height } = metadata;
  if (!format || !width || !height) throw unreadable();
  if (!ACCEPTED_FORMATS.has(format)) throw unsupported(format);
  // What libvips found must be what the first bytes said: a file is one format, not two.
  if (format !== signed) throw unreadable();
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
    unusedProfile: profileLeftOut ?? unusedProfileOf(metadata.icc),
    xmpLeftOut,
    mediaType: mediaTypeOf(format, metadata.compression),
  };
}

const ACCEPTED_LIST = 'send JPEG, PNG, WebP, AVIF, GIF, TIFF or HEIF';

const unreadable = () =>
  new SourceImageError(
    SourceImageProblem.NotImage,
    `The source is not an image this service can read: ${ACCEPTED_LIST}.`,
  );

function unsupported(format: string): SourceImageError {
  return new SourceImageError(
    SourceImageProblem.NotImage,
    `The source is not a supported image (${format}): ${ACCEPTED_LIST}.`,
  );
}

/** libvips names AVIF and HEIC both `heif`; the compression inside the container tells them apart. */
function mediaTypeOf(format: string, compression: sharp.Metadata['compression']): string {
  if (format !== 'heif') return `image/${format}`;
  if (compression === 'av1') return 'image/avif';
  return compression === 'hevc' ? 'image/heic' : 'image/heif';
}
