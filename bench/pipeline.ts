/**
 * `npm run bench:pipeline`: the live `image_editing` pipeline against a bare sharp script, and
 * the same edit end to end through the API, the queue and a worker.
 *
 * 1. Fixtures: textured, noisy product photos (test/support/image-fixtures.ts) encoded once as
 *    JPEG into a temporary directory, 1 MP (1200 x 830) and 12 MP (4240 x 2830), several seeds each.
 * 2. Throughput: (a) `ours`, the worker's path (inspectSource, then EDIT_PIPELINE inside PixelBudget,
 *    thumbnail included), (b) `bare`, bench/bare-sharp.ts, and (b2) the same without padding
 *    (a reference), each in its own child process (bench/pipeline-child.ts), in turn a, b, b2,
 *    a, b, b2... for BENCH_ROUNDS rounds, with 2 images in flight: images/s, p50/p99 per image,
 *    peak RSS; the ratio a/b is the median over the rounds.
 * 3. Memory: 20 12 MP inputs started at once through (a), with the default pixel budget (150 MP)
 *    and with a budget too large to hold anything back, each in its own child: peak RSS.
 * 4. End to end: 200 results (10 jobs of 20) from a loopback source server through the built API
 *    and a worker (`node dist/main.js api|worker`): results/s from the first create to the last
 *    completion, against (a)'s 1 MP throughput measured in this run.
 *
 * 5. Background removal (bench/segmentation-child.ts): generated product shots at 1 MP and 12 MP
 *    through the local segmenter with a warm session, one at a time, step by step; the model run
 *    bare on a preprocessed tensor; peak RSS; and the IoU of every product on every backdrop.
 *
 * 6. Generative tools (bench/generative-child.ts): ads per second per platform and the composition
 *    of ai_background scenes (the provider's own time left out), one at a time, with peak RSS.
 *
 * BENCH_PARTS (throughput,memory,e2e,segmentation,generative) selects parts; BENCH_ROUNDS (3) the rounds;
 * BENCH_CPU_PROF=<dir> writes CPU profiles of the (a) children there.
 * The end-to-end part needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL), like bench:api.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { fromFixture, productPhoto } from '../test/support/image-fixtures';
import { ImageSourceServer } from '../test/support/image-source-server';
import type { ChildReport, ChildTask, GroupResult, SizeGroup, Variant } from './pipeline-child';
import type { GenerativeReport, GenerativeTask } from './generative-child';
import type { SegmentationReport, SegmentationTask, StepTimes } from './segmentation-child';
import type { UpscaleReport, UpscaleTask } from './upscale-child';
import {
  BENCH_ADMIN_TOKEN,
  createAccount,
  memoryMb,
  postOk,
  serviceEnv,
  UNLIMITED_LIMITS,
  withDeployment,
} from './harness';

const ROOT = resolve(__dirname, '..');
const PARTS = new Set((process.env.BENCH_PARTS ?? 'throughput,memory,e2e,segmentation,generative,upscale').split(','));
/** Rounds of throughput children (a, b, b2); the ratio reported is the median over them. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 2;
/** IMAGE_PIPELINE_THREADS and IMAGE_MEMORY_BUDGET_MEGAPIXELS at their defaults, as the worker runs. */
const THREADS = 1;
const BUDGET_MEGAPIXELS = 150;
const NO_BUDGET_MEGAPIXELS = 10_000;
const IN_FLIGHT = 20;
const E2E_RESULTS = 200;
const E2E_JOB_SIZE = 20;

const SIZES = [
  { label: '1 MP', width: 1200, height: 830, seeds: [11, 12, 13, 14, 15], count: 40, warmup: 6 },
  { label: '12 MP', width: 4240, height: 2830, seeds: [21, 22, 23], count: 10, warmup: 2 },
] as const;

/** The benchmark's edit as an API request: the same as BENCH_EDIT in bench/pipeline-child.ts. */
const E2E_OPERATIONS = {
  resizing: { width: 1200, height: 1200, fit: 'contain' },
  adjustments: { light: true, color: true },
  restorations: { polish: true },
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)];
};
const fixed = (value: number, digits = 2) => value.toFixed(digits);
const range = (values: number[], digits = 2) =>
  values.length > 1
    ? `${fixed(Math.min(...values), digits)}–${fixed(Math.max(...values), digits)}`
    : fixed(values[0], digits);
