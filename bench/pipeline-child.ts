import { INLINE_ENGINE } from '../src/engine/pixel-engine';
/**
 * One measured process of `npm run bench:pipeline`, forked by bench/pipeline.ts so that peak RSS
 * is per variant. Its task comes as JSON in BENCH_PIPELINE_TASK; it answers with one IPC message
 * and exits.
 *
 * - `throughput`: warm up, then run each size's images through `ours` (the worker's path:
 *   inspectSource, then EDIT_PIPELINE inside PixelBudget, as ImageEditingRunner does it, thumbnail
 *   included), `bare` or `bareInside` (bench/bare-sharp.ts) with `concurrency` images in flight.
 * - `memory`: start every input of `ours` at once, through a PixelBudget of `budgetMegapixels`.
 *
 * Both variants load the same modules, so their baseline RSS is the same.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { planGeometry } from '../src/core/image/geometry';
import { PixelBudget } from '../src/core/image/pixel-budget';
import { inspectSource } from '../src/core/image/source-image';
import { EDIT_PIPELINE } from '../src/modules/tools/image-editing/edit-pipeline';
import { runPipeline } from '../src/modules/tools/shared/tool-steps';
import { editContext } from '../test/support/tool-contexts';
import type { EditRequest } from '../src/modules/tools/image-editing/edit-request';
import { DEFAULT_FILE_CHOICES } from '../src/modules/tools/tool-runner';
import { bareEdit, bareEditInside } from './bare-sharp';
import { reportToParent } from './child-report';

/** (a), (b), and (b) without padding (a reference, see bench/bare-sharp.ts). */
export type Variant = 'ours' | 'bare' | 'bareInside';

export interface SizeGroup {
  label: string;
  files: string[];
  /** Measured images, taken from `files` in turn. */
  count: number;
  /** Images run first and not measured. */
  warmup: number;
}

export type ChildTask =
  | {
      mode: 'throughput';
      variant: Variant;
      groups: SizeGroup[];
      concurrency: number;
      threads: number;
      budgetMegapixels: number;
    }
  | {
      mode: 'memory';
      files: string[];
      /** Inputs started together, each its own copy of the bytes, as downloads would be. */
      inFlight: number;
      threads: number;
      budgetMegapixels: number;
    };

export interface GroupResult {
  label: string;
  images: number;
  seconds: number;
  imagesPerSecond: number;
  /** Per image, in milliseconds, in completion order. */
  latencies: number[];
  outputBytes: number;
}

export type ChildReport =
  | {
      mode: 'throughput';
      variant: Variant;
      groups: GroupResult[];
      baselineRssMb: number;
      peakRssMb: number;
      settings: Settings;
    }
  | {
      mode: 'memory';
      images: number;
      completed: number;
      seconds: number;
      /** Most edits that were inside the budget at the same time. */
      maxRunning: number;
      baselineRssMb: number;
      peakRssMb: number;
      settings: Settings;
    };

export interface Settings {
  sharpConcurrency: number;
  sharpCache: boolean;
  uvThreadpoolSize: string;
  budgetMegapixels: number;
}

/** The benchmark's edit: resize 1200 contain + light + colour + polish, WebP out, first variant. */
export const BENCH_EDIT: EditRequest = {
  resize: { width: 1200, height: 1200, fit: 'contain', upscale: false },
  cutout: null,
  light: true,
  color: true,
  polish: true,
  unsupported: null,
};
const BENCH_CHOICES = { output: { format: 'webp', file: DEFAULT_FILE_CHOICES } } as const;

/** The worker's defaults: SOURCE_MAX_MEGAPIXELS (50) and RESULT_TIMEOUT_SECONDS (120). */
const LIMITS = { maxPixels: 50 * 1_000_000, timeoutSeconds: 120, engine: INLINE_ENGINE };

const rssMb = () => process.memoryUsage.rss() / 1024 / 1024;
const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

