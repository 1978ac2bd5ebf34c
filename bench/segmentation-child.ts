/**
 * The background-removal part of `npm run bench:pipeline`, forked by bench/pipeline.ts so its
 * peak RSS is its own. One warm session, as a worker holds it; then, per image, the worker's
 * cut-out path in its steps (decode, the model's pre-processing, inference and output, our
 * subject selection and edge-aware upsampling, decontamination, composition, PNG encoding),
 * one image at a time; then the same model run bare: the session alone on one preprocessed
 * tensor. Quality: every generated product shot, IoU of the alpha against its known mask.
 * Its task comes as JSON in BENCH_SEGMENTATION_TASK; it answers with one IPC message.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import sharp from 'sharp';
import { composite } from '../src/engine/compose/composite';
import { decontaminate } from '../src/engine/mask/decontaminate';
import { refineAlpha } from '../src/engine/mask/guided-filter';
import { selectSubject } from '../src/engine/mask/subject-selection';
import { encode } from '../src/core/image/pipeline-steps';
import type { RawImage } from '../src/engine/raw-image';
import { prepareIsnetModel } from '../src/core/segmentation/isnet-model';
import { ModelSession } from '../src/core/segmentation/model-session';
import { shippedModelManifest } from '../src/core/segmentation/segmentation-models';
import { alphaIoU, BACKDROPS, HARD_SHOT_SPECS, hardShot, PRODUCTS, productShot } from '../test/support/product-shots';
import { reportToParent } from './child-report';

export interface SegmentationTask {
  inputSize: number;
  threads: number;
  sizes: Array<{ label: string; width: number; height: number; images: number }>;
  bareRuns: number;
}

export interface StepTimes {
  decodeMs: number;
  preprocessMs: number;
  inferenceMs: number;
  outputMs: number;
  selectionMs: number;
  upsampleMs: number;
  decontaminateMs: number;
  composeEncodeMs: number;
  totalMs: number;
}

export interface SegmentationReport {
  modelPrepareMs: number;
  sessionOpenMs: number;
  sizes: Array<{ label: string; images: StepTimes[] }>;
  bareInferenceMs: number[];
  /** `backdrop` is the backdrop of a plain shot, or the kind and prop family of a hard one ('touching/disc'). */
  quality: Array<{ name: string; backdrop: string; iou: number }>;
  baselineRssMb: number;
  peakRssMb: number;
}

const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

