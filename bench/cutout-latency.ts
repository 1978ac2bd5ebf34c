/**
 * `npm run bench:cutout-latency`: the time a small cut-out spends in the service around the
 * model, beside the model alone, in one run.
 *
 * The built API and one worker run as separate processes (`node dist/main.js api|worker`, the
 * image's NODE_OPTIONS and MALLOC_ARENA_MAX) on a database of their own and a Redis prefix of
 * their own, with the service's default settings except what the benchmark must set (database,
 * prefix, ports, storage folder, admin token, the loopback source allowed, the prepared models'
 * folder, limits out of reach): the local segmentation model at SEGMENTATION_INPUT_SIZE 768 on
 * SEGMENTATION_THREADS 2, results stored on local disk.
 *
 * In order:
 * 1. photos: CUTOUT_PHOTOS product shots of 640 x 480 (0.3 MP; different products on studio,
 *    gradient, tabletop, clutter, similar and light backdrops: shading, texture, grain), JPEG 92,
 *    served by a loopback HTTP server, one URL per result;
 * 2. through the service: CUTOUT_WARMUP cut-outs not measured, then CUTOUT_RUNS live
 *    `POST /api/v1/remove-background` jobs of one photo each, one at a time, each polled with
 *    `GET /api/v1/jobs/{id}` every CUTOUT_POLL_MS (50) until completed, as a client sees it:
 *    from just before the create to the read that shows it completed; the worker's /metrics are
 *    scraped before and after, for the mean of each step (imgjobs_result_step_seconds, the
 *    queue wait, the model's inference);
 * 3. after the services stop, in this process: the worker's session (ModelSession, the worker's
 *    options) on each photo, for its own split (resize and normalise, inference, output), and
 *    our subject selection and edge refinement (the engine's maskFromProbability halves) on its
 *    map; then the model alone: a bare onnxruntime session with the same options run on the
 *    already resized and normalised tensor of each photo, CUTOUT_MODEL_RUNS times in all.
 *
 * CUTOUT_PROFILE_DIR, when set, has the API and the worker write V8 CPU profiles of every thread
 * there (`--cpu-prof`), for finding where the share goes.
 *
 * Reported (standard output, JSON at CUTOUT_OUT): the medians through the service and of the
 * model alone, and their difference, the service's share; the same share from the measured jobs
 * alone (their mean less the mean of their inference in the worker, which a change of the
 * machine's load between the phases does not move); where that share goes.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import sharp from 'sharp';
import { prepareIsnetModel } from '../src/core/segmentation/isnet-model';
import { ModelSession } from '../src/core/segmentation/model-session';
import { shippedModelManifest } from '../src/core/segmentation/segmentation-models';
import { refineAlpha } from '../src/engine/mask/guided-filter';
import { selectSubject } from '../src/engine/mask/subject-selection';
import { ImageSourceServer } from '../test/support/image-source-server';
import { BACKDROPS, PRODUCTS, productShot } from '../test/support/product-shots';
import { parseSamples, sumOf, type Sample } from '../test/support/prometheus-text';
import {
  AS_DEPLOYED,
  BENCH_ADMIN_TOKEN,
  createAccount,
  postOk,
  serviceEnv,
  UNLIMITED_LIMITS,
  numberSetting,
  withDeployment,
} from './harness';

const PHOTOS = numberSetting('CUTOUT_PHOTOS', 6);
const WARMUP = numberSetting('CUTOUT_WARMUP', 3);
const RUNS = numberSetting('CUTOUT_RUNS', 21);
const POLL_MS = numberSetting('CUTOUT_POLL_MS', 50);
const MODEL_RUNS = numberSetting('CUTOUT_MODEL_RUNS', 21);
const OUT =
  process.env.CUTOUT_OUT ??
  join(tmpdir(), `imgjobs-cutout-latency-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
/** The models the tests prepare, so nothing is converted again for a run. */
const MODELS_DIR = process.env.MODELS_DIR ?? join(tmpdir(), 'imgjobs-test-models');
/** Where the API and the worker write V8 CPU profiles (`--cpu-prof`, every thread), when set. */
const PROFILE_DIR = process.env.CUTOUT_PROFILE_DIR;
/** The worker's defaults (SEGMENTATION_INPUT_SIZE, SEGMENTATION_THREADS). */
const INPUT_SIZE = 768;
const THREADS = 2;
const SIZE = { width: 640, height: 480 };
const TOOL = 'remove_background';

