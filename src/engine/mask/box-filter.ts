/**
 * In-place mean over a (2r+1) x (2r+1) window, clipped at the image's edges (each pixel is the
 * mean of the window's pixels that exist, as the guided filter's N normalisation asks). Running
 * sums, one pass per direction, so the cost does not depend on the radius. The rows use a
 * prefix sum with precomputed window ends, so the inner loop has no branch. The vertical pass
 * walks rows, not columns, to stay cache-friendly, and keeps the r + 1 input rows it still
 * needs in a ring, so no second image-sized array is allocated.
 */
export function boxMean(values: Float32Array, width: number, height: number, radius: number): void {
  if (radius < 1) return;
  // A window wider than the image covers all of it either way; this bounds the ring.
  const r = Math.min(radius, Math.max(width, height));
  meanAlongRows(values, width, height, r);
  meanAlongColumns(values, width, height, r);
}

function meanAlongRows(values: Float32Array, width: number, height: number, r: number): void {
  const start = new Int32Array(width);
  const end = new Int32Array(width);
  const scale = new Float64Array(width);
  for (let x = 0; x < width; x++) {
    start[x] = Math.max(0, x - r);
    end[x] = Math.min(width, x + r + 1);
    scale[x] = 1 / (end[x] - start[x]);
  }
  const prefix = new Float64Array(width + 1);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) prefix[x + 1] = prefix[x] + values[row + x];
    for (let x = 0; x < width; x++) values[row + x] = (prefix[end[x]] - prefix[start[x]]) * scale[x];
  }
}

/**
 * Column sums carried down the rows: row y + r enters, row y - r - 1 leaves. The leaving row was
 * already overwritten, so its input is read back from the ring, whose slot it shares with row y;
 * slots not yet written and rows past the bottom read as zeros.
 */
function meanAlongColumns(values: Float32Array, width: number, height: number, r: number): void {
  const ring = new Float32Array((r + 1) * width);
  const zeros = new Float32Array(width);
  const sums = new Float64Array(width);
  for (let y = 0; y < Math.min(r, height); y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) sums[x] += values[row + x];
  }
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const entering = y + r < height ? values.subarray((y + r) * width, (y + r + 1) * width) : zeros;
    const slot = (y % (r + 1)) * width;
    const scale = 1 / (Math.min(y + r, height - 1) - Math.max(y - r, 0) + 1);
    for (let x = 0; x < width; x++) {
      const sum = sums[x] + entering[x] - ring[slot + x];
      sums[x] = sum;
      ring[slot + x] = values[row + x];
      values[row + x] = sum * scale;
    }
  }
}
