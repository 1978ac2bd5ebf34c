import { blockStart } from './block-grid';
import type { BlockCorrections } from './jpeg-blocks';
import type { StripRows } from './jpeg-deblock';

/**
 * Deringing of one plane of a JPEG in a strip, in place, after MPEG-4's post-filter (ISO/IEC
 * 14496-2, annex F), on the plane's own blocks (8 pixels for luma, 16 for colour): a block
 * holding an edge rings (the coarsely rounded coefficients leave ripples on
 * both flat sides of the edge). The block, with the pixel ring around it, is split into its
 * brighter and darker side at the middle of its range; a pixel whose 3 x 3 neighbourhood lies
 * on one side only is a flat part of that side and becomes the neighbourhood's mean, moved by
 * at most two DC steps (ripples are that small; detail is not). Pixels at the edge, and texture,
 * whose neighbourhoods mix both sides, are left alone, so edges and texture keep their contrast.
 * Two passes, as the ripples reach further than one pixel.
 */

const PASSES = 2;
const LARGEST_CHANGE = 2;

export function deringPlane(values: Float32Array, strip: StripRows, blocks: BlockCorrections): void {
  for (let pass = 0; pass < PASSES; pass++) deringPass(values, values.slice(), strip, blocks);
}

function deringPass(values: Float32Array, source: Float32Array, strip: StripRows, blocks: BlockCorrections): void {
  const { grid, columns, rows, smooth, step } = blocks;
  const { width } = strip;
  const limit = LARGEST_CHANGE * step;
  for (let v = 0; v < rows; v++) {
    const top = blockStart(grid.top, grid.size, v);
    // Blocks that reach past the strip belong to the strips beside it; the ring stops at the strip's
    // ends, which are the photo's where no strip lies beyond.
    if (top < strip.top || top + grid.size > strip.top + strip.height) continue;
    const first = Math.max(strip.top, top - 1);
    const last = Math.min(strip.top + strip.height - 1, top + grid.size);
    for (let u = 0; u < columns; u++) {
      if (smooth[v * columns + u]) continue;
      const left = blockStart(grid.left, grid.size, u);
      const x0 = Math.max(0, left - 1);
      const x1 = Math.min(width - 1, left + grid.size);
      let low = Infinity;
      let high = -Infinity;
      for (let y = first; y <= last; y++) {
        const row = (y - strip.top) * width;
        for (let x = x0; x <= x1; x++) {
          const value = source[row + x];
          if (value < low) low = value;
          if (value > high) high = value;
        }
      }
      const middle = (low + high) / 2;
      for (let y = top; y < top + grid.size; y++) {
        const row = (y - strip.top) * width;
        for (let x = left; x < left + grid.size; x++) {
          const side = source[row + x] >= middle;
          let sum = 0;
          let count = 0;
          let oneSide = true;
          const above = y > first ? -width : 0;
          const below = y < last ? width : 0;
          for (let dy = above; dy <= below && oneSide; dy += width) {
            for (let dx = Math.max(-1, -x); dx <= Math.min(1, width - 1 - x); dx++) {
              const value = source[row + x + dy + dx];
              if (value >= middle !== side) {
                oneSide = false;
                break;
              }
              sum += value;
              count++;
            }
          }
          if (!oneSide) continue;
          const change = sum / count - source[row + x];
          values[row + x] = source[row + x] + Math.max(-limit, Math.min(limit, change));
        }
      }
    }
  }
}
