import type { RawImage } from '../../engine/raw-image';

/**
 * A model run on one tile: planar RGB (all R, then all G, then all B) as 0..255 floats, `width` x
 * `height` pixels, in; the same planar layout `scale` times larger on each side out.
 */
export type TileModel = (tile: Float32Array, width: number, height: number) => Promise<Float32Array>;

export interface TilingOptions {
  /** Side of each tile's own part of the image, in input pixels. */
  tileSide: number;
  /** Context added on every side of a tile, in input pixels, and dropped from its output. */
  overlap: number;
  /** Checked before each tile, so a result over its time limit stops within one tile. */
  signal?: AbortSignal;
}

/**
 * `image` (RGB) enlarged `scale` times by `model`, one tile at a time, so memory is bounded by the
 * tile whatever the image's size. Each tile is run with `overlap` pixels of context on every side
 * and only its own part of the output is kept: with an overlap at least the model's receptive radius,
 * an output pixel sees exactly the pixels it would see in one run over the whole image, so the
 * tiles meet without a seam. Outside the image the context is the image mirrored at its edge (as a
 * resampler extends an image), rather than the zeros a convolution pads with, which would darken
 * the outermost pixels.
 */
export async function enlargeTiled(
  image: RawImage,
  scale: number,
  model: TileModel,
  { tileSide, overlap, signal }: TilingOptions,
): Promise<RawImage> {
  if (image.channels !== 3) throw new Error('Tiled enlargement takes RGB pixels');
  const width = image.width * scale;
  const data = Buffer.alloc(width * image.height * scale * 3);
  for (let top = 0; top < image.height; top += tileSide) {
    for (let left = 0; left < image.width; left += tileSide) {
      signal?.throwIfAborted();
      const core = {
        left,
        top,
        width: Math.min(tileSide, image.width - left),
        height: Math.min(tileSide, image.height - top),
      };
      const inputWidth = core.width + 2 * overlap;
      const inputHeight = core.height + 2 * overlap;
      const output = await model(mirroredTile(image, core, overlap), inputWidth, inputHeight);
      if (output.length !== inputWidth * inputHeight * scale * scale * 3) {
        throw new Error(`The model answered ${output.length} values for a ${inputWidth} x ${inputHeight} tile`);
      }
      keepCore(output, inputWidth * scale, inputHeight * scale, overlap * scale, core, scale, data, width);
    }
  }
  signal?.throwIfAborted();
  return { data, width, height: image.height * scale, channels: 3 };
}

interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The core region with `overlap` pixels around it, planar floats; coordinates outside the image are mirrored. */
function mirroredTile(image: RawImage, core: Region, overlap: number): Float32Array {
  const width = core.width + 2 * overlap;
  const height = core.height + 2 * overlap;
  const plane = width * height;
  const tile = new Float32Array(3 * plane);
  const columns = Int32Array.from({ length: width }, (_, x) => mirrored(core.left - overlap + x, image.width));
  for (let y = 0; y < height; y++) {
    const row = mirrored(core.top - overlap + y, image.height) * image.width;
    for (let x = 0; x < width; x++) {
      const from = (row + columns[x]) * 3;
      const to = y * width + x;
      tile[to] = image.data[from];
      tile[plane + to] = image.data[from + 1];
      tile[2 * plane + to] = image.data[from + 2];
    }
  }
  return tile;
}

/** `index` reflected into 0..size-1 about the edge pixels (which are not repeated), as often as needed. */
function mirrored(index: number, size: number): number {
  if (size === 1) return 0;
  const period = 2 * (size - 1);
  const folded = ((index % period) + period) % period;
  return folded < size ? folded : period - folded;
}

/** The output of the core region (without its overlap) written into the interleaved result, rounded and clamped. */
function keepCore(
  output: Float32Array,
  outputWidth: number,
  outputHeight: number,
  margin: number,
  core: Region,
  scale: number,
  result: Buffer,
  resultWidth: number,
): void {
  const plane = outputWidth * outputHeight;
  const width = core.width * scale;
  const height = core.height * scale;
  for (let y = 0; y < height; y++) {
    const from = (margin + y) * outputWidth + margin;
    let to = ((core.top * scale + y) * resultWidth + core.left * scale) * 3;
    for (let x = 0; x < width; x++, to += 3) {
      // A Uint8 write would wrap out-of-range values, and the model overshoots at hard edges.
      result[to] = clampByte(output[from + x]);
      result[to + 1] = clampByte(output[plane + from + x]);
      result[to + 2] = clampByte(output[2 * plane + from + x]);
    }
  }
}

function clampByte(value: number): number {
  return value <= 0 ? 0 : value >= 255 ? 255 : Math.round(value);
}