const log = (line: string) => process.stderr.write(`[bench:pipeline] ${line}\n`);

function runChild(task: ChildTask, nodeArgs: string[] = []): Promise<ChildReport> {
  return new Promise((done, fail) => {
    const child = fork(join(__dirname, 'pipeline-child.ts'), [], {
      cwd: ROOT,
      execArgv: [...nodeArgs, '-r', 'ts-node/register/transpile-only'],
      env: serviceEnv({ BENCH_PIPELINE_TASK: JSON.stringify(task) }),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let report: ChildReport | undefined;
    child.on('message', (message) => (report = message as ChildReport));
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      if (report && code === 0) done(report);
      else fail(new Error(`pipeline child (${task.mode}) exited with ${code ?? signal} and no report`));
    });
  });
}

interface Fixtures {
  dir: string;
  /** Paths per size, in SIZES order. */
  files: string[][];
}

async function makeFixtures(): Promise<Fixtures> {
  const dir = mkdtempSync(join(tmpdir(), 'imgjobs-bench-pipeline-'));
  const files: string[][] = [];
  for (const size of SIZES) {
    const paths: string[] = [];
    for (const seed of size.seeds) {
      const jpeg = await fromFixture(productPhoto(size.width, size.height, seed))
        .jpeg({ quality: 90 })
        .toBuffer();
      const path = join(dir, `${size.width}x${size.height}-${seed}.jpg`);
      writeFileSync(path, jpeg);
      paths.push(path);
    }
    files.push(paths);
  }
  return { dir, files };
}

interface ThroughputRun {
  round: number;
  variant: Variant;
  report: Extract<ChildReport, { mode: 'throughput' }>;
}

/** (a), (b), then the (b) reference without padding, in every round. */
const VARIANTS: readonly Variant[] = ['ours', 'bare', 'bareInside'];
const VARIANT_NAMES: Record<Variant, string> = {
  ours: '(a) image_editing pipeline, thumbnail included',
  bare: '(b) bare sharp',
  bareInside: '(b2) bare sharp, fit inside, no padding (reference)',
};

