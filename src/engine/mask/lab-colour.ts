/**
 * CIELAB (D65) of 8-bit sRGB, for colour distances that follow what the eye sees: a distance of
 * about 2 is barely visible, 10 is clearly another shade, 40 another colour.
 */

const LINEAR = new Float32Array(256);
for (let v = 0; v < 256; v++) {
  const c = v / 255;
  LINEAR[v] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

const EPSILON = 216 / 24389;
const KAPPA = 24389 / 27;
const f = (t: number) => (t > EPSILON ? Math.cbrt(t) : (KAPPA * t + 16) / 116);

/** L, a and b of one sRGB colour, written to `out` at `offset`. */
export function labOf(r: number, g: number, b: number, out: Float32Array, offset: number): void {
  const lr = LINEAR[r];
  const lg = LINEAR[g];
  const lb = LINEAR[b];
  const fx = f((0.4124 * lr + 0.3576 * lg + 0.1805 * lb) / 0.95047);
  const fy = f(0.2126 * lr + 0.7152 * lg + 0.0722 * lb);
  const fz = f((0.0193 * lr + 0.1192 * lg + 0.9505 * lb) / 1.08883);
  out[offset] = 116 * fy - 16;
  out[offset + 1] = 500 * (fx - fy);
  out[offset + 2] = 200 * (fy - fz);
}

/** Euclidean distance (CIE76) between the colours at `i` of `a` and `j` of `b`, both L, a, b triples. */
export function labDistance(
  a: Float32Array | Float64Array,
  i: number,
  b: Float32Array | Float64Array,
  j: number,
): number {
  const dl = a[i] - b[j];
  const da = a[i + 1] - b[j + 1];
  const db = a[i + 2] - b[j + 2];
  return Math.sqrt(dl * dl + da * da + db * db);
}
