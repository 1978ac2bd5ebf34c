import type { AlphaMask } from '../../../engine/mask/alpha-mask';
import type { SegmentationReport } from '../../../engine/mask/segmentation-report';
import type { CarriedMetadata } from '../../../core/image/metadata/carried-metadata';
import {
  encode,
  encodeMask,
  encodeMaskThumbnail,
  encodeThumbnail,
  type FileMetadata,
} from '../../../core/image/pipeline-steps';
import type { RawImage, Rgba, Size } from '../../../engine/raw-image';
import type { ResultOutput } from '../tool-runner';

/** A result's encoded image and its thumbnail, made from the same pixels. */
export interface EncodedImage {
  image: Buffer;
  /** The 256 px WebP thumbnail. */
  thumbnail: Buffer;
  /** How unsure the segmenter was of the subject's mask, when the result cut the subject out. */
  uncertainty?: number;
  /** Which model and post-processing made the subject's mask, when the result cut the subject out. */
  segmentation?: SegmentationReport;
}

/** How a result is written: its format and file choices, and what it keeps of its source's metadata. */
export interface ResultEncoding extends ResultOutput {
  /** Null for a result that keeps nothing (`output.metadata` `strip`, or no source photo). */
  carried: CarriedMetadata | null;
}

/** The metadata a result's file is written with: its dpi, and what `keep` carries from its source's header. */
const fileMetadata = ({ file, carried }: Omit<ResultEncoding, 'format'>): FileMetadata => ({ dpi: file.dpi, carried });

/** The image in its format, on `canvas` (padded with `padding`) when given, with its thumbnail from the same pixels. */
export async function encodeImage(
  image: RawImage,
  output: ResultEncoding,
  canvas: Size | null = null,
  padding?: Rgba,
): Promise<EncodedImage> {
  const file = {
    format: output.format,
    quality: output.file.quality,
    lossless: output.file.lossless,
    ...fileMetadata(output),
  };
  const [encoded, thumbnail] = await Promise.all([
    encode(image, file, canvas, padding),
    encodeThumbnail(image, output.format, canvas, padding),
  ]);
  return { image: encoded, thumbnail };
}

/** A mask as its own result: a one-channel PNG (no quality to choose) and its grey thumbnail. */
export async function encodeMaskImage(mask: AlphaMask, output: Omit<ResultEncoding, 'format'>): Promise<EncodedImage> {
  const [image, thumbnail] = await Promise.all([encodeMask(mask, fileMetadata(output)), encodeMaskThumbnail(mask)]);
  return { image, thumbnail };
}
