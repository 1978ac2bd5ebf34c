import type { AlphaMask } from '../../../core/image/mask/alpha-mask';
import {
  encode,
  encodeMask,
  encodeMaskThumbnail,
  encodeThumbnail,
  type Rgba,
} from '../../../core/image/pipeline-steps';
import type { RawImage, Size } from '../../../core/image/raw-image';
import type { OutputFormat } from '../tool-runner';

/** A result's encoded image and its thumbnail, made from the same pixels. */
export interface EncodedImage {
  image: Buffer;
  /** The 256 px WebP thumbnail. */
  thumbnail: Buffer;
  /** How unsure the segmenter was of the subject's mask, when the result cut the subject out. */
  uncertainty?: number;
}

/** The image in its format, on `canvas` (padded with `padding`) when given, with its thumbnail from the same pixels. */
export async function encodeImage(
  image: RawImage,
  format: OutputFormat,
  canvas: Size | null = null,
  padding?: Rgba,
): Promise<EncodedImage> {
  const [encoded, thumbnail] = await Promise.all([
    encode(image, format, canvas, padding),
    encodeThumbnail(image, format, canvas, padding),
  ]);
  return { image: encoded, thumbnail };
}

/** A mask as its own result: a one-channel PNG and its grey thumbnail. */
export async function encodeMaskImage(mask: AlphaMask): Promise<EncodedImage> {
  const [image, thumbnail] = await Promise.all([encodeMask(mask), encodeMaskThumbnail(mask)]);
  return { image, thumbnail };
}
