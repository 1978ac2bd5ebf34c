import { INLINE_ENGINE } from '../src/engine/pixel-engine';
/**
 * The upscale part of `npm run bench:pipeline`, forked by bench/pipeline.ts so its peak RSS is
 * its own. For each case (x2 of a 1 MP source, x4 of a 0.25 MP source):
 *
 * 1. the worker's path: inspectSource, then EDIT_PIPELINE with `restorations.upscale` and the size the
 *    scale gives, thumbnail included, one result at a time (the first run, which loads the
 *    model, is reported apart);
 * 2. the ONNX model run bare on one tile as the upscaler cuts them, and on the whole image tile by
 *    tile (timeUpscaling);
 * 3. the same model in its original form, TensorFlow.js on its WebAssembly backend, on the same
 *    tile: the other way the issue of choosing a runtime could go. It runs last, after the peak
 *    RSS of the worker's path is read, so its memory is not counted against ours.
 *
 * Its task comes as JSON in BENCH_UPSCALE_TASK; it answers with one IPC message.
 */
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import type { io, Tensor } from '@tensorflow/tfjs';
import sharp from 'sharp';
import { inspectSource } from '../src/core/image/source-image';
import { esrganSource } from '../src/core/super-resolution/esrgan-model';
import type { ModelScale } from '../src/core/super-resolution/upscaler';
import { LocalUpscaler } from '../src/core/super-resolution/local-upscaler';
import { timeUpscaling, type UpscaleTimings } from '../src/core/super-resolution/upscale-timing';
import { EDIT_PIPELINE } from '../src/modules/tools/image-editing/edit-pipeline';
import { runPipeline } from '../src/modules/tools/shared/tool-steps';
import { editContext } from '../test/support/tool-contexts';
import type { EditRequest } from '../src/modules/tools/image-editing/edit-request';
import { DEFAULT_FILE_CHOICES } from '../src/modules/tools/tool-runner';
import { fromFixture, productPhoto } from '../test/support/image-fixtures';

export interface UpscaleTask {
  threads: number;
  /** Measured runs of the worker's path per case, after the first. */
  runs: number;
  /** Runs of TensorFlow.js on one tile (each takes seconds). */
  tfjsRuns: number;
  cases: Array<{ label: string; width: number; height: number; scale: ModelScale }>;
}

export interface UpscaleCaseReport {
  label: string;
  scale: ModelScale;
  source: { width: number; height: number };
  output: { width: number; height: number };
  firstRunMs: number;
  runsMs: number[];
  onnx: UpscaleTimings;
  tfjsWasmTileMs: number[];
}

export interface UpscaleReport {
  cases: UpscaleCaseReport[];
  baselineRssMb: number;
  /** Peak RSS of the worker's path (models loaded, every case run), before TensorFlow.js is loaded. */
  peakRssMb: number;
  threads: number;
}

const peakRssMb = () => process.resourceUsage().maxRSS / 1024;
const rssMb = () => process.memoryUsage.rss() / 1024 / 1024;

/** The worker's defaults: SOURCE_MAX_MEGAPIXELS (50) and RESULT_TIMEOUT_SECONDS (120). */
const LIMITS = { maxPixels: 50 * 1_000_000, timeoutSeconds: 600, engine: INLINE_ENGINE };

function upscaleTo(width: number): EditRequest {
  return {
    resize: { width, upscale: true },
    cutout: null,
    light: false,
    color: false,
    polish: false,
    unsupported: null,
  };
}
const JPG_CHOICES = { output: { format: 'jpg', file: DEFAULT_FILE_CHOICES } } as const;

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await work();
  return [value, performance.now() - started];
}

/** The package's own model of `scale` on TensorFlow.js' WebAssembly backend, timed on a tile of `side`. */
async function tfjsWasmTileMs(scale: ModelScale, side: number, runs: number): Promise<number[]> {
  // Loaded here only: a devDependency, and its memory is not the worker's.
  const tf = await import('@tensorflow/tfjs');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`);
  await tf.setBackend('wasm');
  await tf.ready();
  const { modelJson, shard } = await esrganSource(scale);
  const json = JSON.parse(modelJson.toString('utf8')) as {
    modelTopology: object;
    weightsManifest: Array<{ weights: io.WeightsManifestEntry[] }>;
  };
  const model = await tf.loadLayersModel(
    tf.io.fromMemory({
      modelTopology: json.modelTopology,
      weightSpecs: json.weightsManifest[0].weights,
      weightData: shard.buffer.slice(shard.byteOffset, shard.byteOffset + shard.byteLength),
    }),
  );
  const input = tf.randomUniform([1, side, side, 3], 0, 255);
  const times: number[] = [];
  for (let run = 0; run <= runs; run++) {
    const [, ms] = await timed(async () => {
      const output = model.predict(input) as Tensor;
      await output.data();
      output.dispose();
    });
    // The first run compiles the graph for the backend: not counted.
    if (run > 0) times.push(ms);
  }
  input.dispose();
  model.dispose();
  return times;
}

async function main(): Promise<void> {
  const task = JSON.parse(process.env.BENCH_UPSCALE_TASK as string) as UpscaleTask;
  const settings = { modelsDir: join(tmpdir(), 'imgjobs-test-models'), threads: task.threads };
  const baselineRssMb = rssMb();
  const upscaler = new LocalUpscaler(settings);
  const fixtures = task.cases.map((bench) => productPhoto(bench.width, bench.height, 7));
  const workerPath: Array<Pick<UpscaleCaseReport, 'output' | 'firstRunMs' | 'runsMs'>> = [];
  for (const [index, bench] of task.cases.entries()) {
    const bytes = await fromFixture(fixtures[index]).jpeg({ quality: 90 }).toBuffer();
    const request = upscaleTo(bench.width * bench.scale);
    const run = async () => {
      const source = await inspectSource(bytes, LIMITS.maxPixels);
      return runPipeline(
        EDIT_PIPELINE,
        editContext(request, source, { segmenter: null, upscaler }, LIMITS, JPG_CHOICES),
      );
    };
    const [first, firstRunMs] = await timed(run);
    const runsMs: number[] = [];
    for (let i = 0; i < task.runs; i++) runsMs.push((await timed(run))[1]);
    const output = await sharp(first.image).metadata();
    workerPath.push({ output: { width: output.width ?? 0, height: output.height ?? 0 }, firstRunMs, runsMs });
  }
  await upscaler.onModuleDestroy();
  // Read before the bare runs open sessions of their own and TensorFlow.js loads.
  const peak = peakRssMb();
  const cases: UpscaleCaseReport[] = [];
  for (const [index, bench] of task.cases.entries()) {
    const onnx = await timeUpscaling(settings, fixtures[index], bench.scale);
    cases.push({
      label: bench.label,
      scale: bench.scale,
      source: { width: bench.width, height: bench.height },
      ...workerPath[index],
      onnx,
      tfjsWasmTileMs: await tfjsWasmTileMs(bench.scale, onnx.tile.width, task.tfjsRuns),
    });
  }
  process.send?.({ cases, baselineRssMb, peakRssMb: peak, threads: task.threads } satisfies UpscaleReport);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
