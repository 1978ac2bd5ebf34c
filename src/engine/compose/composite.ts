import type { AlphaMask } from '../mask/alpha-mask';
import type { RawImage, Rgba } from '../raw-image';
import type { CutoutLayers } from './cutout-layers';

/**
 * The cut-out over its background. On a colour: the shadow darkens the colour, then the
 * subject covers both by its alpha (RGB out). Transparent (`background` null): the shadow is
 * black at its opacity and the subject goes over it (RGBA out, straight alpha), so the
 * background is exactly alpha 0 where there is neither subject nor shadow.
 */
export function composite(layers: CutoutLayers, background: Rgba | null): RawImage {
  const { colour, alpha, shadow } = layers;
  const pixels = colour.width * colour.height;
  if (background) {
    const data = Buffer.alloc(pixels * 3);
    const fill = [background.r, background.g, background.b];
    for (let i = 0; i < pixels; i++) {
      const a = alpha.data[i] / 255;
      const lit = 1 - (shadow ? shadow.data[i] / 255 : 0);
      for (let c = 0; c < 3; c++) {
        data[i * 3 + c] = Math.round(colour.data[i * 3 + c] * a + fill[c] * lit * (1 - a));
      }
    }
    return { data, width: colour.width, height: colour.height, channels: 3 };
  }
  const data = Buffer.alloc(pixels * 4);
  for (let i = 0; i < pixels; i++) {
    const a = alpha.data[i] / 255;
    const s = shadow ? shadow.data[i] / 255 : 0;
    const out = a + s * (1 - a);
    if (out > 0) {
      // Straight colour: the subject's share of the pixel; the shadow's share is black.
      for (let c = 0; c < 3; c++) data[i * 4 + c] = Math.round((colour.data[i * 3 + c] * a) / out);
    }
    data[i * 4 + 3] = Math.round(out * 255);
  }
  return { data, width: colour.width, height: colour.height, channels: 4 };
}

/** The subject's shadow cast on its own photo: the photo darkened by the shadow wherever the subject is not. */
export function shaded(photo: RawImage, alpha: AlphaMask, shadow: AlphaMask): RawImage {
  const { channels } = photo;
  const data = Buffer.from(photo.data);
  for (let i = 0; i < alpha.data.length; i++) {
    const darkening = (shadow.data[i] / 255) * (1 - alpha.data[i] / 255);
    if (darkening === 0) continue;
    for (let c = 0; c < 3; c++) data[i * channels + c] = Math.round(photo.data[i * channels + c] * (1 - darkening));
  }
  return { ...photo, data };
}

/**
 * The cut-out over a backdrop image of the same size (RGB or RGBA, its alpha ignored): the
 * shadow darkens the backdrop, then the subject covers both by its alpha (RGB out). The
 * subject's pixels are the cut-out's own wherever its alpha is full.
 */
export function compositeOnImage(layers: CutoutLayers, backdrop: RawImage): RawImage {
  const { colour, alpha, shadow } = layers;
  if (backdrop.width !== colour.width || backdrop.height !== colour.height) {
    throw new Error(
      `backdrop ${backdrop.width}x${backdrop.height} does not match the cut-out ${colour.width}x${colour.height}`,
    );
  }
  const pixels = colour.width * colour.height;
  const data = Buffer.alloc(pixels * 3);
  for (let i = 0; i < pixels; i++) {
    const a = alpha.data[i] / 255;
    const lit = 1 - (shadow ? shadow.data[i] / 255 : 0);
    for (let c = 0; c < 3; c++) {
      data[i * 3 + c] = Math.round(
        colour.data[i * 3 + c] * a + backdrop.data[i * backdrop.channels + c] * lit * (1 - a),
      );
    }
  }
  return { data, width: colour.width, height: colour.height, channels: 3 };
}
