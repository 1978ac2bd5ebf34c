import sharp from 'sharp';
import type { GeometryPlan } from './geometry';
import type { AlphaMask } from '../../engine/mask/alpha-mask';
import type { CarriedMetadata } from './metadata/carried-metadata';
import type { OutputFormat } from './output-format';
import { fromRaw, toRaw, type RawImage, type Rgba, type Size } from '../../engine/raw-image';
import { sourceDecodeOptions, type SourceImage } from './source-image';

/**
 * The sharp halves of an edit, each a small function of pixels and options. sharp runs the
 * operations of one pipeline in a fixed order of its own (resize and padding before filters,
 * filters before levels), so an edit that needs another order is split into pipelines over raw
 * pixels, which cost a copy and no decode.
 */

/** Encoder quality where a request gives none: where the eye does not see the difference. */
export const DEFAULT_QUALITY = { jpg: 88, webp: 85, avif: 60 } as const;

/**
 * The resolution written where a file must state one and nothing chose it: libvips writes a
 * resolution into every EXIF block, and 72 is what readers assume of a file that states none.
 */
const FALLBACK_DPI = 72;

/** What a result's file carries besides its pixels. */
export interface FileMetadata {
  /** Pixels per inch to write; null writes none (or the carried metadata's). */
  dpi: number | null;
  /** What the file keeps of its source; null keeps nothing. */
  carried: CarriedMetadata | null;
}

/** How a result's file is written. */
export interface FileOptions extends FileMetadata {
  format: OutputFormat;
  /** 1 to 100 for jpg, webp and avif; null for DEFAULT_QUALITY. png is lossless and has none. */
  quality: number | null;
  /** A lossless webp; ignored by the other formats. */
  lossless?: boolean;
}

/** What padding and flattened transparency become: white where the format has no alpha. */
export function backgroundFor(format: OutputFormat): Rgba {
  return format === 'jpg' ? { r: 255, g: 255, b: 255, alpha: 1 } : { r: 0, g: 0, b: 0, alpha: 0 };
}

/** Longest side of a result's thumbnail (contract section 13). */
export const THUMBNAIL_SIDE = 256;

export interface DecodeOptions {
  maxPixels: number;
  /** Transparency is flattened onto this colour (for formats without alpha); null keeps it. */
  flattenOnto: Rgba | null;
  /** libvips gives up on the pipeline after this long. */
  timeoutSeconds: number;
}

/**
 * Decode, orient, convert to 8-bit sRGB and resample in one pipeline, straight from the
 * source's bytes: libvips shrinks JPEG and WebP while decoding when the target is smaller, and
 * embedded ICC profiles (CMYK included) are applied on the way to sRGB.
 */
export async function decodeScaled(source: SourceImage, plan: GeometryPlan, options: DecodeOptions): Promise<RawImage> {
  let pipeline = sharp(source.bytes, sourceDecodeOptions(options.maxPixels, source.unusedProfile !== null))
    .timeout({ seconds: options.timeoutSeconds })
    .autoOrient();
  if (options.flattenOnto && source.hasAlpha) pipeline = pipeline.flatten({ background: options.flattenOnto });
  if (plan.scaled.width !== source.width || plan.scaled.height !== source.height) {
    pipeline = pipeline.resize(plan.scaled.width, plan.scaled.height, {
      fit: plan.mode === 'cover' ? 'cover' : 'fill',
      position: 'centre',
      kernel: 'lanczos3',
    });
  }
  return toRaw(pipeline.toColourspace('srgb'));
}

/** Pads a pipeline whose image is `inner` to a centred `canvas` (sharp pads after it resizes). */
function padded(pipeline: sharp.Sharp, inner: Size, canvas: Size | null, background: Rgba): sharp.Sharp {
  if (!canvas) return pipeline;
  const left = Math.floor((canvas.width - inner.width) / 2);
  const top = Math.floor((canvas.height - inner.height) / 2);
  return pipeline.extend({
    left,
    top,
    right: canvas.width - inner.width - left,
    bottom: canvas.height - inner.height - top,
    background,
  });
}

