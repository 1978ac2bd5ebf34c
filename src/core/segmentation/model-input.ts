import type { Size } from '../../engine/raw-image';
import { fromRaw, toRaw, type RawImage } from '../../engine/raw-image';
import type { InputSize, ModelInput } from './model-manifest';

/** The manifest's resize filters as sharp names its kernels. */
const KERNELS = { lanczos3: 'lanczos3', bilinear: 'linear', cubic: 'cubic', nearest: 'nearest' } as const;

/** A model's input: the tensor's values and dims, and the RGB pixels it was made from at the map's size. */
export interface PreparedInput {
  values: Float32Array;
  dims: number[];
  size: Size;
  /** RGB, interleaved, at `size`: what later steps read colours from beside the map. */
  pixels: Buffer;
}

/**
 * The size an image is fed at: a fixed square whatever the image's aspect ratio, or, for a
 * dynamic size, the image's own shape with its longer side at most `max` (never enlarged) and
 * each side rounded to the nearest multiple (at least one multiple, and never past `max`).
 */
export function inputSizeFor(image: Size, size: InputSize): Size {
  if (typeof size === 'number') return { width: size, height: size };
  const scale = Math.min(1, size.max / Math.max(image.width, image.height));
  const round = (side: number) => {
    const rounded = Math.max(size.multiple, Math.round((side * scale) / size.multiple) * size.multiple);
    return rounded > size.max ? rounded - size.multiple : rounded;
  };
  return { width: round(image.width), height: round(image.height) };
}

/** The image resized, scaled, normalised and laid out as the manifest says, as float32. */
export async function modelInput(image: RawImage, input: ModelInput): Promise<PreparedInput> {
  // sharp premultiplies by alpha while resizing, which turns transparent pixels black; models
  // expect the colours underneath (rembg's PIL `convert('RGB')`), so alpha is dropped before.
  const rgb = image.channels === 4 ? await toRaw(fromRaw(image).removeAlpha()) : image;
  const size = inputSizeFor(image, input.size);
  const pixels = (
    await toRaw(fromRaw(rgb).resize(size.width, size.height, { fit: 'fill', kernel: KERNELS[input.resize] }))
  ).data;
  return { values: normalised(pixels, size, input), dims: dimsOf(size, input), size, pixels };
}

function normalised(pixels: Buffer, size: Size, input: ModelInput): Float32Array {
  let divisor = 255;
  if (input.scaling === 'image_max') {
    divisor = 0;
    // Indexed loops throughout: an iterator over 1.7 million bytes costs several times as much.
    for (let i = 0; i < pixels.length; i++) if (pixels[i] > divisor) divisor = pixels[i];
    // An all-black image has nothing to scale; any divisor leaves it at 0.
    divisor = Math.max(divisor, 1);
  }
  const scale = 1 / divisor;
  const { mean, std } = input;
  // Tensor channel c reads this pixel channel: BGR models read the pixel's channels backwards.
  const source = input.colourOrder === 'bgr' ? [2, 1, 0] : [0, 1, 2];
  const plane = size.width * size.height;
  const values = new Float32Array(3 * plane);
  // Written as (value * scale - mean) / std, the order the shipped model's maps were made with.
  if (input.layout === 'nchw') {
    for (let c = 0; c < 3; c++) {
      const offset = c * plane;
      const channelMean = mean[c];
      const channelStd = std[c];
      for (let i = 0, pixel = source[c]; i < plane; i++, pixel += 3) {
        values[offset + i] = (pixels[pixel] * scale - channelMean) / channelStd;
      }
    }
  } else {
    for (let i = 0; i < plane; i++) {
      for (let c = 0; c < 3; c++) values[3 * i + c] = (pixels[3 * i + source[c]] * scale - mean[c]) / std[c];
    }
  }
  return values;
}

function dimsOf(size: Size, input: ModelInput): number[] {
  return input.layout === 'nchw' ? [1, 3, size.height, size.width] : [1, size.height, size.width, 3];
}
