import type { CutoutLayers } from './compose/cutout-layers';
import { fittedPhoto, type Backdrop } from './compose/backdrop';
import { blurredBackground } from './compose/blurred-background';
import { composite, compositeOnImage, shaded } from './compose/composite';
import { drawShadow, type ShadowStyle } from './compose/shadow';
import type { AlphaMask } from './mask/alpha-mask';
import { decontaminate } from './mask/decontaminate';
import { applyFilters, hasFilters, type SharpenStrength } from './filters';
import { polish } from './polish/polish';
import type { RawImage, Rgba } from './raw-image';
import { analyseTone, applyTone, type ToneRequest } from './tone/tone';

/** The corrections of a photo's own pixels, in the order `image_editing` applies them. */
export interface PixelCorrections {
  /** Noise and JPEG blocking taken out, before any curve stretches the noise unevenly. */
  polish: boolean;
  /** White balance and exposure, measured on the polished pixels and applied in one pass. */
  tone: ToneRequest;
  /** Sharpening after the tone curves (saturation from `tone.color` comes first, as sharp orders them). */
  sharpen: SharpenStrength | null;
}

/** Polish, then light and colour, then saturation and sharpening: a photo's corrections, in that order. */
export async function correctedPixels(
  photo: RawImage,
  corrections: PixelCorrections,
  timeoutSeconds: number,
): Promise<RawImage> {
  const image = corrections.polish ? polish(photo) : photo;
  const tone = analyseTone(image, corrections.tone);
  if (tone.map) applyTone(image, tone.map);
  const filters = { saturation: tone.saturation, sharpen: corrections.sharpen };
  return hasFilters(filters) ? applyFilters(image, filters, timeoutSeconds) : image;
}

/** Corrections applied to a product's own pixels (product photos' preservation level). */
export interface ProductCorrections {
  light: boolean;
  color: boolean;
  polish: boolean;
}

/**
 * Whether a soft edge's colours are the subject's own already (a source cut out with straight
 * alpha, used as its own mask) or a mix with the photo's backdrop, to be cleaned (decontaminate).
 */
export interface EdgeColours {
  ownEdgeColours?: boolean;
}

const edgeColours = (photo: RawImage, alpha: AlphaMask, { ownEdgeColours }: EdgeColours) =>
  ownEdgeColours ? photo : decontaminate(photo, alpha);

/** The sharpening that follows `polish` on a product's pixels. */
const PRODUCT_SHARPENING: SharpenStrength = { sigma: 0.8, edgeGain: 1.5 };

/**
 * The subject cut out of the photo, its own pixels corrected as asked (the same polish, light and
 * colour steps as `image_editing`, before the cut-out is composed, so the background is never
 * corrected with it), its colours cleaned at soft edges (unless they are its own already), with its shadow.
 */
export async function productLayers(
  photo: RawImage,
  alpha: AlphaMask,
  request: ProductCorrections & EdgeColours & { shadow: ShadowStyle },
  timeoutSeconds: number,
): Promise<CutoutLayers> {
  const shadow = await drawShadow(alpha, request.shadow);
  const corrected = await correctedPixels(
    photo,
    {
      polish: request.polish,
      tone: { light: request.light, color: request.color, brightnessOffset: 0, saturationOffset: 0 },
      sharpen: request.polish ? PRODUCT_SHARPENING : null,
    },
    timeoutSeconds,
  );
  return { colour: edgeColours(corrected, alpha, request), alpha, shadow };
}

/** A new background for a photo's subject, or 'original' to keep the photo and cast the shadow on it. */
export interface BackgroundChange extends EdgeColours {
  background: Rgba | null | 'original';
  /** A photo fitted to the image, or the image's own background blurred, under the subject; null for none. */
  backdrop: Backdrop | null;
  shadow: ShadowStyle;
}

/** The subject over its new background with its shadow, or its shadow cast on its own photo. */
export async function replacedBackground(
  photo: RawImage,
  alpha: AlphaMask,
  change: BackgroundChange,
): Promise<RawImage> {
  const shadow = await drawShadow(alpha, change.shadow);
  if (change.background === 'original') return shadow ? shaded(photo, alpha, shadow) : photo;
  const layers = { colour: edgeColours(photo, alpha, change), alpha, shadow };
  const { backdrop } = change;
  if (!backdrop) return composite(layers, change.background);
  const behind =
    backdrop.kind === 'photo'
      ? await fittedPhoto(backdrop.image, photo, backdrop.fit, backdrop.pad)
      : await blurredBackground(photo, alpha, backdrop.blur);
  return compositeOnImage(layers, behind);
}
