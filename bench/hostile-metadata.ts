/**
 * `npm run bench:hostile-metadata`: the metadata fuzz set (test/support/hostile-metadata.ts)
 * through the worker's path for a result that keeps metadata, in one process: the source read
 * from its bytes (inspectSource), its metadata read (readCarriedMetadata, the blocks parsed in a
 * ThreadPoolEngine of two threads, as the worker does), decoded and encoded as a PNG and a JPEG
 * with what it keeps. Each file BENCH_ROUNDS (5) times after one warm-up; reported per file: the
 * median time, what was left out, and the main thread's longest stall over the whole run
 * (monitorEventLoopDelay at 10 ms resolution), which is what the worker's queue locks and sandbox
 * results wait on.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { readCarriedMetadata } from '../src/core/image/metadata/carried-metadata';
import { decodeScaled, encode } from '../src/core/image/pipeline-steps';
import { inspectSource } from '../src/core/image/source-image';
import { ThreadPoolEngine } from '../src/engine/thread-pool-engine';
import { hostileMetadataFiles } from '../test/support/hostile-metadata';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const MAX_PIXELS = 50e6;

async function resultOf(bytes: Buffer, engine: ThreadPoolEngine): Promise<string[]> {
  const source = await inspectSource(bytes, MAX_PIXELS);
  const plan = {
    scaled: { width: source.width, height: source.height },
    mode: 'scale',
    window: null,
    canvas: null,
  } as const;
  const image = await decodeScaled(source, plan, {
    maxPixels: MAX_PIXELS,
    flattenOnto: null,
    timeoutSeconds: 60,
  });
  const left: string[] = source.unusedProfile ? [source.unusedProfile] : [];
  for (const format of ['png', 'jpg'] as const) {
    const { carried, dropped } = await readCarriedMetadata(source, format, engine);
    left.push(...dropped.map((reason) => `${format}: ${reason}`));
    await encode(image, { format, quality: null, dpi: null, carried }, null);
  }
  return left;
}

async function main(): Promise<void> {
  const files = await hostileMetadataFiles();
  const engine = new ThreadPoolEngine({ threads: 2, niceIncrement: 0 });
  const stall = monitorEventLoopDelay({ resolution: 10 });
  const rows: string[] = [];
  let slowest = { name: '', ms: 0 };
  stall.enable();
  for (const file of files) {
    await resultOf(file.bytes, engine);
    const times: number[] = [];
    let left: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const began = performance.now();
      left = await resultOf(file.bytes, engine);
      times.push(performance.now() - began);
    }
    const median = times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
    if (median > slowest.ms) slowest = { name: file.name, ms: median };
    rows.push(`| ${file.name} | ${file.bytes.length} | ${median.toFixed(0)} | ${left.join('; ') || 'nothing'} |`);
  }
  stall.disable();
  await engine.close();
  console.log('| file | bytes | median ms (PNG and JPEG result) | left out |\n|---|---|---|---|');
  console.log(rows.join('\n'));
  console.log(
    `\n${files.length} files; slowest ${slowest.name} at ${slowest.ms.toFixed(0)} ms; ` +
      `the main thread's longest stall ${(stall.max / 1e6).toFixed(0)} ms`,
  );
}

void main();
