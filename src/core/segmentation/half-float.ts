/** Float values of all 65,536 half-precision bit patterns, built on first use. */
let halfTable: Float32Array | null = null;

/** IEEE 754 half-precision bit patterns to their float values. */
export function halfBitsToFloat(bits: Uint16Array): Float32Array {
  halfTable ??= buildHalfTable();
  const values = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) values[i] = halfTable[bits[i]];
  return values;
}

function buildHalfTable(): Float32Array {
  const table = new Float32Array(65536);
  for (let bits = 0; bits < 65536; bits++) {
    const sign = bits & 0x8000 ? -1 : 1;
    const exponent = (bits >> 10) & 0x1f;
    const fraction = bits & 0x3ff;
    if (exponent === 0) table[bits] = sign * fraction * 2 ** -24;
    else if (exponent === 31) table[bits] = fraction ? NaN : sign * Infinity;
    else table[bits] = sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
  }
  return table;
}
