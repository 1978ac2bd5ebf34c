import type { Size } from '../../engine/raw-image';
import { halfBitsToFloat } from './half-float';
import type { ModelOutput } from './model-manifest';
import type { ProbabilityMap } from '../../engine/mask/probability-map';

/** Below this spread the output is flat (nothing stands out), and stretching it would only magnify noise. */
const FLAT_OUTPUT_RANGE = 1e-6;

/** One output as the runtime hands it back: float32 values; float16 as bits, or a Float16Array where one exists. */
export interface OutputTensor {
  data: unknown;
  dims: readonly number[];
}

/**
 * The model's output as a probability map at `size`: decoded from float16 when the model answers
 * that, its first channel taken (rembg's `[:, 0]`), a sigmoid applied to logits, and min-max
 * stretched to 0..1 when the manifest says so. Throws when the output is not a map of `size`.
 */
export function probabilityFromOutput(tensor: OutputTensor, output: ModelOutput, size: Size): ProbabilityMap {
  const spatial = spatialDims(tensor.dims);
  if (!spatial || spatial[0] !== size.height || spatial[1] !== size.width) {
    throw new Error(`answered dims [${tensor.dims.join(', ')}] for a ${size.width}x${size.height} input`);
  }
  const values = decoded(tensor.data, output.type, size.width * size.height);
  if (output.activation === 'sigmoid')
    for (let i = 0; i < values.length; i++) values[i] = 1 / (1 + Math.exp(-values[i]));
  if (output.minMaxStretch) stretchToUnitRange(values);
  return { data: values, width: size.width, height: size.height };
}

/** Height and width of a one-image map: [1, H, W], [1, C, H, W] or [1, H, W, 1]. */
function spatialDims(dims: readonly number[]): [number, number] | null {
  if (dims[0] !== 1) return null;
  if (dims.length === 3) return [dims[1], dims[2]];
  if (dims.length !== 4) return null;
  return dims[3] === 1 && dims[1] !== 1 ? [dims[1], dims[2]] : [dims[2], dims[3]];
}

/** The first `count` values as a fresh Float32Array (the map is ours to change in place). */
function decoded(data: unknown, type: ModelOutput['type'], count: number): Float32Array {
  if (type === 'float32') {
    if (!(data instanceof Float32Array)) throw new Error('answered something other than float32 values');
    return data.length === count ? data : data.slice(0, count);
  }
  if (data instanceof Uint16Array) return halfBitsToFloat(data.subarray(0, count));
  // Where the runtime has Float16Array it hands float16 values over as one.
  if (ArrayBuffer.isView(data) && data.constructor.name === 'Float16Array') {
    return Float32Array.from(data as unknown as ArrayLike<number>).subarray(0, count);
  }
  throw new Error('answered something other than float16 values');
}

/**
 * The map min-max stretched to 0..1 in place, as rembg does. A flat output keeps its values,
 * which are already probabilities, rather than dividing by a spread of zero.
 */
function stretchToUnitRange(values: Float32Array): void {
  let min = Infinity;
  let max = -Infinity;
  // An indexed loop: an iterator over the whole map costs several times as much.
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value < min) min = value;
    if (value > max) max = value;
  }
  const range = max - min;
  if (range < FLAT_OUTPUT_RANGE) return;
  for (let i = 0; i < values.length; i++) values[i] = (values[i] - min) / range;
}