async function decoded(jpeg: Buffer): Promise<RawImage> {
  const { data, info } = await sharp(jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

/** The worker's cut-out of one photo (transparent PNG, no shadow), step by step. */
async function cutOut(session: ModelSession, jpeg: Buffer): Promise<{ times: StepTimes; alpha: Uint8Array }> {
  const t0 = performance.now();
  const photo = await decoded(jpeg);
  const t1 = performance.now();
  const { map, pixels, timings } = await session.probability(photo);
  const t2 = performance.now();
  const selected = selectSubject(map, pixels).map;
  const t3 = performance.now();
  const alpha = await refineAlpha(selected, photo);
  const t4 = performance.now();
  const colour = decontaminate(photo, alpha);
  const t5 = performance.now();
  await encode(
    composite({ colour, alpha, shadow: null }, null),
    { format: 'png', quality: null, dpi: null, carried: null },
    null,
  );
  const t6 = performance.now();
  return {
    alpha: alpha.data,
    times: {
      decodeMs: t1 - t0,
      preprocessMs: timings.preprocessMs,
      inferenceMs: timings.inferenceMs,
      outputMs: timings.postprocessMs,
      selectionMs: t3 - t2,
      upsampleMs: t4 - t3,
      decontaminateMs: t5 - t4,
      composeEncodeMs: t6 - t5,
      totalMs: t6 - t0,
    },
  };
}

async function main(): Promise<SegmentationReport> {
  const task = JSON.parse(process.env.BENCH_SEGMENTATION_TASK ?? 'null') as SegmentationTask | null;
  if (!task || !process.send) throw new Error('bench/segmentation-child.ts is forked by bench/pipeline.ts');
  // As the worker: libvips one thread per pipeline, no cache.
  sharp.concurrency(1);
  sharp.cache(false);
  const shots = new Map<string, Buffer[]>();
  for (const size of task.sizes) {
    const jpegs: Buffer[] = [];
    for (let i = 0; i < size.images; i++) {
      const product = PRODUCTS[i % PRODUCTS.length];
      jpegs.push(
        (await productShot(product, BACKDROPS[i % BACKDROPS.length], { width: size.width, height: size.height })).jpeg,
      );
    }
    shots.set(size.label, jpegs);
  }
  const baselineRssMb = process.memoryUsage.rss() / 1024 / 1024;

  const modelsDir = join(tmpdir(), 'imgjobs-test-models');
  let started = performance.now();
  const model = await prepareIsnetModel({ modelsDir, inputSize: task.inputSize });
  const modelPrepareMs = performance.now() - started;
  started = performance.now();
  const session = await ModelSession.open(shippedModelManifest(task.inputSize), model.path, {
    intraOpThreads: task.threads,
    provider: 'cpu',
  });
  const sessionOpenMs = performance.now() - started;

  // Warm-up, not measured: the first run allocates.
  await cutOut(session, (shots.get(task.sizes[0].label) as Buffer[])[0]);

  const sizes: SegmentationReport['sizes'] = [];
  for (const size of task.sizes) {
    const images: StepTimes[] = [];
    for (const jpeg of shots.get(size.label) as Buffer[]) images.push((await cutOut(session, jpeg)).times);
    sizes.push({ label: size.label, images });
  }
  await session.release();

  // The model alone: a session with the worker's options on one preprocessed tensor.
  const bare = await InferenceSession.create(model.path, {
    executionProviders: ['cpu'],
    intraOpNumThreads: task.threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    enableCpuMemArena: false,
    executionMode: 'sequential',
  });
  const tensor = new Tensor('float32', new Float32Array(3 * task.inputSize * task.inputSize).fill(0.1), [
    1,
    3,
    task.inputSize,
    task.inputSize,
  ]);
  await bare.run({ [bare.inputNames[0]]: tensor });
  const bareInferenceMs: number[] = [];
  for (let i = 0; i < task.bareRuns; i++) {
    const t = performance.now();
    await bare.run({ [bare.inputNames[0]]: tensor });
    bareInferenceMs.push(performance.now() - t);
  }
  await bare.release();

  // Quality, through the same steps: every product on every backdrop, then every hard shot.
  const qualitySession = await ModelSession.open(shippedModelManifest(task.inputSize), model.path, {
    intraOpThreads: task.threads,
    provider: 'cpu',
  });
  const quality: SegmentationReport['quality'] = [];
  for (const product of PRODUCTS) {
    for (const backdrop of BACKDROPS) {
      const shot = await productShot(product, backdrop);
      const { alpha } = await cutOut(qualitySession, shot.jpeg);
      quality.push({ name: shot.name, backdrop, iou: alphaIoU(alpha, shot.mask) });
    }
  }
  for (const spec of HARD_SHOT_SPECS) {
    const shot = await hardShot(spec);
    const { alpha } = await cutOut(qualitySession, shot.jpeg);
    quality.push({
      name: shot.name,
      backdrop: `${shot.kind}/${shot.propFamily ?? '-'}`,
      iou: alphaIoU(alpha, shot.mask),
    });
  }
  await qualitySession.release();

  const report: SegmentationReport = {
    modelPrepareMs,
    sessionOpenMs,
    sizes,
    bareInferenceMs,
    quality,
    baselineRssMb,
    peakRssMb: peakRssMb(),
  };
  return report;
}

reportToParent(module, main);