async function throughput(fixtures: Fixtures): Promise<ThroughputRun[]> {
  const groups: SizeGroup[] = SIZES.map((size, i) => ({
    label: size.label,
    files: fixtures.files[i],
    count: size.count,
    warmup: size.warmup,
  }));
  const profileDir = process.env.BENCH_CPU_PROF;
  const runs: ThroughputRun[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const variant of VARIANTS) {
      const nodeArgs = profileDir && variant === 'ours' ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`] : [];
      const report = await runChild(
        {
          mode: 'throughput',
          variant,
          groups,
          concurrency: CONCURRENCY,
          threads: THREADS,
          budgetMegapixels: BUDGET_MEGAPIXELS,
        },
        nodeArgs,
      );
      if (report.mode !== 'throughput') throw new Error('unexpected report');
      log(
        `round ${round} ${variant}: ${report.groups
          .map((g) => `${g.label} ${fixed(g.imagesPerSecond)} ` + `images/s`)
          .join(', ')}, ` + `peak RSS ${Math.round(report.peakRssMb)} MB`,
      );
      runs.push({ round, variant, report });
    }
  }
  return runs;
}

type MemoryReport = Extract<ChildReport, { mode: 'memory' }>;

async function memory(fixtures: Fixtures): Promise<{ budget: MemoryReport; unbounded: MemoryReport }> {
  const large = fixtures.files[SIZES.findIndex((size) => size.label === '12 MP')];
  const run = async (budgetMegapixels: number) => {
    const report = await runChild({
      mode: 'memory',
      files: large,
      inFlight: IN_FLIGHT,
      threads: THREADS,
      budgetMegapixels,
    });
    if (report.mode !== 'memory') throw new Error('unexpected report');
    log(
      `${IN_FLIGHT} x 12 MP at once, budget ${budgetMegapixels} MP: peak RSS ${Math.round(report.peakRssMb)} ` +
        `MB, ${report.completed} completed`,
    );
    return report;
  };
  return { budget: await run(BUDGET_MEGAPIXELS), unbounded: await run(NO_BUDGET_MEGAPIXELS) };
}

/** SEGMENTATION_INPUT_SIZE and SEGMENTATION_THREADS at their defaults, as the worker runs. */
const SEGMENTATION_TASK: SegmentationTask = {
  inputSize: 768,
  threads: 2,
  sizes: [
    { label: '1 MP', width: 1200, height: 900, images: 8 },
    { label: '12 MP', width: 4000, height: 3000, images: 3 },
  ],
  bareRuns: 8,
};

function segmentation(): Promise<SegmentationReport> {
  log('background removal: preparing shots and the model');
  return new Promise((done, fail) => {
    const child = fork(join(__dirname, 'segmentation-child.ts'), [], {
      cwd: ROOT,
      execArgv: ['-r', 'ts-node/register/transpile-only'],
      env: serviceEnv({ BENCH_SEGMENTATION_TASK: JSON.stringify(SEGMENTATION_TASK) }),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let report: SegmentationReport | undefined;
    child.on('message', (message) => (report = message as SegmentationReport));
    child.on('error', fail);
    child.on('exit', (code, signal) =>
      report && code === 0 ? done(report) : fail(new Error(`segmentation child exited with ${code ?? signal}`)),
    );
  });
}

const GENERATIVE_TASK: GenerativeTask = { adsPerPlatform: 24, scenesPerBackdrop: 12, warmup: 2 };

function generative(): Promise<GenerativeReport> {
  log('generative tools: ads and scene composition');
  return new Promise((done, fail) => {
    const child = fork(join(__dirname, 'generative-child.ts'), [], {
      cwd: ROOT,
      execArgv: ['-r', 'ts-node/register/transpile-only'],
      env: serviceEnv({ BENCH_GENERATIVE_TASK: JSON.stringify(GENERATIVE_TASK) }),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let report: GenerativeReport | undefined;
    child.on('message', (message) => (report = message as GenerativeReport));
    child.on('error', fail);
    child.on('exit', (code, signal) =>
      report && code === 0 ? done(report) : fail(new Error(`generative child exited with ${code ?? signal}`)),
    );
  });
}

/** UPSCALER_THREADS at its default, as the worker runs. */
const UPSCALE_TASK: UpscaleTask = {
  threads: 2,
  runs: 2,
  tfjsRuns: 2,
  cases: [
    { label: 'x2 of 1 MP', width: 1200, height: 833, scale: 2 },
    { label: 'x4 of 0.25 MP', width: 600, height: 417, scale: 4 },
  ],
};

function upscale(): Promise<UpscaleReport> {
  log('upscale: preparing the models');
  return new Promise((done, fail) => {
    const child = fork(join(__dirname, 'upscale-child.ts'), [], {
      cwd: ROOT,
      execArgv: ['-r', 'ts-node/register/transpile-only'],
      env: serviceEnv({ BENCH_UPSCALE_TASK: JSON.stringify(UPSCALE_TASK) }),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let report: UpscaleReport | undefined;
    child.on('message', (message) => (report = message as UpscaleReport));
    child.on('error', fail);
    child.on('exit', (code, signal) =>
      report && code === 0 ? done(report) : fail(new Error(`upscale child exited with ${code ?? signal}`)),
    );
  });
}

function upscaleReport(r: UpscaleReport): string[] {
  const seconds = (ms: number) => fixed(ms / 1000, 1);
  return [
    '',
    `Upscale: \`restorations.upscale\` to the scale's size, JPEG out, one result at a time through the ` +
      `worker's path (UPSCALER_THREADS ${r.threads}); the first run loads the model`,
    '',
    '| case | source | result | first run s | runs s | bare tile (ONNX) ms | whole image tiled (ONNX) s ' +
      '| same tile, TensorFlow.js wasm ms |',
    '|---|---|---|---|---|---|---|---|',
    ...r.cases.map(
      (c) =>
        `| ${c.label} | ${c.source.width} x ${c.source.height} | ${c.output.width} x ${c.output.height} ` +
        `| ${seconds(c.firstRunMs)} | ${c.runsMs.map(seconds).join(', ')} ` +
        `| ${Math.round(c.onnx.tileMs)} (${c.onnx.tile.width} px) | ${seconds(c.onnx.imageMs)} ` +
        `| ${c.tfjsWasmTileMs.map((ms) => Math.round(ms)).join(', ')} |`,
    ),
    '',
    `Peak RSS of the worker's path ${Math.round(r.peakRssMb)} MB (${Math.round(r.baselineRssMb)} MB at the start).`,
  ];
}