const log = (line: string) => process.stderr.write(`[bench:cutout-latency] ${new Date().toISOString()} ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round = (value: number) => Math.round(value * 10) / 10;
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** As deployed, with V8 CPU profiles when CUTOUT_PROFILE_DIR asks for them. */
const NODE_OPTIONS = PROFILE_DIR
  ? `${AS_DEPLOYED.NODE_OPTIONS} --cpu-prof --cpu-prof-dir=${PROFILE_DIR}`
  : AS_DEPLOYED.NODE_OPTIONS;

interface Photo {
  name: string;
  path: string;
  jpeg: Buffer;
}

/** Different products on different backdrops, 640 x 480. */
async function drawPhotos(): Promise<Photo[]> {
  const photos: Photo[] = [];
  for (let i = 0; i < PHOTOS; i++) {
    const shot = await productShot(PRODUCTS[i % PRODUCTS.length], BACKDROPS[i % BACKDROPS.length], SIZE);
    photos.push({ name: shot.name, path: `/photos/${shot.name}.jpg`, jpeg: shot.jpeg });
  }
  return photos;
}

/** Mean milliseconds per observation of a histogram's series between two scrapes. */
function meanMs(before: Sample[], after: Sample[], name: string, labels: Record<string, string>): number {
  const count = sumOf(after, `${name}_count`, labels) - sumOf(before, `${name}_count`, labels);
  const sum = sumOf(after, `${name}_sum`, labels) - sumOf(before, `${name}_sum`, labels);
  return count > 0 ? (sum / count) * 1000 : NaN;
}

/** The step names of imgjobs_result_step_seconds seen for the tool, in the order of their first observation. */
function stepNames(samples: Sample[]): string[] {
  const names = samples
    .filter((sample) => sample.name === 'imgjobs_result_step_seconds_count' && sample.labels.tool === TOOL)
    .map((sample) => sample.labels.step);
  return [...new Set(names)];
}

interface ServiceRun {
  clientMs: number[];
  serverMs: number[];
  steps: Record<string, number>;
  queueWaitMs: number;
  workerInferenceMs: number;
  processingMs: number;
}

async function throughTheService(photos: Photo[], server: ImageSourceServer): Promise<ServiceRun> {
  return withDeployment('cutout-latency', async (deployment) => {
    const { base, healthPort } = await deployment.startApiAndWorker(
      serviceEnv(
        {
          ...AS_DEPLOYED,
          NODE_OPTIONS,
          ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
          OUTBOUND_ALLOWLIST: '127.0.0.1',
          STORAGE_DIR: join(deployment.storageDir, 'results'),
          MODELS_DIR,
          ...UNLIMITED_LIMITS,
        },
        'CUTOUT_',
      ),
      300_000,
    );

    const post = (path: string, body: object, headers: Record<string, string>) => postOk(base, path, body, headers);
    const live = await (await createAccount(base, 'bench cutout latency', 1_000_000)).auth('live');

    /** One cut-out as a client sees it: create, then a read every POLL_MS until it has ended. */
    let n = 0;
    const cutOut = async (photo: Photo) => {
      const url = server.url(`${photo.path}?n=${n++}`);
      const started = performance.now();
      const created = await post(
        '/api/v1/remove-background',
        { input: [{ image_url: url }] },
        { ...live, 'Idempotency-Key': randomUUID() },
      );
      const jobId = (created.job as { id: string }).id;
      for (;;) {
        const res = await fetch(`${base}/api/v1/jobs/${jobId}`, { headers: live });
        const read = (await res.json()) as { job: { status: string; created_at: string; completed_at: string | null } };
        if (!['queued', 'processing'].includes(read.job.status)) {
          const clientMs = performance.now() - started;
          if (read.job.status !== 'completed') throw new Error(`a cut-out of ${photo.name} ended ${read.job.status}`);
          return { clientMs, serverMs: Date.parse(read.job.completed_at ?? '') - Date.parse(read.job.created_at) };
        }
        await sleep(POLL_MS);
      }
    };

    log(`warming up: ${WARMUP} cut-outs`);
    for (let i = 0; i < WARMUP; i++) await cutOut(photos[i % photos.length]);
    const metricsUrl = `http://127.0.0.1:${healthPort}/metrics`;
    const scrape = async () => parseSamples(await (await fetch(metricsUrl)).text());
    const before = await scrape();
    log(`${RUNS} cut-outs of ${SIZE.width} x ${SIZE.height}, one at a time, polled every ${POLL_MS} ms`);
    const clientMs: number[] = [];
    const serverMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const run = await cutOut(photos[i % photos.length]);
      clientMs.push(run.clientMs);
      serverMs.push(run.serverMs);
    }
    const after = await scrape();
    const tool = { tool: TOOL };
    return {
      clientMs,
      serverMs,
      steps: Object.fromEntries(
        stepNames(after).map((step) => [
          step,
          round(meanMs(before, after, 'imgjobs_result_step_seconds', { tool: TOOL, step })),
        ]),
      ),
      queueWaitMs: round(meanMs(before, after, 'imgjobs_result_wait_seconds', tool)),
      workerInferenceMs: round(meanMs(before, after, 'imgjobs_segmentation_inference_seconds', {})),
      processingMs: round(meanMs(before, after, 'imgjobs_result_processing_seconds', tool)),
    };
  });
}

