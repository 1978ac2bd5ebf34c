/**
 * The local Wiener filter in the guided filter's form (He, Sun & Tang's self-guided filter with
 * the noise variance as its regulariser, as in Lee's local statistics filter): in each 5 x 5
 * window a pixel keeps the share of its difference from the window's mean that the noise cannot
 * explain, (variance − noise variance) / variance, and moves to the mean by the rest. A flat
 * window (all its variance is noise) becomes its mean; a window across an edge or over texture
 * (variance far above the noise) keeps its pixels; linear shading passes unchanged, since a
 * window's mean is its centre value.
 *
 * The coefficients are then averaged over the windows that cover each pixel, as the guided
 * filter does: near an edge, the windows that stay on one side smooth what the window across it
 * keeps, so noise goes down along edges too (by a third on the test photos, where Lee's filter
 * alone left it as it was).
 *
 * 5 x 5: 25 samples estimate a window's variance within about a third, enough to tell noise
 * from detail, and the averaged coefficients reach 9 x 9, taking flat noise down about 5 times.
 * Windows are clipped at the plane's borders. Running sums of two quantities at once, along the
 * rows and then carried down the columns: each of the two box passes reads the plane twice,
 * whatever the radius (half the time of two separate box filters).
 */
const RADIUS = 2;

/** Four arrays of at least a plane's size, reused between calls. */
export type WienerScratch = [Float32Array, Float32Array, Float32Array, Float32Array];

export const wienerScratch = (pixels: number): WienerScratch => [
  new Float32Array(pixels),
  new Float32Array(pixels),
  new Float32Array(pixels),
  new Float32Array(pixels),
];

/** Filters `values` (a width x height plane) in place for noise of `noiseVariance`; none leaves them as they are. */
export function wienerFilter(
  values: Float32Array,
  width: number,
  height: number,
  noiseVariance: number,
  scratch: WienerScratch = wienerScratch(width * height),
): void {
  if (!(noiseVariance > 0)) return;
  const [rowsA, rowsB, gains, offsets] = scratch;
  const across = inverseSpans(width);
  const down = inverseSpans(height);
  // Column sums of the row sums over the current row's window, carried down.
  const columnsA = new Float64Array(width);
  const columnsB = new Float64Array(width);

  // Window means of p and p², then the gain and offset of q = gain·p + offset, window by window.
  rowSumsWithSquares(values, rowsA, rowsB, width, height);
  startColumns(rowsA, rowsB, columnsA, columnsB, width, height);
  for (let y = 0; y < height; y++) {
    if (y + RADIUS < height) addRow(rowsA, rowsB, columnsA, columnsB, (y + RADIUS) * width, 1);
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const area = across[x] * down[y];
      const mean = columnsA[x] * area;
      const variance = columnsB[x] * area - mean * mean;
      const gain = variance > noiseVariance ? (variance - noiseVariance) / variance : 0;
      gains[row + x] = gain;
      offsets[row + x] = mean - gain * mean;
    }
    if (y >= RADIUS) addRow(rowsA, rowsB, columnsA, columnsB, (y - RADIUS) * width, -1);
  }

  // The same windows' means of the gains and offsets, applied.
  rowSumsOfPair(gains, offsets, rowsA, rowsB, width, height);
  startColumns(rowsA, rowsB, columnsA, columnsB, width, height);
  for (let y = 0; y < height; y++) {
    if (y + RADIUS < height) addRow(rowsA, rowsB, columnsA, columnsB, (y + RADIUS) * width, 1);
    const row = y * width;
    for (let x = 0; x < width; x++) {
      values[row + x] = (columnsA[x] * values[row + x] + columnsB[x]) * across[x] * down[y];
    }
    if (y >= RADIUS) addRow(rowsA, rowsB, columnsA, columnsB, (y - RADIUS) * width, -1);
  }
}

/** 1 / the length of the clipped window at each position along an axis. */
function inverseSpans(length: number): Float64Array {
  const spans = new Float64Array(length);
  for (let at = 0; at < length; at++)
    spans[at] = 1 / (Math.min(at + RADIUS, length - 1) - Math.max(at - RADIUS, 0) + 1);
  return spans;
}

/** Sums of `values` and of their squares along each row, over [x − RADIUS, x + RADIUS]. */
function rowSumsWithSquares(
  values: Float32Array,
  sums: Float32Array,
  squares: Float32Array,
  width: number,
  height: number,
): void {
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let sum = 0;
    let square = 0;
    for (let x = 0; x < Math.min(RADIUS, width); x++) {
      sum += values[row + x];
      square += values[row + x] * values[row + x];
    }
    for (let x = 0; x < width; x++) {
      if (x + RADIUS < width) {
        const entering = values[row + x + RADIUS];
        sum += entering;
        square += entering * entering;
      }
      sums[row + x] = sum;
      squares[row + x] = square;
      if (x >= RADIUS) {
        const leaving = values[row + x - RADIUS];
        sum -= leaving;
        square -= leaving * leaving;
      }
    }
  }
}

/** Sums of `first` and of `second` along each row, over [x − RADIUS, x + RADIUS]. */
function rowSumsOfPair(
  first: Float32Array,
  second: Float32Array,
  sumsA: Float32Array,
  sumsB: Float32Array,
  width: number,
  height: number,
): void {
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let a = 0;
    let b = 0;
    for (let x = 0; x < Math.min(RADIUS, width); x++) {
      a += first[row + x];
      b += second[row + x];
    }
    for (let x = 0; x < width; x++) {
      if (x + RADIUS < width) {
        a += first[row + x + RADIUS];
        b += second[row + x + RADIUS];
      }
      sumsA[row + x] = a;
      sumsB[row + x] = b;
      if (x >= RADIUS) {
        a -= first[row + x - RADIUS];
        b -= second[row + x - RADIUS];
      }
    }
  }
}

/** The column sums before the first row: rows 0 to RADIUS − 1, the part of its window above row RADIUS. */
function startColumns(
  rowsA: Float32Array,
  rowsB: Float32Array,
  columnsA: Float64Array,
  columnsB: Float64Array,
  width: number,
  height: number,
): void {
  columnsA.fill(0);
  columnsB.fill(0);
  for (let y = 0; y < Math.min(RADIUS, height); y++) addRow(rowsA, rowsB, columnsA, columnsB, y * width, 1);
}

/** Adds (sign 1) or takes away (sign −1) the row starting at `row` to the column sums. */
function addRow(
  rowsA: Float32Array,
  rowsB: Float32Array,
  columnsA: Float64Array,
  columnsB: Float64Array,
  row: number,
  sign: number,
): void {
  for (let x = 0; x < columnsA.length; x++) {
    columnsA[x] += sign * rowsA[row + x];
    columnsB[x] += sign * rowsB[row + x];
  }
}
