import sharp from 'sharp';
import { compositeOnImage } from './compose/composite';
import type { CutoutLayers } from './compose/cutout-layers';
import { subjectBounds } from './mask/alpha-mask';
import type { RawImage } from './raw-image';

/** How much of the photo's own product an AI edit keeps (ai_edit's `preservation`). */
export type PreservationLevel = 'strict' | 'balanced' | 'creative';

/** How far `balanced` lets the edit reach into the product from its outline, as a share of its longer side. */
const BALANCED_BLEND_SHARE = 0.02;

/**
 * The edit's final pixels. `strict`: the subject is the photo's own pixels, composited over
 * whatever the provider painted (its alpha edge included). `balanced`: the subject's body is the
 * photo's, but a band inside its outline blends into the provider's pixels, so light and edges
 * can match the new surroundings. `creative`: the provider's image as it is.
 */
export async function preservedSubject(
  placed: CutoutLayers,
  painted: RawImage,
  level: PreservationLevel,
): Promise<RawImage> {
  if (level === 'creative') return painted;
  if (level === 'strict') return compositeOnImage(placed, painted);
  const bounds = subjectBounds(placed.alpha);
  if (!bounds) return painted;
  const sigma = Math.max(0.5, Math.max(bounds.width, bounds.height) * BALANCED_BLEND_SHARE);
  const { width, height } = placed.alpha;
  const blurred = await sharp(Buffer.from(placed.alpha.data), { raw: { width, height, channels: 1 } })
    .blur(sigma)
    .extractChannel(0)
    .raw()
    .toBuffer();
  // Twice the blur less its middle shrinks the mask by about sigma and keeps a soft edge inside the outline.
  const body = new Uint8Array(blurred.length);
  for (let i = 0; i < body.length; i++)
    body[i] = Math.max(0, Math.min(255, 2 * blurred[i] - 255, placed.alpha.data[i]));
  return compositeOnImage({ ...placed, alpha: { data: body, width, height } }, painted);
}