interface ModelSplit {
  /** The session's resize to the input size and normalisation. */
  preprocessMs: number;
  /** The session's inference inside ModelSession.probability. */
  sessionInferenceMs: number;
  /** Stretching the output to 0..1. */
  outputMs: number;
  selectionMs: number;
  edgesMs: number;
  /** The bare session on the preprocessed tensor. */
  modelAloneMs: number[];
}

/**
 * The model's tensor of a photo as ModelSession builds it: resized (fill) to the input size, scaled by its brightest
 * value, centred.
 */
async function preprocessedTensor(rgb: { data: Buffer; width: number; height: number }): Promise<Tensor> {
  const pixels = await sharp(rgb.data, { raw: { width: rgb.width, height: rgb.height, channels: 3 } })
    .resize(INPUT_SIZE, INPUT_SIZE, { fit: 'fill' })
    .raw()
    .toBuffer();
  let brightest = 0;
  for (const value of pixels) if (value > brightest) brightest = value;
  const scale = 1 / Math.max(brightest, 1);
  const plane = INPUT_SIZE * INPUT_SIZE;
  const tensor = new Float32Array(3 * plane);
  for (let i = 0, p = 0; i < plane; i++, p += 3) {
    tensor[i] = pixels[p] * scale - 0.5;
    tensor[plane + i] = pixels[p + 1] * scale - 0.5;
    tensor[2 * plane + i] = pixels[p + 2] * scale - 0.5;
  }
  return new Tensor('float32', tensor, [1, 3, INPUT_SIZE, INPUT_SIZE]);
}

