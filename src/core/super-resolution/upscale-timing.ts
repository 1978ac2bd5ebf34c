import { performance } from 'node:perf_hooks';
import type { RawImage, Size } from '../../engine/raw-image';
import type { ModelScale } from './esrgan-model';
import { prepareEsrganModel } from './esrgan-model';
import { EsrganSession } from './esrgan-session';
import { LocalUpscaler, type LocalUpscalerSettings } from './local-upscaler';
import { tilingFor } from './tiling';

export interface UpscaleTimings {
  scale: ModelScale;
  /** One tile as the upscaler cuts them (its own part and the overlap), run bare through the session. */
  tile: Size;
  tileMs: number;
  /** `image` enlarged tile by tile, as a result is (mirrored borders, reassembly and clamping included). */
  image: Size;
  imageMs: number;
}

/**
 * For the benchmark: the model of `scale` timed on one bare tile and on the whole `image`, in a
 * fresh upscaler whose loading (and one warm-up tile) is not counted.
 */
export async function timeUpscaling(
  settings: LocalUpscalerSettings,
  image: RawImage,
  scale: ModelScale,
): Promise<UpscaleTimings> {
  const upscaler = new LocalUpscaler(settings);
  // The bare tile is timed on a session of this thread's own; the whole image goes through the upscaler's thread.
  const session = await EsrganSession.open(await prepareEsrganModel({ modelsDir: settings.modelsDir, scale }), {
    intraOpThreads: settings.threads,
  });
  try {
    const { tileSide, overlap } = tilingFor(scale);
    const side = tileSide + 2 * overlap;
    const tile = new Float32Array(3 * side * side).fill(128);
    await session.enlarge(tile, side, side);
    const tileStarted = performance.now();
    await session.enlarge(tile, side, side);
    const tileMs = performance.now() - tileStarted;
    await upscaler.enlarge(image, scale, new AbortController().signal);
    const imageStarted = performance.now();
    await upscaler.enlarge(image, scale, new AbortController().signal);
    const imageMs = performance.now() - imageStarted;
    return {
      scale,
      tile: { width: side, height: side },
      tileMs,
      image: { width: image.width, height: image.height },
      imageMs,
    };
  } finally {
    await session.release();
    await upscaler.onModuleDestroy();
  }
}
