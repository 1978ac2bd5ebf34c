import sharp from 'sharp';
import type { RawImage, Rgba, Size } from '../raw-image';
import type { AlphaMask } from '../mask/alpha-mask';
import { blurredBackground, type BackgroundBlur } from './blurred-background';

export type BackdropFit = 'cover' | 'contain';

/**
 * What a cut-out is composed over besides a flat colour: a photo of the client's, fitted to the
 * result (`cover` fills it and cuts the overflow; `contain` shows it whole on `pad`), or the
 * photo's own background blurred behind the sharp product.
 */
export type Backdrop =
  { kind: 'photo'; image: RawImage; fit: BackdropFit; pad: Rgba } | { kind: 'blur'; blur: BackgroundBlur };

/** A backdrop photo at exactly `size`, RGB, centred. */
export async function fittedPhoto(image: RawImage, size: Size, fit: BackdropFit, pad: Rgba): Promise<RawImage> {
  const data = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })
    .resize(size.width, size.height, { fit, position: 'centre', kernel: 'lanczos3', background: pad })
    .flatten({ background: pad })
    .removeAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer();
  return { data, width: size.width, height: size.height, channels: 3 };
}

/**
 * The pixels behind the subject, made before the subject's own pixels are corrected (a
 * blur reads the photo as photographed). A photo is fitted later, to the result's size.
 */
export function preparedBlur(photo: RawImage, alpha: AlphaMask, backdrop: Backdrop | null): Promise<RawImage | null> {
  return backdrop?.kind === 'blur' ? blurredBackground(photo, alpha, backdrop.blur) : Promise.resolve(null);
}
