import { InferenceSession, Tensor } from 'onnxruntime-node';
import { ESRGAN_INPUT, ESRGAN_OUTPUT } from './esrgan-conversion';
import type { ModelScale, PreparedEsrganModel } from './esrgan-model';

/**
 * One onnxruntime CPU session of a prepared ESRGAN model: a planar RGB tile in, the tile
 * `scale` times larger out. It holds no lock of its own; LocalUpscaler runs one tile at a time.
 */
export class EsrganSession {
  private constructor(
    private readonly session: InferenceSession,
    readonly scale: ModelScale,
  ) {}

  static async open(model: PreparedEsrganModel, options: { intraOpThreads: number }): Promise<EsrganSession> {
    const session = await InferenceSession.create(model.path, {
      executionProviders: ['cpu'],
      intraOpNumThreads: options.intraOpThreads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      // The arena keeps the activations' memory between tiles: every tile of a scale has the same
      // shape, so it is reused as is instead of being mapped and faulted in again for each tile,
      // which made an enlargement about a sixth slower (bench:pipeline, upscale). The price is that
      // memory (a few hundred MB per scale) staying reserved once a scale has run.
      enableCpuMemArena: true,
      executionMode: 'sequential',
      // Intra-op threads that spin between layers hold the cores they wait on, which the image
      // engine's threads and libvips need while a tile runs.
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
    return new EsrganSession(session, model.scale);
  }

  /** `tile` (planar RGB, 0..255) of `width` x `height`, enlarged; the values are the model's, unclamped. */
  async enlarge(tile: Float32Array, width: number, height: number): Promise<Float32Array> {
    const outputs = await this.session.run({ [ESRGAN_INPUT]: new Tensor('float32', tile, [1, 3, height, width]) });
    const output = outputs[ESRGAN_OUTPUT].data;
    if (!(output instanceof Float32Array)) throw new Error('The ESRGAN model answered something other than float32');
    return output;
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