async function theModel(photos: Photo[]): Promise<ModelSplit> {
  const model = await prepareIsnetModel({ modelsDir: MODELS_DIR, inputSize: INPUT_SIZE });
  const decoded = await Promise.all(
    photos.map(async (photo) => {
      const { data, info } = await sharp(photo.jpeg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      return { data, width: info.width, height: info.height, channels: 3 as const };
    }),
  );

  const session = await ModelSession.open(shippedModelManifest(INPUT_SIZE), model.path, {
    intraOpThreads: THREADS,
    provider: 'cpu',
  });
  const split = { preprocessMs: [] as number[], inferenceMs: [] as number[], outputMs: [] as number[] };
  await session.probability(decoded[0]);
  const maps = [];
  for (const photo of decoded) {
    const { map, pixels, timings } = await session.probability(photo);
    split.preprocessMs.push(timings.preprocessMs);
    split.inferenceMs.push(timings.inferenceMs);
    split.outputMs.push(timings.postprocessMs);
    maps.push({ map, pixels, photo });
  }
  await session.release();
  // Our post-processing on each map, its first round not timed (the engine's threads are warm in a worker).
  const selectionMs: number[] = [];
  const edgesMs: number[] = [];
  for (let round = 0; round < 4; round++) {
    for (const { map, pixels, photo } of maps) {
      const t0 = performance.now();
      const selection = selectSubject(map, pixels);
      const t1 = performance.now();
      await refineAlpha(selection.map, photo);
      if (round === 0) continue;
      edgesMs.push(performance.now() - t1);
      selectionMs.push(t1 - t0);
    }
  }

  // The model alone: a session with the worker's options, on tensors already resized and normalised.
  const bare = await InferenceSession.create(model.path, {
    executionProviders: ['cpu'],
    intraOpNumThreads: THREADS,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    enableCpuMemArena: false,
    executionMode: 'sequential',
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
  const tensors = await Promise.all(decoded.map(preprocessedTensor));
  const input = bare.inputNames[0];
  await bare.run({ [input]: tensors[0] });
  const modelAloneMs: number[] = [];
  for (let i = 0; i < MODEL_RUNS; i++) {
    const started = performance.now();
    await bare.run({ [input]: tensors[i % tensors.length] });
    modelAloneMs.push(performance.now() - started);
  }
  await bare.release();
  return {
    preprocessMs: round(median(split.preprocessMs)),
    sessionInferenceMs: round(median(split.inferenceMs)),
    outputMs: round(median(split.outputMs)),
    selectionMs: round(median(selectionMs)),
    edgesMs: round(median(edgesMs)),
    modelAloneMs,
  };
}

async function main(): Promise<void> {
  const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));
  log('drawing the photos');
  const photos = await drawPhotos();
  const server = await ImageSourceServer.start();
  for (const photo of photos) server.serve(photo.path, photo.jpeg, { contentType: 'image/jpeg' });
  let service: ServiceRun;
  try {
    service = await throughTheService(photos, server);
  } finally {
    await server.stop();
  }
  log(`the model: the worker's session on each photo, then ${MODEL_RUNS} bare runs on preprocessed tensors`);
  const model = await theModel(photos);

  const serviceMedian = median(service.clientMs);
  const modelMedian = median(model.modelAloneMs);
  const report = {
    machine: {
      node: process.versions.node,
      cores: cpus().length,
      date: new Date().toISOString(),
      load_average_at_start: loadAtStart,
      load_average_at_end: loadavg().map((value) => Number(value.toFixed(2))),
    },
    settings: { photos: photos.map((photo) => photo.name), size: `${SIZE.width}x${SIZE.height}`, runs: RUNS },
    settings_poll_ms: POLL_MS,
    through_the_service: {
      client_median_ms: round(serviceMedian),
      client_ms: service.clientMs.map(round),
      server_median_ms: median(service.serverMs),
    },
    model_alone: { median_ms: round(modelMedian), runs_ms: model.modelAloneMs.map(round) },
    service_share_ms: round(serviceMedian - modelMedian),
    // The same share from the same jobs alone: on a machine whose load changes between the two
    // phases (the model alone runs minutes later), the difference of their medians drifts with it.
    around_the_model_ms: round(mean(service.clientMs) - service.workerInferenceMs),
    worker_means_ms: {
      queue_wait: service.queueWaitMs,
      steps: service.steps,
      processing: service.processingMs,
      inference: service.workerInferenceMs,
    },
    in_process_medians_ms: {
      model_preprocess: model.preprocessMs,
      session_inference: model.sessionInferenceMs,
      model_output: model.outputMs,
      selection: model.selectionMs,
      edges: model.edgesMs,
    },
  };
  writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\n${summary(report)}\n\nJSON: ${OUT}\n`);
}

function summary(report: {
  machine: { node: string; cores: number; date: string; load_average_at_start: number[] };
  through_the_service: { client_median_ms: number; server_median_ms: number; client_ms: number[] };
  model_alone: { median_ms: number; runs_ms: number[] };
  service_share_ms: number;
  around_the_model_ms: number;
  worker_means_ms: { queue_wait: number; steps: Record<string, number>; processing: number; inference: number };
  in_process_medians_ms: Record<string, number>;
}): string {
  const { worker_means_ms: worker, in_process_medians_ms: split, through_the_service: service } = report;
  const ms = (value: number) => (Number.isFinite(value) ? `${value} ms` : 'n/a');
  const segmentSubject = worker.steps.segmentSubject ?? NaN;
  return [
    `Node ${report.machine.node}, ${report.machine.cores} cores, ${report.machine.date}, ` +
      `load average ${report.machine.load_average_at_start.join(' ')} at start`,
    '',
    '| figure | median |',
    '|---|---|',
    `| 0.3 MP cut-out through the service, create to completed as the client saw it ` +
      `(${service.client_ms.length} jobs) | ${ms(service.client_median_ms)} |`,
    `| the same, job created_at to completed_at (the database's clock) | ${ms(service.server_median_ms)} |`,
    `| the model alone on a preprocessed tensor (${report.model_alone.runs_ms.length} runs) | ` +
      `${ms(report.model_alone.median_ms)} |`,
    `| **the service's share** | **${ms(report.service_share_ms)}** |`,
    `| the same jobs' mean, less the mean of their inference in the worker (mean, not median) | ` +
      `${ms(report.around_the_model_ms)} |`,
    '',
    "Where the worker's time goes (means over the measured jobs, from its /metrics):",
    '',
    '| step | ms |',
    '|---|---|',
    `| queue wait (enqueued to taken) | ${ms(worker.queue_wait)} |`,
    ...Object.entries(worker.steps).map(([step, value]) => `| ${step} | ${ms(value)} |`),
    `| (of segmentSubject: the model's inference in the worker) | ${ms(worker.inference)} |`,
    `| (of segmentSubject: the rest) | ${ms(Math.round((segmentSubject - worker.inference) * 10) / 10)} |`,
    `| one attempt in all (start to complete) | ${ms(worker.processing)} |`,
    '',
    "The rest of segmentSubject, split in this process on the same photos (medians): the model's resize and " +
      `normalisation ${ms(split.model_preprocess)}, its output stretched ${ms(split.model_output)}, ` +
      `subject selection ${ms(split.selection)}, edge refinement ${ms(split.edges)}; the session's inference ` +
      `${ms(split.session_inference)}.`,
  ].join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
