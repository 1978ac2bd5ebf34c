import sharp from 'sharp';
import type { AlphaMask } from '../../engine/mask/alpha-mask';
import { fromRaw, toRaw, type RawImage, type Size } from '../../engine/raw-image';
import { ImageProviderError } from '../image-provider/image-provider';
import { undecodableMessage } from './source-image';

/**
 * Providers paint at most about this many pixels a side; a larger input only costs upload time,
 * so what they are sent is scaled down to it (the result is fitted back to the canvas anyway).
 */
export const PROVIDER_LONG_SIDE = 1536;

const scaledForProvider = (pipeline: sharp.Sharp) =>
  pipeline.resize(PROVIDER_LONG_SIDE, PROVIDER_LONG_SIDE, { fit: 'inside', withoutEnlargement: true });

/** What the provider is sent: PNG, the only format every OpenAI-compatible images API takes. */
export function providerPng(image: RawImage): Promise<Buffer> {
  return scaledForProvider(fromRaw(image)).png().toBuffer();
}

/**
 * The provider's mask convention as a PNG: opaque where the image must be kept (`keep` at 255),
 * transparent where the provider may paint.
 */
export function keepMaskPng(keep: AlphaMask): Promise<Buffer> {
  const rgba = Buffer.alloc(keep.width * keep.height * 4);
  for (let i = 0; i < keep.data.length; i++) rgba[i * 4 + 3] = keep.data[i];
  return scaledForProvider(sharp(rgba, { raw: { width: keep.width, height: keep.height, channels: 4 } }))
    .png()
    .toBuffer();
}

/**
 * The provider's image decoded and resized to cover `size` exactly (cropping the centre where
 * its shape differs), as RGB. Whatever size the provider chose, the result has the size asked for.
 */
export async function coverTo(encoded: Buffer, size: Size): Promise<RawImage> {
  try {
    return await toRaw(
      sharp(encoded, { limitInputPixels: 64_000_000 })
        .rotate()
        .toColourspace('srgb')
        .resize(size.width, size.height, { fit: 'cover', position: 'centre' })
        .flatten({ background: '#ffffff' })
        .removeAlpha(),
    );
  } catch (error) {
    throw new ImageProviderError('provider_error', undecodableMessage("The image provider's image"), {
      cause: error,
    });
  }
}

/** The painted image's upright size; what is not an image is the provider's failure. */
export async function paintedSize(painted: Buffer): Promise<Size> {
  const meta = await sharp(painted)
    .metadata()
    .catch(() => null);
  if (!meta?.width || !meta.height)
    throw new ImageProviderError('provider_error', 'The image provider returned something that is not an image.');
  const turned = (meta.orientation ?? 1) >= 5;
  return turned ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
}
