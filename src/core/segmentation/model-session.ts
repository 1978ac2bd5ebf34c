import { performance } from 'node:perf_hooks';
import { Mutex } from 'async-mutex';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import type { RawImage } from '../../engine/raw-image';
import type { ProviderName } from './execution-providers';
import type { ModelManifest } from './model-manifest';
import { modelInput } from './model-input';
import { probabilityFromOutput } from './model-output';
import type { ProbabilityMap } from '../../engine/mask/probability-map';

/** Where one `probability` call spent its time, in milliseconds. */
export interface ProbabilityTimings {
  /** Waiting for the session's earlier calls to finish. */
  queuedMs: number;
  /** Resizing the image and building the input tensor. */
  preprocessMs: number;
  /** The model run. */
  inferenceMs: number;
  /** Decoding the output into 0..1. */
  postprocessMs: number;
}

export interface ProbabilityResult {
  /** The subject probability at the model's input size, whatever the image's size (a dynamic size keeps its aspect). */
  map: ProbabilityMap;
  /** The image as the model saw it: RGB resized to the map's size, for steps that read colours beside the map. */
  pixels: Buffer;
  timings: ProbabilityTimings;
}

/**
 * One onnxruntime session of a model, fed and read as its manifest says. Calls run one at a
 * time: the model's activations (hundreds of MB) then never exist twice in a process, and the
 * session's intra-op threads have the cores to themselves instead of competing with another inference.
 */
export class ModelSession {
  private readonly runs = new Mutex();
  private released = false;

  private constructor(
    private readonly session: InferenceSession,
    readonly manifest: ModelManifest,
  ) {}

  static async open(
    manifest: ModelManifest,
    weightsPath: string,
    options: { intraOpThreads: number; provider: ProviderName },
  ): Promise<ModelSession> {
    const session = await InferenceSession.create(weightsPath, {
      executionProviders: [options.provider],
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
    return new ModelSession(session, manifest);
  }

  get inputMetadata(): readonly InferenceSession.ValueMetadata[] {
    return this.session.inputMetadata;
  }

  get outputMetadata(): readonly InferenceSession.ValueMetadata[] {
    return this.session.outputMetadata;
  }

  /** The subject probability of `image` at the model's input size for it. */
  probability(image: RawImage): Promise<ProbabilityResult> {
    const called = performance.now();
    return this.runs.runExclusive(async () => {
      if (this.released) throw new Error(`The ${this.manifest.name} session has been released`);
      const { input, output } = this.manifest;
      const started = performance.now();
      const prepared = await modelInput(image, input);
      const preprocessed = performance.now();
      const outputs = await this.session.run({ [input.name]: new Tensor('float32', prepared.values, prepared.dims) });
      const inferred = performance.now();
      const outputName = typeof output.tensor === 'number' ? this.session.outputNames[output.tensor] : output.tensor;
      const map = probabilityFromOutput(outputs[outputName], output, prepared.size);
      const finished = performance.now();
      return {
        map,
        pixels: prepared.pixels,
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
}