function generativeReport(r: GenerativeReport): string[] {
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const row = (label: string, canvas: string, ms: number[]) =>
    `| ${label} | ${canvas} | ${ms.length} | ${Math.round(mean(ms))} | ${Math.round(percentile(ms, 95))} ` +
    `| ${fixed(1000 / mean(ms))} |`;
  return [
    '',
    `Generative tools: one result at a time from a ${r.photo.width} x ${r.photo.height} product ` +
      `shot with its mask known ` +
      '(segmentation is measured above), JPEG result and WebP thumbnail included',
    '',
    '| ad platform | canvas | ads | mean ms | p95 ms | ads/s |',
    '|---|---|---|---|---|---|',
    ...r.ads.map((ad) => row(ad.platform, `${ad.width} x ${ad.height}`, ad.ms)),
    '',
    '| ai_background backdrop | canvas | scenes | mean ms | p95 ms | scenes/s |',
    '|---|---|---|---|---|---|',
    ...r.scenes.map((scene) =>
      row(
        scene.backdrop === 'provider'
          ? `provider's image (its time excluded), ${scene.ratio}`
          : `studio backdrop, ${scene.ratio}`,
        `${scene.width} x ${scene.height}`,
        scene.ms,
      ),
    ),
    '',
    `Peak RSS ${Math.round(r.peakRssMb)} MB (${Math.round(r.baselineRssMb)} MB after the fixtures were made).`,
  ];
}