/** The worker's path for one downloaded source, as ImageEditingRunner runs it. */
async function ours(bytes: Buffer, budget: PixelBudget, running?: { now: number; max: number }): Promise<number> {
  const source = await inspectSource(bytes, LIMITS.maxPixels);
  const plan = planGeometry(source, BENCH_EDIT.resize);
  const pixels = Math.max(source.width * source.height, plan.scaled.width * plan.scaled.height);
  const edited = await budget.run(pixels, async () => {
    if (running) running.max = Math.max(running.max, ++running.now);
    try {
      return await runPipeline(
        EDIT_PIPELINE,
        editContext(BENCH_EDIT, source, { segmenter: null, upscaler: null }, LIMITS, BENCH_CHOICES),
      );
    } finally {
      if (running) running.now--;
    }
  });
  return edited.image.length + edited.thumbnail.length;
}

const bare = async (bytes: Buffer) => (await bareEdit(bytes)).length;
const bareInside = async (bytes: Buffer) => (await bareEditInside(bytes)).length;

/** Runs `count` images, `concurrency` at a time, taking `inputs` in turn. */
async function runGroup(
  edit: (bytes: Buffer) => Promise<number>,
  inputs: Buffer[],
  count: number,
  concurrency: number,
): Promise<Omit<GroupResult, 'label'>> {
  const latencies: number[] = [];
  let next = 0;
  let outputBytes = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const bytes = inputs[next++ % inputs.length];
        const t0 = performance.now();
        outputBytes += await edit(bytes);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { images: count, seconds, imagesPerSecond: count / seconds, latencies, outputBytes };
}

function configure(threads: number, budgetMegapixels: number): Settings {
  // As ImageModule does in the worker, for both variants.
  sharp.concurrency(threads);
  sharp.cache(false);
  return {
    sharpConcurrency: sharp.concurrency(),
    sharpCache: false,
    uvThreadpoolSize: process.env.UV_THREADPOOL_SIZE ?? 'default (4)',
    budgetMegapixels,
  };
}

async function throughput(task: Extract<ChildTask, { mode: 'throughput' }>): Promise<ChildReport> {
  const settings = configure(task.threads, task.budgetMegapixels);
  const budget = new PixelBudget({ IMAGE_MEMORY_BUDGET_MEGAPIXELS: task.budgetMegapixels });
  const edit =
    task.variant === 'ours' ? (bytes: Buffer) => ours(bytes, budget) : task.variant === 'bare' ? bare : bareInside;
  const inputs = task.groups.map((group) => group.files.map((file) => readFileSync(file)));
  const baselineRssMb = rssMb();
  for (const [i, group] of task.groups.entries()) await runGroup(edit, inputs[i], group.warmup, task.concurrency);
  const groups: GroupResult[] = [];
  for (const [i, group] of task.groups.entries()) {
    groups.push({ label: group.label, ...(await runGroup(edit, inputs[i], group.count, task.concurrency)) });
  }
  return { mode: 'throughput', variant: task.variant, groups, baselineRssMb, peakRssMb: peakRssMb(), settings };
}

async function memory(task: Extract<ChildTask, { mode: 'memory' }>): Promise<ChildReport> {
  const settings = configure(task.threads, task.budgetMegapixels);
  const budget = new PixelBudget({ IMAGE_MEMORY_BUDGET_MEGAPIXELS: task.budgetMegapixels });
  const files = task.files.map((file) => readFileSync(file));
  const inputs = Array.from({ length: task.inFlight }, (_, i) => Buffer.from(files[i % files.length]));
  const baselineRssMb = rssMb();
  const running = { now: 0, max: 0 };
  const started = performance.now();
  const settled = await Promise.allSettled(inputs.map((bytes) => ours(bytes, budget, running)));
  const seconds = (performance.now() - started) / 1000;
  const failures = settled.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failures.length > 0)
    process.stderr.write(`memory run: ${failures.length} failed: ${String(failures[0].reason)}\n`);
  return {
    mode: 'memory',
    images: inputs.length,
    completed: settled.length - failures.length,
    seconds,
    maxRunning: running.max,
    baselineRssMb,
    peakRssMb: peakRssMb(),
    settings,
  };
}

async function main(): Promise<ChildReport> {
  const task = JSON.parse(process.env.BENCH_PIPELINE_TASK ?? 'null') as ChildTask | null;
  if (!task || !process.send) throw new Error('bench/pipeline-child.ts is forked by bench/pipeline.ts');
  return task.mode === 'throughput' ? throughput(task) : memory(task);
}

reportToParent(module, main);
