/**
 * sRGB's transfer function both ways. Light adds and multiplies in linear values (a white balance
 * is a gain per channel, an exposure change a gain on all three), while pixels are stored encoded;
 * both directions are tabulated so the per-pixel loops do no powers.
 */

/** Encoded 0..1 to linear 0..1 (IEC 61966-2-1). */
export function toLinear(encoded: number): number {
  return encoded <= 0.04045 ? encoded / 12.92 : ((encoded + 0.055) / 1.055) ** 2.4;
}

/** Linear 0..1 to encoded 0..1. */
export function toEncoded(linear: number): number {
  return linear <= 0.0031308 ? 12.92 * linear : 1.055 * linear ** (1 / 2.4) - 0.055;
}

/** The linear value of each 8-bit level. */
export const LINEAR_OF_LEVEL: Float32Array = Float32Array.from({ length: 256 }, (_, level) => toLinear(level / 255));

/**
 * Steps of the linear scale in LEVEL_OF_LINEAR and the per-pixel tables. At 16 383 the darkest step
 * is a fifth of an 8-bit level (the encoding is steepest there), so every level survives a round
 * trip exactly, and a table over them is quick to build.
 */
export const LINEAR_STEPS = 16_383;

/** The nearest 8-bit level of each step of the linear scale. */
export const LEVEL_OF_LINEAR: Uint8Array = Uint8Array.from({ length: LINEAR_STEPS + 1 }, (_, step) =>
  Math.round(255 * toEncoded(step / LINEAR_STEPS)),
);