function segmentationReport(r: SegmentationReport): string[] {
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const step = (images: StepTimes[], key: keyof StepTimes) => Math.round(mean(images.map((image) => image[key])));
  const bare = median(r.bareInferenceMs);
  const lines = [
    '',
    `Background removal: ISNet at ${SEGMENTATION_TASK.inputSize} px, ${SEGMENTATION_TASK.threads} intra-op threads, ` +
      `arena off, one image at a time ` +
      `(model prepared in ${Math.round(r.modelPrepareMs)} ms, session opened in ${Math.round(r.sessionOpenMs)} ms)`,
    '',
    'Milliseconds per image, mean; "pre/post %" is the share of the total spent in our pre- and post-processing ' +
      'of the segmentation (model pre, model out, selection, upsample, decontaminate); "other %" ' +
      'is decoding, composition and PNG encoding.',
    '',
    '| size | images | decode | model pre | inference | model out | selection | upsample | decontaminate ' +
      '| compose + PNG | total s | pre/post % | other % |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const PRE_POST: Array<keyof StepTimes> = ['preprocessMs', 'outputMs', 'selectionMs', 'upsampleMs', 'decontaminateMs'];
  for (const size of r.sizes) {
    const total = mean(size.images.map((image) => image.totalMs));
    const prePost = PRE_POST.reduce((sum, key) => sum + mean(size.images.map((image) => image[key])), 0);
    const other = total - prePost - mean(size.images.map((image) => image.inferenceMs));
    lines.push(
      `| ${size.label} | ${size.images.length} | ${step(size.images, 'decodeMs')} ` +
        `| ${step(size.images, 'preprocessMs')} | ${step(size.images, 'inferenceMs')} | ` +
        `${step(size.images, 'outputMs')} | ${step(size.images, 'selectionMs')} ` +
        `| ${step(size.images, 'upsampleMs')} | ${step(size.images, 'decontaminateMs')} | ` +
        `${step(size.images, 'composeEncodeMs')} | ${fixed(total / 1000)} | ${Math.round((100 * prePost) / total)} ` +
        `| ${Math.round((100 * other) / total)} |`,
    );
  }
  lines.push(
    '',
    `Model alone on a preprocessed tensor: median ${Math.round(bare)} ms (${range(r.bareInferenceMs, 0)}) ` +
      `over ${r.bareInferenceMs.length} runs. ` +
      `Peak RSS ${Math.round(r.peakRssMb)} MB (${Math.round(r.baselineRssMb)} MB before the model).`,
    '',
    '| backdrop, kind or prop family | shots | mean IoU | worst IoU | worst shot |',
    '|---|---|---|---|---|',
  );
  // Plain shots by backdrop, hard shots by kind and then by prop family.
  const groups = new Map<string, typeof r.quality>();
  const add = (key: string, q: (typeof r.quality)[number]) => groups.set(key, [...(groups.get(key) ?? []), q]);
  for (const q of r.quality) {
    const [kind, family] = q.backdrop.split('/');
    add(kind, q);
    if (family && family !== '-') add(`props: ${family}`, q);
  }
  for (const [group, shots] of groups) {
    const worst = shots.reduce((a, b) => (b.iou < a.iou ? b : a));
    lines.push(
      `| ${group} | ${shots.length} | ${mean(shots.map((q) => q.iou)).toFixed(4)} ` +
        `| ${worst.iou.toFixed(4)} | ${worst.name} |`,
    );
  }
  const all = r.quality.map((q) => q.iou);
  lines.push(`| all | ${all.length} | ${mean(all).toFixed(4)} | ${Math.min(...all).toFixed(4)} | |`);
  return lines;
}

interface JobRead {
  job: { id: string; status: string; completed_results: number; failed_results: number };
  results: Array<{
    status: string;
    completed_at: string | null;
    error_code: string | null;
    error_message: string | null;
  }>;
}

export interface EndToEnd {
  results: number;
  completed: number;
  failed: number;
  seconds: number;
  resultsPerSecond: number;
  workerPeakRssMb: number;
  apiPeakRssMb: number;
  workerConcurrency: string;
}

async function endToEnd(fixtures: Fixtures): Promise<EndToEnd> {
  const small = fixtures.files[SIZES.findIndex((size) => size.label === '1 MP')].map((file) => readFileSync(file));
  return withDeployment('pipeline', async (deployment) => {
    const sources = await ImageSourceServer.start();
    deployment.onClose(() => sources.stop());
    const { base, api, worker } = await deployment.startApiAndWorker(
      // libuv's thread pool at its default, as the image runs it.
      serviceEnv({
        ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
        OUTBOUND_ALLOWLIST: '127.0.0.1',
        STORAGE_DIR: deployment.storageDir,
        LOG_LEVEL: 'warn',
        ...UNLIMITED_LIMITS,
        CAPACITY_MAX_PENDING_RESULTS: '100000',
        CAPACITY_ACCOUNT_SHARE: '1',
        // This part measures image_editing; the segmentation model would only add its memory.
        SEGMENTER: 'none',
      }),
    );

    const post = (path: string, body: object, headers: Record<string, string>) => postOk(base, path, body, headers);
    const auth = await (await createAccount(base, 'bench pipeline', 1_000_000)).auth('live');

    let sequence = 0;
    const createJob = async (paths: string[]) => {
      const body = {
        input: paths.map((path, i) => ({ image_url: sources.url(path), external_id: `r${i}` })),
        operations: E2E_OPERATIONS,
        output: { format: 'webp' },
      };
      const created = await post('/api/v1/image/edit', body, {
        ...auth,
        'Content-Type': 'application/json',
        'Idempotency-Key': `${deployment.redisPrefix}-${sequence++}`,
      });
      return (created.job as { id: string }).id;
    };
    /** Polls every job until none is queued or processing; returns the last read of each. */
    const settle = async (jobIds: string[], timeoutMs: number): Promise<JobRead[]> => {
      const reads = new Map<string, JobRead>();
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        for (const id of jobIds.filter((jobId) => !reads.has(jobId))) {
          const read = (await (await fetch(`${base}/api/v1/jobs/${id}`, { headers: auth })).json()) as JobRead;
          if (!['queued', 'processing'].includes(read.job.status)) reads.set(id, read);
        }
        if (reads.size === jobIds.length) return jobIds.map((id) => reads.get(id) as JobRead);
        await new Promise((r) => setTimeout(r, 500));
      }
      throw new Error(
        `${jobIds.length - reads.size} jobs still running after ${timeoutMs / 1000} s\n${worker.output().slice(-4000)}`,
      );
    };

    // Warm-up, not measured: first connections, first queue round trips, JIT.
    const warmPaths = small.map((bytes, i) => {
      sources.serve(`/warm/${i}.jpg`, bytes, { contentType: 'image/jpeg' });
      return `/warm/${i}.jpg`;
    });
    await settle([await createJob(warmPaths)], 120_000);

    // Every result has its own URL, so the worker's source cache never saves a download.
    const paths = Array.from({ length: E2E_RESULTS }, (_, i) => {
      sources.serve(`/e2e/${i}.jpg`, small[i % small.length], { contentType: 'image/jpeg' });
      return `/e2e/${i}.jpg`;
    });
    log(`end to end: ${E2E_RESULTS} results in ${E2E_RESULTS / E2E_JOB_SIZE} jobs`);
    const started = Date.now();
    const jobIds: string[] = [];
    for (let i = 0; i < paths.length; i += E2E_JOB_SIZE) jobIds.push(await createJob(paths.slice(i, i + E2E_JOB_SIZE)));
    const reads = await settle(jobIds, 30 * 60_000);
    const results = reads.flatMap((read) => read.results);
    const completed = results.filter((result) => result.status === 'completed');
    const failed = results.filter((result) => result.status !== 'completed');
    if (failed.length > 0) log(`end to end: ${failed.length} not completed, e.g. ${JSON.stringify(failed[0])}`);
    const last = Math.max(...results.map((result) => (result.completed_at ? Date.parse(result.completed_at) : 0)));
    const seconds = (last - started) / 1000;
    return {
      results: results.length,
      completed: completed.length,
      failed: failed.length,
      seconds,
      resultsPerSecond: completed.length / seconds,
      workerPeakRssMb: memoryMb(worker, 'VmHWM'),
      apiPeakRssMb: memoryMb(api, 'VmHWM'),
      workerConcurrency: process.env.WORKER_CONCURRENCY_PROCESSING ?? '8 (default)',
    };
  });
}

