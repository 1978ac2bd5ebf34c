import { fittedPhoto, preparedBlur, type Backdrop } from './compose/backdrop';
import { composite, compositeOnImage } from './compose/composite';
import { reframe } from './compose/cutout-layers';
import { resampleExactly } from './compose/exact-resample';
import { planFrame, union, type Placement } from './compose/framing';
import type { ShadowStyle } from './compose/shadow';
import { subjectBounds, type AlphaMask } from './mask/alpha-mask';
import type { RawImage, Rgba } from './raw-image';
import { productLayers, type EdgeColours, type ProductCorrections } from './corrections';

/** Shadow opacity below this does not count as part of the subject's frame. */
const SHADOW_FRAME_THRESHOLD = 8;

/** What a cut-out result is made of, besides its photo and the subject's mask. */
export interface CutoutComposition extends ProductCorrections, EdgeColours {
  /** `alpha`: the framed mask alone (no background colour, no shadow); `rgba`: the composed cut-out. */
  channels: 'rgba' | 'alpha';
  background: Rgba | null;
  /** A photo or the photo's own background blurred, composed under the subject instead of `background`; or null. */
  backdrop: Backdrop | null;
  shadow: ShadowStyle;
  placement: Placement;
}

/** A cut-out's pixels, ready to encode: the composed image, or the framed mask alone. */
export type CutoutPixels = { kind: 'image'; image: RawImage } | { kind: 'mask'; mask: AlphaMask };

/**
 * A cut-out from its photo and the subject's mask: the product's pixels corrected and cleaned
 * with its shadow drawn (not for a mask, which has neither colours nor a shadow), framed (the
 * whole photo, a crop around the subject and its shadow, a canvas the subject fills a set
 * share of, or the client's placement on a canvas) and composed onto the background: a colour,
 * transparency, a photo fitted to the result, or the photo's own background blurred (which keeps
 * the photo's frame: a blur is never reframed, the requests that would move it are refused at
 * create).
 */
export async function cutoutPixels(
  photo: RawImage,
  alpha: AlphaMask,
  composition: CutoutComposition,
  timeoutSeconds: number,
): Promise<CutoutPixels> {
  const mask = composition.channels === 'alpha';
  const blurred = mask ? null : await preparedBlur(photo, alpha, composition.backdrop);
  const layers = mask
    ? { colour: photo, alpha, shadow: null }
    : await productLayers(photo, alpha, composition, timeoutSeconds);

  const subject = subjectBounds(alpha);
  const shadow = layers.shadow && subjectBounds(layers.shadow, SHADOW_FRAME_THRESHOLD);
  const { placement } = composition;
  const withShadow = placement.kind === 'crop' || (placement.kind === 'layout' && placement.shadowInBox);
  const framing = planFrame(photo, withShadow ? union(subject, shadow) : subject, placement);
  const whole =
    framing.frame.left === 0 &&
    framing.frame.top === 0 &&
    framing.frame.width === photo.width &&
    framing.frame.height === photo.height &&
    framing.size.width === photo.width &&
    framing.size.height === photo.height;
  const placed = whole
    ? layers
    : placement.kind === 'layout'
      ? resampleExactly(layers, framing.frame, framing.size)
      : await reframe(layers, framing.frame, framing.size);
  if (mask) return { kind: 'mask', mask: placed.alpha };
  const { backdrop } = composition;
  if (!backdrop) return { kind: 'image', image: composite(placed, composition.background) };
  if (backdrop.kind === 'photo') {
    const behind = await fittedPhoto(backdrop.image, framing.size, backdrop.fit, backdrop.pad);
    return { kind: 'image', image: compositeOnImage(placed, behind) };
  }
  if (!whole || !blurred) throw new Error("A blurred background keeps the photo's own frame");
  return { kind: 'image', image: compositeOnImage(placed, blurred) };
}
