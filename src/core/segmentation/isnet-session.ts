import { performance } from 'node:perf_hooks';
import { Mutex } from 'async-mutex';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { fromRaw, toRaw, type RawImage } from '../image/raw-image';
import type { PreparedModel } from './isnet-model';
import type { ProbabilityMap } from './probability-map';

/** Where one `probability` call spent its time, in milliseconds. */
export interface ProbabilityTimings {
  /** Waiting for the session's earlier calls to finish. */
  queuedMs: number;
  /** Resizing the image and building the input tensor. */
  preprocessMs: number;
  /** The model run. */
  inferenceMs: number;
  /** Stretching the output to 0..1. */
  postprocessMs: number;
}

export interface ProbabilityResult {
  /** The subject probability at the model's input size (`inputSize` x `inputSize`), whatever the image's size. */
  map: ProbabilityMap;
  /** The image as the model saw it: RGB resized to the map's size, for steps that read colours beside the map. */
  pixels: Buffer;
  timings: ProbabilityTimings;
}

/** rembg's `isnet-general-use` normalisation, which the model was trained with: (pixel / image max - mean) / std. */
const MEAN = 0.5;
const STD = 1.0;

/** Below this spread the output is flat (nothing stands out), and stretching it would only magnify noise. */
const FLAT_OUTPUT_RANGE = 1e-6;

/**
 * One onnxruntime CPU session of the prepared ISNet model. Calls run one at a time: the model's
 * activations (hundreds of MB) then never exist twice in a process, and the session's intra-op
 * threads have the cores to themselves instead of competing with another inference.
 */
export class IsnetSession {
  private readonly runs = new Mutex();
  private released = false;

  private constructor(
    private readonly session: InferenceSession,
    readonly inputSize: number,
  ) {}

  static async open(model: PreparedModel, options: { intraOpThreads: number }): Promise<IsnetSession> {
    const session = await InferenceSession.create(model.path, {
      executionProviders: ['cpu'],
      intraOpNumThreads: options.intraOpThreads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      // With the arena, memory freed between layers stays reserved: peak RSS passed 2 GB at 1024 px.
      enableCpuMemArena: false,
      executionMode: 'sequential',
      // Intra-op threads that spin between layers hold the cores they wait on, which the image
      // engine's threads and libvips need while a cut-out's inference runs.
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
    return new IsnetSession(session, model.inputSize);
  }

  /** The subject probability of `image`, resized to the model's square input regardless of its aspect ratio. */
  probability(image: RawImage): Promise<ProbabilityResult> {
    const called = performance.now();
    return this.runs.runExclusive(async () => {
      if (this.released) throw new Error('The ISNet session has been released');
      const started = performance.now();
      const { tensor: input, pixels } = await this.modelInput(image);
      const preprocessed = performance.now();
      const outputs = await this.session.run({ [this.session.inputNames[0]]: input });
      const inferred = performance.now();
      const output = outputs[this.session.outputNames[0]].data;
      if (!(output instanceof Float32Array))
        throw new Error('The ISNet model answered something other than float32 values');
      const map: ProbabilityMap = { data: stretchToUnitRange(output), width: this.inputSize, height: this.inputSize };
      const finished = performance.now();
      return {
        map,
        pixels,
        timings: {
          queuedMs: started - called,
          preprocessMs: preprocessed - started,
          inferenceMs: inferred - preprocessed,
          postprocessMs: finished - inferred,
        },
      };
    });
  }

  /** Frees the session's memory once any call in progress has finished; later calls are refused. */
  async release(): Promise<void> {
    await this.runs.runExclusive(async () => {
      if (this.released) return;
      this.released = true;
      await this.session.release();
    });
  }

  /** RGB resized to the input size (sharp's default Lanczos 3, as rembg's PIL Lanczos), normalised, NCHW float32. */
  private async modelInput(image: RawImage): Promise<{ tensor: Tensor; pixels: Buffer }> {
    // sharp premultiplies by alpha while resizing, which turns transparent pixels black; the model
    // expects the colours underneath (rembg's PIL `convert('RGB')`), so alpha is dropped before.
    const rgb = image.channels === 4 ? await toRaw(fromRaw(image).removeAlpha()) : image;
    const size = this.inputSize;
    const pixels = (await toRaw(fromRaw(rgb).resize(size, size, { fit: 'fill' }))).data;

    let brightest = 0;
    for (const value of pixels) if (value > brightest) brightest = value;
    // An all-black image has nothing to scale; any divisor leaves it at 0.
    const scale = 1 / Math.max(brightest, 1);

    const plane = size * size;
    const tensor = new Float32Array(3 * plane);
    for (let i = 0, pixel = 0; i < plane; i++, pixel += 3) {
      tensor[i] = (pixels[pixel] * scale - MEAN) / STD;
      tensor[plane + i] = (pixels[pixel + 1] * scale - MEAN) / STD;
      tensor[2 * plane + i] = (pixels[pixel + 2] * scale - MEAN) / STD;
    }
    return { tensor: new Tensor('float32', tensor, [1, 3, size, size]), pixels };
  }
}

/**
 * The output min-max stretched to 0..1 in place, as rembg does. A flat output keeps its values,
 * which are already sigmoid probabilities, rather than dividing by a spread of zero.
 */
function stretchToUnitRange(output: Float32Array): Float32Array {
  let min = Infinity;
  let max = -Infinity;
  for (const value of output) {
    if (value < min) min = value;
    if (value > max) max = value;
  }
  const range = max - min;
  if (range < FLAT_OUTPUT_RANGE) return output;
  for (let i = 0; i < output.length; i++) output[i] = (output[i] - min) / range;
  return output;
}