function report(
  runs: ThroughputRun[],
  mem: Awaited<ReturnType<typeof memory>> | undefined,
  e2e: EndToEnd | undefined,
  cutouts: SegmentationReport | undefined,
  scenes: GenerativeReport | undefined,
  upscaled: UpscaleReport | undefined,
): string {
  const lines: string[] = [];
  const settings = runs[0]?.report.settings ?? mem?.budget.settings;
  lines.push(
    `Node ${process.versions.node}, sharp ${sharp.versions.sharp} ` +
      `(libvips ${sharp.versions.vips}), ${cpus().length} cores, ${new Date().toISOString()}`,
  );
  if (settings) {
    lines.push(
      `sharp.concurrency(${settings.sharpConcurrency}), sharp.cache(false), ` +
        `UV_THREADPOOL_SIZE ${settings.uvThreadpoolSize}, ` +
        `${CONCURRENCY} images in flight, pixel budget ${BUDGET_MEGAPIXELS} MP for (a)`,
    );
  }
  let oursSmall: number | undefined;
  if (runs.length > 0) {
    const group = (run: ThroughputRun, label: string) =>
      run.report.groups.find((g) => g.label === label) as GroupResult;
    const rounds = [...new Set(runs.map((run) => run.round))];
    const of = (variant: Variant, round: number) =>
      runs.find((run) => run.variant === variant && run.round === round) as ThroughputRun;
    lines.push(
      '',
      `Throughput: ${rounds.length} rounds of child processes, each round (a), (b), (b2) in ` +
        `turn; images/s is the median ` +
        'over the rounds with its range in brackets; p50/p99 over every measured image of all rounds',
      '',
      '| variant | size | images per round | images/s | p50 ms | p99 ms | peak RSS MB |',
      '|---|---|---|---|---|---|---|',
    );
    for (const size of SIZES) {
      for (const variant of VARIANTS) {
        const groups = runs.filter((run) => run.variant === variant).map((run) => group(run, size.label));
        const rates = groups.map((g) => g.imagesPerSecond);
        const latencies = groups.flatMap((g) => g.latencies);
        const rss = runs.filter((run) => run.variant === variant).map((run) => run.report.peakRssMb);
        if (variant === 'ours' && size.label === '1 MP') oursSmall = median(rates);
        lines.push(
          `| ${VARIANT_NAMES[variant]} | ${size.label} | ${size.count} | ${fixed(median(rates))} (${range(rates)}) | ` +
            `${Math.round(percentile(latencies, 50))} | ${Math.round(percentile(latencies, 99))} | ${range(rss, 0)} |`,
        );
      }
    }
    const ratios = (label: string, against: Variant) =>
      rounds.map(
        (round) => group(of('ours', round), label).imagesPerSecond / group(of(against, round), label).imagesPerSecond,
      );
    lines.push(
      '',
      '| size | (a) / (b) images/s, median of rounds (range) | target ≥ 0.90 | (a) / (b2), reference |',
      '|---|---|---|---|',
    );
    for (const size of SIZES) {
      const target = ratios(size.label, 'bare');
      const reference = ratios(size.label, 'bareInside');
      lines.push(
        `| ${size.label} | ${fixed(median(target))} (${range(target)}) ` +
          `| ${median(target) >= 0.9 ? 'met' : 'not met'} | ` +
          `${fixed(median(reference))} (${range(reference)}) |`,
      );
    }
    const baseline = runs.map((run) => run.report.baselineRssMb);
    lines.push(
      '',
      `Peak RSS is the child's whole run (warm-up and both sizes); its RSS before the first image ` +
        `was ${range(baseline, 0)} MB.`,
    );
  }
  if (mem) {
    lines.push(
      '',
      `Memory: ${IN_FLIGHT} x 12 MP inputs started at once through (a), each in its own child`,
      '',
      '| pixel budget | most edits running at once | peak RSS MB | RSS before MB | seconds | completed |',
      '|---|---|---|---|---|---|',
      ...[
        { name: `${BUDGET_MEGAPIXELS} MP (default)`, m: mem.budget },
        { name: `${NO_BUDGET_MEGAPIXELS} MP (none in effect)`, m: mem.unbounded },
      ].map(({ name, m }) => {
        return (
          `| ${name} | ${m.maxRunning} | ${Math.round(m.peakRssMb)} | ${Math.round(m.baselineRssMb)} ` +
          `| ${fixed(m.seconds, 1)} | ${m.completed}/${m.images} |`
        );
      }),
    );
  }
  if (e2e) {
    lines.push(
      '',
      `End to end: ${E2E_RESULTS} results (${E2E_RESULTS / E2E_JOB_SIZE} jobs of ${E2E_JOB_SIZE}, 1 MP sources ` +
        `from a loopback server) ` +
        `through the API, the queue and one worker (WORKER_CONCURRENCY_PROCESSING ${e2e.workerConcurrency})`,
      '',
      '| results | completed | seconds | results/s | vs (a) 1 MP images/s | worker peak RSS MB | API peak RSS MB |',
      '|---|---|---|---|---|---|---|',
      `| ${e2e.results} | ${e2e.completed} | ${fixed(e2e.seconds, 1)} | ${fixed(e2e.resultsPerSecond)} | ` +
        `${oursSmall ? fixed(e2e.resultsPerSecond / oursSmall) : 'n/a'} | ${Math.round(e2e.workerPeakRssMb)} ` +
        `| ${Math.round(e2e.apiPeakRssMb)} |`,
    );
  }
  if (cutouts) lines.push(...segmentationReport(cutouts));
  if (scenes) lines.push(...generativeReport(scenes));
  if (upscaled) lines.push(...upscaleReport(upscaled));
  return lines.join('\n');
}

async function main(): Promise<void> {
  log('encoding fixtures');
  const fixtures = await makeFixtures();
  try {
    const runs = PARTS.has('throughput') ? await throughput(fixtures) : [];
    const mem = PARTS.has('memory') ? await memory(fixtures) : undefined;
    const e2e = PARTS.has('e2e') ? await endToEnd(fixtures) : undefined;
    const cutouts = PARTS.has('segmentation') ? await segmentation() : undefined;
    const scenes = PARTS.has('generative') ? await generative() : undefined;
    const upscaled = PARTS.has('upscale') ? await upscale() : undefined;
    process.stdout.write(`\n${report(runs, mem, e2e, cutouts, scenes, upscaled)}\n`);
    if (e2e && e2e.completed !== E2E_RESULTS) {
      process.stderr.write(`end to end: only ${e2e.completed} of ${E2E_RESULTS} results completed\n`);
      process.exitCode = 1;
    }
  } finally {
    rmSync(fixtures.dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
