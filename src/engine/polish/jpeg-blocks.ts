import type { RawImage } from '../raw-image';
import { blockStart, wholeBlocks, type BlockGrid } from './block-grid';
import { yccBuffers, yccStrip } from './ycc';

/**
 * A JPEG's blocks in one plane, and what a heavy compression did to them. Each block's mean is
 * its DC coefficient, which the encoder rounded to a multiple of its step: on smooth shading the
 * blocks become flat tiles a step apart (blocking), each off the true mean by up to half a step.
 * The truth is smooth across blocks, so each smooth block's mean is re-estimated from its
 * neighbours (a plane fitted through the means of the smooth blocks around it) and kept within
 * half a step of the coded mean, the only values the file allows.
 */

export interface BlockStatistics {
  grid: BlockGrid;
  columns: number;
  rows: number;
  means: Float32Array;
  variances: Float32Array;
}

export interface BlockCorrections {
  grid: BlockGrid;
  columns: number;
  rows: number;
  /** The plane's DC step in levels: what its block means were rounded to. */
  step: number;
  /** 1 where the block is smooth shading (its variance within one step²), 0 where it holds an edge or texture. */
  smooth: Uint8Array;
  /** The re-estimated mean minus the coded mean (0 for the other blocks). */
  offsets: Float32Array;
  /** The re-estimated means (the coded means for the other blocks). */
  means: Float32Array;
}

/** Blocks either side of a smooth block, each way, whose means it is fitted on: 7 x 7 blocks, 56 px of luma. */
const FIT_RADIUS = 3;
const STRIP_ROWS = 64;

/** Mean and variance of every whole block of the luma grid (plane 0) and the colour grid (planes 1, 2), in one pass. */
export function blockStatistics(
  image: RawImage,
  luma: BlockGrid,
  chroma: BlockGrid,
): [BlockStatistics, BlockStatistics, BlockStatistics] {
  const grids = [luma, chroma, chroma];
  const sums = grids.map((grid) => {
    const { columns, rows } = wholeBlocks(grid, image.width, image.height);
    return { grid, columns, rows, sum: new Float64Array(columns * rows), squares: new Float64Array(columns * rows) };
  });
  const rows = yccBuffers(STRIP_ROWS * image.width);
  for (let first = 0; first < image.height; first += STRIP_ROWS) {
    const strip = yccStrip(image, first, Math.min(image.height, first + STRIP_ROWS), rows);
    for (let k = 0; k < 3; k++) {
      const { grid, columns, rows, sum, squares } = sums[k];
      const values = strip.planes[k];
      const left = blockStart(grid.left, grid.size, 0);
      const top = blockStart(grid.top, grid.size, 0);
      for (let y = strip.top; y < strip.top + strip.height; y++) {
        const blockRow = Math.floor((y - top) / grid.size);
        if (y < top || blockRow >= rows) continue;
        const row = (y - strip.top) * image.width;
        for (let column = 0; column < columns; column++) {
          const b = blockRow * columns + column;
          for (let x = left + column * grid.size, end = x + grid.size; x < end; x++) {
            const value = values[row + x];
            sum[b] += value;
            squares[b] += value * value;
          }
        }
      }
    }
  }
  return sums.map(({ grid, columns, rows, sum, squares }) => {
    const pixels = grid.size * grid.size;
    const means = Float32Array.from(sum, (total) => total / pixels);
    const variances = Float32Array.from(squares, (total, b) => Math.max(0, total / pixels - means[b] * means[b]));
    return { grid, columns, rows, means, variances };
  }) as [BlockStatistics, BlockStatistics, BlockStatistics];
}

/**
 * Each smooth block's mean fitted by least squares as a plane a + b·u + c·v over the smooth
 * blocks within FIT_RADIUS whose means are within one step per block of distance of its own
 * (further apart, they are two sides of an edge), then clamped to half a step of the coded mean.
 * A plane, not a mean, so that shading keeps its slope up to the photo's border and an edge.
 */
export function correctedBlocks(statistics: BlockStatistics, step: number): BlockCorrections {
  const { grid, columns, rows, means, variances } = statistics;
  const smooth = Uint8Array.from(variances, (variance) => (variance <= step * step ? 1 : 0));
  const offsets = new Float32Array(columns * rows);
  for (let v = 0; v < rows; v++) {
    for (let u = 0; u < columns; u++) {
      const b = v * columns + u;
      if (smooth[b]) offsets[b] = Math.max(-step / 2, Math.min(step / 2, fittedOffset(statistics, smooth, u, v, step)));
    }
  }
  return {
    grid,
    columns,
    rows,
    step,
    smooth,
    offsets,
    means: Float32Array.from(means, (mean, b) => mean + offsets[b]),
  };
}

/** The fitted plane's value at block (u, v), less the block's coded mean. */
function fittedOffset(statistics: BlockStatistics, smooth: Uint8Array, u: number, v: number, step: number): number {
  const { columns, rows, means } = statistics;
  const centre = means[v * columns + u];
  // Normal equations of the plane, with (u, v) as the origin so the value sought is a.
  let n = 0;
  let su = 0;
  let sv = 0;
  let suu = 0;
  let svv = 0;
  let suv = 0;
  let sz = 0;
  let suz = 0;
  let svz = 0;
  for (let j = Math.max(0, v - FIT_RADIUS); j <= Math.min(rows - 1, v + FIT_RADIUS); j++) {
    for (let i = Math.max(0, u - FIT_RADIUS); i <= Math.min(columns - 1, u + FIT_RADIUS); i++) {
      const b = j * columns + i;
      const du = i - u;
      const dv = j - v;
      const z = means[b] - centre;
      if (!smooth[b] || Math.abs(z) > step * (1 + Math.max(Math.abs(du), Math.abs(dv)))) continue;
      n++;
      su += du;
      sv += dv;
      suu += du * du;
      svv += dv * dv;
      suv += du * dv;
      sz += z;
      suz += du * z;
      svz += dv * z;
    }
  }
  // Cramer's rule for a; blocks all in one line (or alone) make the system singular: their mean then.
  const determinant = n * (suu * svv - suv * suv) - su * (su * svv - suv * sv) + sv * (su * suv - suu * sv);
  if (Math.abs(determinant) < 1e-6) return sz / n;
  return (sz * (suu * svv - suv * suv) - su * (suz * svv - suv * svz) + sv * (suz * suv - suu * svz)) / determinant;
}
