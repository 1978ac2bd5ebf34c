import type { RawImage } from '../raw-image';

/**
 * Rows of a photo in JPEG's own colour space (JFIF: BT.601 luma and the two colour differences,
 * full range, 128 for no colour), as floats. Working in it lets the deblocker see the planes the
 * way a JPEG encoder quantised them, and the denoiser treat brightness and colour noise apart
 * (the eye forgives blurred colour far more than blurred brightness).
 */
export interface YccStrip {
  width: number;
  /** The photo's row that is the strip's first. */
  top: number;
  height: number;
  /** Luma, blue difference and red difference, row by row. */
  planes: [Float32Array, Float32Array, Float32Array];
}

export const LUMA = 0;

/** Three planes' worth of floats to convert strips into, so a pass over many strips allocates once. */
export type YccBuffers = [Float32Array, Float32Array, Float32Array];

export const yccBuffers = (pixels: number): YccBuffers => [
  new Float32Array(pixels),
  new Float32Array(pixels),
  new Float32Array(pixels),
];

/**
 * Rows `top` to `bottom` (excluded) of `image`; an alpha channel is no part of them. In
 * `buffers` when given (the strip's planes are then views of them, valid until the next strip).
 */
export function yccStrip(image: RawImage, top: number, bottom: number, buffers?: YccBuffers): YccStrip {
  const { width, channels, data } = image;
  const count = width * (bottom - top);
  const [y, cb, cr] = buffers ? buffers.map((buffer) => buffer.subarray(0, count)) : yccBuffers(count);
  for (let i = 0, j = top * width * channels; i < count; i++, j += channels) {
    const r = data[j];
    const g = data[j + 1];
    const b = data[j + 2];
    y[i] = 0.299 * r + 0.587 * g + 0.114 * b;
    cb[i] = -0.168736 * r - 0.331264 * g + 0.5 * b + 128;
    cr[i] = 0.5 * r - 0.418688 * g - 0.081312 * b + 128;
  }
  return { width, top, height: bottom - top, planes: [y, cb, cr] };
}

/** Writes the strip's rows `from` to `to` (photo rows, excluded) into `target` as 8-bit RGB; alpha is left alone. */
export function writeStrip(strip: YccStrip, target: RawImage, from: number, to: number): void {
  const { width, planes } = strip;
  const [y, cb, cr] = planes;
  const { channels } = target;
  // A clamped view rounds and clamps on assignment, where a Buffer would wrap 256 to 0.
  const data = new Uint8ClampedArray(target.data.buffer, target.data.byteOffset, target.data.length);
  const end = (to - strip.top) * width;
  for (let i = (from - strip.top) * width, j = from * width * channels; i < end; i++, j += channels) {
    const blue = cb[i] - 128;
    const red = cr[i] - 128;
    data[j] = y[i] + 1.402 * red;
    data[j + 1] = y[i] - 0.344136 * blue - 0.714136 * red;
    data[j + 2] = y[i] + 1.772 * blue;
  }
}