/** The resolution a file states: the requested one, else the carried source's, else FALLBACK_DPI if it has EXIF. */
function densityOf({ dpi, carried }: FileMetadata): number | null {
  return dpi ?? carried?.density ?? (carried?.exif ? FALLBACK_DPI : null);
}

/**
 * The EXIF fields a file is written with: the carried ones, and the colour space, which libvips
 * would otherwise leave `uncalibrated` (the pixels are sRGB, and the file says so).
 */
function exifFields(carried: CarriedMetadata | null): NonNullable<CarriedMetadata['exif']> {
  return { IFD0: { ...carried?.exif?.IFD0 }, IFD2: { ...carried?.exif?.IFD2, ColorSpace: '1' } };
}

/**
 * The file's sRGB profile (the pixels are sRGB already: the transform is an identity), its
 * resolution and what it keeps of its source. sharp writes a resolution only with withMetadata, and
 * libvips keeps it in EXIF for JPEG and WebP (PNG also gets its pHYs chunk): so a file with a
 * resolution has an EXIF block, holding only the resolution, orientation 1, colour space and size
 * when nothing of the source is kept.
 */
function tagged(pipeline: sharp.Sharp, file: FileMetadata): sharp.Sharp {
  const density = densityOf(file);
  const profiled =
    density === null
      ? pipeline.withIccProfile('srgb')
      : pipeline.withMetadata({ density }).withExif(exifFields(file.carried));
  return file.carried?.xmp ? profiled.withXmp(file.carried.xmp) : profiled;
}

/**
 * Encoder settings per format: the quality asked for, or DEFAULT_QUALITY; effort where the time is well spent.
 * No metadata is written beyond what `tagged` adds: sharp strips it unless asked.
 */
function encoded(pipeline: sharp.Sharp, file: FileOptions): sharp.Sharp {
  const output = tagged(pipeline, file);
  switch (file.format) {
    case 'jpg':
      return output.jpeg({
        quality: file.quality ?? DEFAULT_QUALITY.jpg,
        chromaSubsampling: '4:2:0',
        optimiseCoding: true,
      });
    case 'png':
      return output.png({ compressionLevel: 6, adaptiveFiltering: false });
    case 'webp':
      return file.lossless
        ? output.webp({ lossless: true, effort: 4 })
        : output.webp({ quality: file.quality ?? DEFAULT_QUALITY.webp, alphaQuality: 90, effort: 4 });
    case 'avif':
      // Effort 4 of 0 to 9: the higher efforts save a few percent more for several times the encoding
      // time, which a worker spends per result; 4 keeps a large result's encode within a second or two.
      // Tuned for SSIM, as sharp did before 0.35 (whose default tunes for SSIMULACRA2): the same
      // quality keeps giving the same file, where the new tuning made a 1200 px photo at 60 13 %
      // smaller and 1.2 dB lower in PSNR, and encoded at 90 40 % slower.
      return output.avif({ quality: file.quality ?? DEFAULT_QUALITY.avif, effort: 4, tune: 'ssim' });
  }
}

/** `padding` fills the canvas around the image: by default white for jpg, transparent otherwise. */
export function encode(
  image: RawImage,
  file: FileOptions,
  canvas: Size | null,
  padding = backgroundFor(file.format),
): Promise<Buffer> {
  return encoded(padded(fromRaw(image), image, canvas, padding), file).toBuffer();
}

/** What a thumbnail's sides are multiplied by: its longest side at most THUMBNAIL_SIDE, never enlarged. */
const thumbnailFactor = (outer: Size) => Math.min(1, THUMBNAIL_SIDE / Math.max(outer.width, outer.height));

/**
 * The result as a WebP of at most 256 px a side, from the same pixels (no decode of the encoded
 * result): tagged sRGB like the result, and nothing else kept.
 */
