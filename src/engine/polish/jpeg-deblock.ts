import { blockStart } from './block-grid';
import type { BlockCorrections } from './jpeg-blocks';

/**
 * Deblocking of one plane of a strip of rows (see ycc.ts), in place: every smooth block moves
 * by its mean's correction (jpeg-blocks.ts), then the step left across each boundary between
 * two smooth blocks of the same shading is spread over the two blocks as a ramp. The step is
 * what the boundary adds beyond the slope on its two sides, so shading the JPEG kept is not
 * ramped twice; each side takes half of it, falling linearly to nothing at its block's middle,
 * so flat tiles a step apart become the slope they came from (H.264's deblocking, over the
 * whole block rather than three pixels, because on smooth shading the whole tile is flat).
 */

export interface StripRows {
  width: number;
  /** The photo's row that is the strip's first. */
  top: number;
  height: number;
}

/** Two smooth neighbours further apart than this (in steps) are two sides of an edge, which keeps its step. */
const JOINED_WITHIN = 2;

export function deblockPlane(values: Float32Array, strip: StripRows, blocks: BlockCorrections): void {
  shiftMeans(values, strip, blocks);
  rampAcrossColumns(values, strip, blocks);
  rampAcrossRows(values, strip, blocks);
}

const joined = (blocks: BlockCorrections, a: number, b: number) =>
  blocks.smooth[a] === 1 &&
  blocks.smooth[b] === 1 &&
  Math.abs(blocks.means[a] - blocks.means[b]) <= JOINED_WITHIN * blocks.step;

/** The strip's rows of block row `v`: [from, to) in photo rows, possibly empty. */
function rowsOf(strip: StripRows, blocks: BlockCorrections, v: number): [number, number] {
  const start = blockStart(blocks.grid.top, blocks.grid.size, v);
  return [Math.max(start, strip.top), Math.min(start + blocks.grid.size, strip.top + strip.height)];
}

function shiftMeans(values: Float32Array, strip: StripRows, blocks: BlockCorrections): void {
  const { grid, columns, rows, offsets } = blocks;
  for (let v = 0; v < rows; v++) {
    const [from, to] = rowsOf(strip, blocks, v);
    for (let y = from; y < to; y++) {
      const row = (y - strip.top) * strip.width;
      for (let u = 0; u < columns; u++) {
        const offset = offsets[v * columns + u];
        if (offset === 0) continue;
        const left = row + blockStart(grid.left, grid.size, u);
        for (let x = left; x < left + grid.size; x++) values[x] += offset;
      }
    }
  }
}

/**
 * The ramp across one boundary, along a line of pixels: the line's k-th pixel is at
 * `origin + k · stride`, and `boundary` is the first pixel past the boundary. Pixel j from the
 * boundary moves by step · (size − 1 − 2j) / (2 · size): 7/16, 5/16, 3/16, 1/16 of it for
 * 8-pixel blocks.
 */
function ramp(values: Float32Array, origin: number, stride: number, boundary: number, size: number): void {
  const at = origin + boundary * stride;
  const before = values[at - stride];
  const after = values[at];
  const step = after - before - (before - values[at - 2 * stride] + values[at + stride] - after) / 2;
  for (let j = 0; j < size / 2; j++) {
    const shift = (step * (size - 1 - 2 * j)) / (2 * size);
    values[at - (1 + j) * stride] += shift;
    values[at + j * stride] -= shift;
  }
}

function rampAcrossColumns(values: Float32Array, strip: StripRows, blocks: BlockCorrections): void {
  const { grid, columns, rows } = blocks;
  for (let v = 0; v < rows; v++) {
    const [from, to] = rowsOf(strip, blocks, v);
    for (let u = 1; u < columns; u++) {
      const b = v * columns + u;
      if (!joined(blocks, b - 1, b)) continue;
      const boundary = blockStart(grid.left, grid.size, u);
      for (let y = from; y < to; y++) {
        const row = (y - strip.top) * strip.width;
        ramp(values, row, 1, boundary, grid.size);
      }
    }
  }
}

/** Boundaries whose ramp would reach past the strip are left to the strip that holds them. */
function rampAcrossRows(values: Float32Array, strip: StripRows, blocks: BlockCorrections): void {
  const { grid, columns, rows } = blocks;
  const reach = grid.size / 2 + 1;
  for (let v = 1; v < rows; v++) {
    const boundary = blockStart(grid.top, grid.size, v);
    if (boundary - reach < strip.top || boundary + reach > strip.top + strip.height) continue;
    for (let u = 0; u < columns; u++) {
      const b = v * columns + u;
      if (!joined(blocks, b - columns, b)) continue;
      const left = blockStart(grid.left, grid.size, u);
      for (let x = left; x < left + grid.size; x++) {
        ramp(values, x - strip.top * strip.width, strip.width, boundary, grid.size);
      }
    }
  }
}
