import type { RawImage, Size } from './raw-image';

/**
 * Where to cut a window out of an image so that it keeps what matters: detail (luma edges) and
 * colour, weighted by opacity. sharp's `attention` strategy only works while scaling to cover the
 * box; the `crop` fit cuts at the source's own scale, so the search is done here, on a coarse
 * grid of the image with a summed-area table, in one pass per candidate position.
 */

export interface WindowPosition {
  left: number;
  top: number;
}

/** The grid has at most this many cells on its longer side. */
const GRID_SIDE = 128;
/** Later windows overlap earlier ones by at most this share of their area. */
const MAX_OVERLAP = 0.5;
/** Among equally interesting windows, the one nearer the centre wins. */
const CENTRE_BIAS = 0.05;

interface Grid {
  cell: number;
  width: number;
  height: number;
  /** Summed-area table of interest, (width + 1) x (height + 1). */
  sums: Float64Array;
}

function interestGrid(image: RawImage): Grid {
  const cell = Math.max(1, Math.ceil(Math.max(image.width, image.height) / GRID_SIDE));
  const width = Math.ceil(image.width / cell);
  const height = Math.ceil(image.height / cell);
  const { data, channels } = image;
  const at = (x: number, y: number) =>
    (Math.min(y, image.height - 1) * image.width + Math.min(x, image.width - 1)) * channels;
  const lumaAt = (i: number) => 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2];
  const sums = new Float64Array((width + 1) * (height + 1));
  for (let gy = 0; gy < height; gy++) {
    let row = 0;
    for (let gx = 0; gx < width; gx++) {
      // One pixel per cell with its right and lower neighbours a cell away: edges at the grid's scale.
      const x = gx * cell;
      const y = gy * cell;
      const here = at(x, y);
      const right = at(x + cell, y);
      const below = at(x, y + cell);
      const opacity = channels === 4 ? data[here + 3] / 255 : 1;
      const edge = Math.abs(lumaAt(here) - lumaAt(right)) + Math.abs(lumaAt(here) - lumaAt(below));
      const chroma =
        Math.max(data[here], data[here + 1], data[here + 2]) - Math.min(data[here], data[here + 1], data[here + 2]);
      row += opacity * (edge + 0.5 * chroma);
      sums[(gy + 1) * (width + 1) + gx + 1] = sums[gy * (width + 1) + gx + 1] + row;
    }
  }
  return { cell, width, height, sums };
}

function windowSum(grid: Grid, x: number, y: number, w: number, h: number): number {
  const stride = grid.width + 1;
  return (
    grid.sums[(y + h) * stride + x + w] -
    grid.sums[y * stride + x + w] -
    grid.sums[(y + h) * stride + x] +
    grid.sums[y * stride + x]
  );
}

function overlap(a: WindowPosition, b: WindowPosition, size: Size): number {
  const w = Math.max(0, Math.min(a.left, b.left) + size.width - Math.max(a.left, b.left));
  const h = Math.max(0, Math.min(a.top, b.top) + size.height - Math.max(a.top, b.top));
  return (w * h) / (size.width * size.height);
}

/**
 * Up to `count` positions of a `size` window inside `image`, most interesting first, each
 * overlapping the ones before it by at most half. The first is always there; fewer come back
 * when the image has no room for distinct windows.
 */
export function interestingWindows(image: RawImage, size: Size, count: number): WindowPosition[] {
  const grid = interestGrid(image);
  const w = Math.min(grid.width, Math.max(1, Math.round(size.width / grid.cell)));
  const h = Math.min(grid.height, Math.max(1, Math.round(size.height / grid.cell)));
  const maxLeft = image.width - size.width;
  const maxTop = image.height - size.height;
  const candidates: Array<WindowPosition & { score: number }> = [];
  const spanX = Math.max(1, grid.width - w);
  const spanY = Math.max(1, grid.height - h);
  for (let y = 0; y <= grid.height - h; y++) {
    for (let x = 0; x <= grid.width - w; x++) {
      const offCentre = Math.hypot(x / spanX - 0.5, y / spanY - 0.5);
      candidates.push({
        left: Math.min(maxLeft, x * grid.cell),
        top: Math.min(maxTop, y * grid.cell),
        score: (windowSum(grid, x, y, w, h) + 1) * (1 - CENTRE_BIAS * offCentre),
      });
    }
  }
  candidates.sort((a, b) => b.score - a.score);
  const chosen: WindowPosition[] = [];
  for (const candidate of candidates) {
    if (chosen.length === count) break;
    if (chosen.every((earlier) => overlap(earlier, candidate, size) <= MAX_OVERLAP)) {
      chosen.push({ left: candidate.left, top: candidate.top });
    }
  }
  return chosen;
}
