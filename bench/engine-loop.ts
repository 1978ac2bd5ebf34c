/**
 * `npm run bench:engine-loop`: how long the image engine's pixel work holds the calling thread's
 * event loop, on that thread (InlineEngine) and in a ThreadPoolEngine of two threads, as the
 * worker runs it. The work is image_editing's corrections (`correctedPixels`: polish, light,
 * colour, sharpening) on a noisy photo of 3 MP and of 12 MP (the noise makes polish and tone do
 * their full work). Each size and engine BENCH_ROUNDS (5) times after one warm-up; reported: the
 * median time of one operation, and the longest the loop was held during any of the runs
 * (monitorEventLoopDelay at 5 ms resolution), which is what the worker's queue locks, sandbox
 * results and webhooks wait on. `pixel-engine.spec.ts` tests the mechanism (the loop's timers
 * fire while the pool works); this measures how much it matters.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RawImage } from '../src/engine/raw-image';
import type { PixelCorrections } from '../src/engine/corrections';
import { INLINE_ENGINE, type PixelEngine } from '../src/engine/pixel-engine';
import { ThreadPoolEngine } from '../src/engine/thread-pool-engine';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SIZES = [
  { name: '3 MP', width: 2000, height: 1500 },
  { name: '12 MP', width: 4000, height: 3000 },
];
const CORRECTIONS: PixelCorrections = {
  polish: true,
  tone: { light: true, color: true, brightnessOffset: 0, saturationOffset: 0 },
  sharpen: { sigma: 0.8, edgeGain: 1.5 },
};

/** A photo of noise around mid grey, the same on every run. */
function noisyPhoto(width: number, height: number): () => RawImage {
  const noisy = Buffer.alloc(width * height * 3);
  for (let i = 0; i < noisy.length; i++) noisy[i] = 96 + ((i * 2654435761) >>> 27);
  return () => ({ data: Buffer.from(noisy), width, height, channels: 3 });
}

/** One operation: its time, and the longest the loop was held while it ran. */
async function measured(engine: PixelEngine, image: RawImage): Promise<{ ms: number; heldMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  await sleep(20); // the sampling timer counts from its first tick
  const began = performance.now();
  await engine.run('correctedPixels', [image, CORRECTIONS, 60], [image]);
  const ms = performance.now() - began;
  await sleep(20); // and its next tick records how long it was held up
  delay.disable();
  return { ms, heldMs: delay.max / 1e6 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const pool = new ThreadPoolEngine({ threads: 2, niceIncrement: 0 });
  const engines: Array<[string, PixelEngine]> = [
    ['inline (calling thread)', INLINE_ENGINE],
    ['thread pool (2 threads)', pool],
  ];
  const rows: string[] = [];
  for (const size of SIZES) {
    const photo = noisyPhoto(size.width, size.height);
    for (const [name, engine] of engines) {
      await measured(engine, photo());
      const runs: Array<{ ms: number; heldMs: number }> = [];
      for (let round = 0; round < ROUNDS; round++) runs.push(await measured(engine, photo()));
      const held = Math.max(...runs.map((run) => run.heldMs));
      rows.push(`| ${size.name} | ${name} | ${median(runs.map((run) => run.ms)).toFixed(0)} | ${held.toFixed(0)} |`);
    }
  }
  await pool.close();
  console.log('| photo | engine | median ms per operation | longest hold of the loop, ms |\n|---|---|---|---|');
  console.log(rows.join('\n'));
}

void main();
