/**
 * Where a JPEG's blocks lie in a photo: squares of `size` pixels whose corners sit at
 * (left + k·size, top + j·size). Luma is coded in 8 x 8 blocks; colour, subsampled 2:1 both ways
 * (4:2:0, what encoders write by default), in blocks that cover 16 x 16 pixels. A crop or a turn
 * of the photo moves the corners, hence the offsets.
 */
export interface BlockGrid {
  size: number;
  left: number;
  top: number;
}

/** The blocks that lie wholly inside a width x height photo. */
export function wholeBlocks(grid: BlockGrid, width: number, height: number): { columns: number; rows: number } {
  const first = (start: number) => start % grid.size;
  return {
    columns: Math.max(0, Math.floor((width - first(grid.left)) / grid.size)),
    rows: Math.max(0, Math.floor((height - first(grid.top)) / grid.size)),
  };
}

/** The photo's column (or row) where whole block `index` starts. */
export const blockStart = (start: number, size: number, index: number) => (start % size) + index * size;

/**
 * The stride between rows that visits about `pixels` pixels of a width x height photo: odd, so
 * that rows at every position within 8- or 16-row blocks are among them.
 */
export function sampledRowStride(width: number, height: number, pixels: number): number {
  const stride = Math.max(1, Math.floor((width * height) / pixels));
  return stride % 2 === 0 ? stride + 1 : stride;
}
