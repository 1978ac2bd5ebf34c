import { boxMean } from './mask/box-filter';
import type { RawImage } from './raw-image';

/**
 * An RGBA image as its colour and its alpha apart, for an enlargement that runs outside sharp
 * (the super-resolution model) and resamples the alpha on its own. The colour under a fully
 * transparent pixel is invisible, and often black; an enlargement mixes neighbours, so the visible
 * edge would be pulled towards it (a dark fringe). Each fully transparent pixel within reach of
 * the visible ones therefore takes their colour first: the mean of the visible pixels in a
 * window, at each radius in turn (a small one for the colour right at the edge, then a wider one
 * for the rest of the reach), each pass counting the pixels the previous ones filled. Pixels with
 * any alpha keep their colour, so colour and alpha stay independent (no division by a resampled
 * alpha, which an enlargement that sharpens differently from Lanczos would turn into halos).
 */

export interface ColourAndAlpha {
  /** RGB, with the fully transparent pixels near visible ones given their colour. */
  colour: RawImage;
  /** One byte per pixel. */
  alpha: Buffer;
}

export function colourUnderTransparency(image: RawImage, radii: readonly number[]): ColourAndAlpha {
  if (image.channels !== 4) throw new Error('Only an RGBA image has transparent pixels');
  const pixels = image.width * image.height;
  const alpha = Buffer.allocUnsafe(pixels);
  const known = new Float32Array(pixels);
  const channels = [0, 1, 2].map(() => new Float32Array(pixels));
  for (let i = 0; i < pixels; i++) {
    alpha[i] = image.data[i * 4 + 3];
    if (alpha[i] === 0) continue;
    known[i] = 1;
    for (let c = 0; c < 3; c++) channels[c][i] = image.data[i * 4 + c];
  }
  for (const radius of radii) fillUnknown(channels, known, image.width, image.height, radius);

  const colour = Buffer.allocUnsafe(pixels * 3);
  for (let i = 0; i < pixels; i++) {
    for (let c = 0; c < 3; c++) colour[i * 3 + c] = Math.round(channels[c][i]);
  }
  return { colour: { data: colour, width: image.width, height: image.height, channels: 3 }, alpha };
}

/** Every unknown pixel with known ones within `radius` takes their mean colour and becomes known. */
function fillUnknown(
  channels: Float32Array[],
  known: Float32Array,
  width: number,
  height: number,
  radius: number,
): void {
  // Box means of the known colours and of the known mask: their ratio is the mean over the known pixels.
  const weight = Float32Array.from(known);
  boxMean(weight, width, height, radius);
  const means = channels.map((channel) => {
    const sum = channel.map((value, i) => value * known[i]);
    boxMean(sum, width, height, radius);
    return sum;
  });
  for (let i = 0; i < known.length; i++) {
    if (known[i] === 1 || weight[i] === 0) continue;
    for (let c = 0; c < 3; c++) channels[c][i] = means[c][i] / weight[i];
    known[i] = 1;
  }
}

/** RGB and a one-byte alpha of the same size joined as RGBA. */
export function withAlpha(colour: RawImage, alpha: Buffer): RawImage {
  const pixels = colour.width * colour.height;
  if (colour.channels !== 3 || alpha.length !== pixels) throw new Error('The colour and alpha sizes differ');
  const data = Buffer.allocUnsafe(pixels * 4);
  for (let i = 0; i < pixels; i++) {
    data[i * 4] = colour.data[i * 3];
    data[i * 4 + 1] = colour.data[i * 3 + 1];
    data[i * 4 + 2] = colour.data[i * 3 + 2];
    data[i * 4 + 3] = alpha[i];
  }
  return { data, width: colour.width, height: colour.height, channels: 4 };
}