export function encodeThumbnail(
  image: RawImage,
  format: OutputFormat,
  canvas: Size | null,
  padding = backgroundFor(format),
): Promise<Buffer> {
  const factor = thumbnailFactor(canvas ?? image);
  const scale = (size: Size) => ({
    width: Math.max(1, Math.round(size.width * factor)),
    height: Math.max(1, Math.round(size.height * factor)),
  });
  const inner = scale(image);
  const pipeline = factor < 1 ? fromRaw(image).resize(inner.width, inner.height, { fit: 'fill' }) : fromRaw(image);
  return padded(pipeline, inner, canvas && scale(canvas), padding)
    .withIccProfile('srgb')
    .webp({ quality: 80 })
    .toBuffer();
}

/** Longest side of a result's preview of its source (`source_preview_url`). */
export const SOURCE_PREVIEW_SIDE = 1600;

/**
 * The source as the service read it, for showing beside the result: a WebP of at most
 * SOURCE_PREVIEW_SIDE px a side (never enlarged), upright, in 8-bit sRGB (its ICC profile applied
 * unless the service does not trust it), transparency kept, and no metadata at all: no EXIF, ICC
 * or XMP leaves the customer's file. Decoded from the source's bytes in one pipeline, so a JPEG
 * or WebP shrinks while it is decoded.
 */
export function encodeSourcePreview(
  source: SourceImage,
  options: Pick<DecodeOptions, 'maxPixels' | 'timeoutSeconds'>,
): Promise<Buffer> {
  return sharp(source.bytes, sourceDecodeOptions(options.maxPixels, source.unusedProfile !== null))
    .timeout({ seconds: options.timeoutSeconds })
    .autoOrient()
    .resize(SOURCE_PREVIEW_SIDE, SOURCE_PREVIEW_SIDE, { fit: 'inside', withoutEnlargement: true, kernel: 'lanczos3' })
    .toColourspace('srgb')
    .webp({ quality: 82, alphaQuality: 90, effort: 2 })
    .toBuffer();
}

/**
 * A mask's bytes as a one-channel image; libvips would otherwise take one band of raw pixels for sRGB and write three.
 */
function maskImage(mask: AlphaMask): sharp.Sharp {
  const data = Buffer.from(mask.data.buffer, mask.data.byteOffset, mask.data.length);
  return sharp(data, { raw: { width: mask.width, height: mask.height, channels: 1 } }).toColourspace('b-w');
}

/**
 * A mask with a resolution. sharp sets one only with withMetadata, which also converts to sRGB and
 * would make the mask three channels: an uncompressed TIFF carries the resolution and the one
 * channel into the encode instead, at the cost of one copy of the mask's bytes.
 */
async function maskWithDensity(mask: AlphaMask, density: number): Promise<sharp.Sharp> {
  const perMillimetre = density / 25.4;
  const tiff = await maskImage(mask).tiff({ xres: perMillimetre, yres: perMillimetre, compression: 'none' }).toBuffer();
  return sharp(tiff).toColourspace('b-w');
}

/**
 * A mask as its own result: a one-channel (greyscale) PNG, lossless, so each pixel is the alpha a
 * cut-out would carry. It has no colour profile (it holds opacities, not colours); its resolution
 * and what it keeps of its source are written as for any result.
 */
export async function encodeMask(mask: AlphaMask, file: FileMetadata): Promise<Buffer> {
  const density = densityOf(file);
  let image = density === null ? maskImage(mask) : await maskWithDensity(mask, density);
  // PNG keeps the resolution in its pHYs chunk: a mask has an EXIF block only for the fields it carries.
  if (file.carried?.exif) image = image.withExif(file.carried.exif);
  if (file.carried?.xmp) image = image.withXmp(file.carried.xmp);
  return image.png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
}

/** A mask's thumbnail: the mask in grey, a WebP of at most 256 px a side like every thumbnail. */
export function encodeMaskThumbnail(mask: AlphaMask): Promise<Buffer> {
  const factor = thumbnailFactor(mask);
  const width = Math.max(1, Math.round(mask.width * factor));
  const height = Math.max(1, Math.round(mask.height * factor));
  const image = maskImage(mask);
  return (factor < 1 ? image.resize(width, height, { fit: 'fill' }) : image).webp({ quality: 80 }).toBuffer();
}
