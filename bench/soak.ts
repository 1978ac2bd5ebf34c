/**
 * `npm run bench:soak`: one worker kept busy with live cut-outs and edits for a set time, its
 * memory sampled all along, to show whether it grows.
 *
 * The built API and ONE worker run as separate processes (`node dist/main.js api|worker`, the
 * image's NODE_OPTIONS) on a database of their own, with every limit raised by configuration.
 * Product photos drawn with sharp are served from loopback, each result asking for its own URL so
 * the worker's source cache never saves a download. SOAK_ACTIVE_JOBS clients each keep one job
 * in flight, one after another, taking turns through: a cut-out (`POST /remove-background`,
 * varying background, shadow and crop) and an edit (`POST /image/edit`: resize, light, colour,
 * polish; every SOAK_UPSCALE_EVERY-th edit an x2 `upscale` of a small photo instead), each of
 * SOAK_RESULTS_PER_JOB results.
 *
 * Every SOAK_SAMPLE_SECONDS: the worker's RSS (VmRSS of /proc/<pid>/status), its V8 heap and
 * external memory (prom-client's default metrics on WORKER_HEALTH_PORT's /metrics), the API's
 * RSS, and the results settled so far, as a CSV row at SOAK_OUT. At the end, on standard output:
 * results completed and failed, RSS and heap ranges, and least-squares slopes in MB per hour
 * after SOAK_WARMUP_MINUTES, overall, per half, and of each SOAK_FLOOR_MINUTES window's lowest
 * value. Needs PostgreSQL (DATABASE_URL, where a database of its own is created and dropped) and
 * Redis (REDIS_URL), like bench:pipeline.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { fromFixture, productPhoto } from '../test/support/image-fixtures';
import { ImageSourceServer } from '../test/support/image-source-server';
import { productShot } from '../test/support/product-shots';
import { summarise, type MemorySample, type SeriesSummary } from './soak-stats';
import {
  BENCH_ADMIN_TOKEN,
  createAccount,
  memoryMb,
  numberSetting,
  postOk,
  SERVICE_NODE_OPTIONS,
  serviceEnv,
  UNLIMITED_LIMITS,
  withDeployment,
  type ServiceProcess,
} from './harness';

const MINUTES = numberSetting('SOAK_MINUTES', 30);
const SAMPLE_SECONDS = numberSetting('SOAK_SAMPLE_SECONDS', 10);
const WARMUP_MINUTES = numberSetting('SOAK_WARMUP_MINUTES', 5);
const FLOOR_MINUTES = numberSetting('SOAK_FLOOR_MINUTES', 2);
const ACTIVE_JOBS = numberSetting('SOAK_ACTIVE_JOBS', 2);
const RESULTS_PER_JOB = numberSetting('SOAK_RESULTS_PER_JOB', 3);
/** Every n-th edit is an upscale; 0 never. */
const UPSCALE_EVERY = numberSetting('SOAK_UPSCALE_EVERY', 4);
/** One thread per model, so the soak leaves the shared machine's second core mostly to others. */
const MODEL_THREADS = process.env.SOAK_MODEL_THREADS ?? '1';
const OUT =
  process.env.SOAK_OUT ?? join(tmpdir(), `imgjobs-soak-${new Date().toISOString().replace(/[:.]/g, '-')}.csv`);
/** The models the tests prepare, so nothing is converted again for a run. */
const MODELS_DIR = process.env.MODELS_DIR ?? join(tmpdir(), 'imgjobs-test-models');

const log = (line: string) => process.stderr.write(`[bench:soak] ${new Date().toISOString()} ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

type Kind = 'cut-out' | 'edit' | 'upscale';

interface Sources {
  server: ImageSourceServer;
  cutouts: string[];
  edits: string[];
  upscales: string[];
}

/** Drawn product photos, served under fixed paths; a query string makes each request's URL its own. */
async function serveSources(): Promise<Sources> {
  const server = await ImageSourceServer.start();
  const serve = (path: string, jpeg: Buffer) => {
    server.serve(path, jpeg, { contentType: 'image/jpeg' });
    return path;
  };
  const cutouts: string[] = [];
  for (const [product, backdrop] of [
    ['bottle', 'studio'],
    ['sneaker', 'tabletop'],
    ['mug', 'gradient'],
    ['backpack', 'clutter'],
  ] as const) {
    const shot = await productShot(product, backdrop, { width: 1200, height: 900 });
    cutouts.push(serve(`/cutout/${shot.name}.jpg`, shot.jpeg));
  }
  const photo = async (width: number, height: number, seed: number) =>
    fromFixture(productPhoto(width, height, seed))
      .jpeg({ quality: 90 })
      .toBuffer();
  const edits = [
    serve('/edit/1mp-11.jpg', await photo(1200, 830, 11)),
    serve('/edit/1mp-12.jpg', await photo(1200, 830, 12)),
    serve('/edit/5mp-13.jpg', await photo(2700, 1860, 13)),
  ];
  const upscales = [serve('/upscale/600-14.jpg', await photo(600, 450, 14))];
  return { server, cutouts, edits, upscales };
}

/** Cut-out options the jobs take turns through, so compositing, shadows and crops all run. */
const CUTOUT_OPTIONS: object[] = [
  {},
  { background: { type: 'white', shadow: 'soft' }, output: { format: 'jpg' } },
  { background: { type: 'transparent', shadow: 'natural' }, output: { crop_to_subject: true, margin_percent: 5 } },
  { output: { channels: 'alpha' } },
];

const EDIT_OPERATIONS = {
  resizing: { width: 1200, height: 1200, fit: 'contain' },
  adjustments: { light: true, color: true },
  restorations: { polish: true },
};

interface JobRead {
  job: { status: string };
  results: Array<{ status: string; error_code: string | null }>;
}

interface Tally {
  jobs: number;
  completed: Record<Kind, number>;
  failed: Record<Kind, number>;
  errors: Map<string, number>;
}

interface Api {
  create(kind: Kind, sequence: number): Promise<string>;
  read(jobId: string): Promise<JobRead>;
}

async function seedApi(base: string, sources: Sources, prefix: string): Promise<Api> {
  const auth = await (await createAccount(base, 'bench soak', 100_000_000)).auth('live');
  const input = (paths: string[], sequence: number) =>
    Array.from({ length: RESULTS_PER_JOB }, (_, i) => ({
      image_url: sources.server.url(`${paths[(sequence + i) % paths.length]}?n=${sequence}-${i}`),
      external_id: `r${i}`,
    }));
  const bodies: Record<Kind, (sequence: number) => [string, object]> = {
    'cut-out': (n) => [
      '/api/v1/remove-background',
      { input: input(sources.cutouts, n), ...CUTOUT_OPTIONS[n % CUTOUT_OPTIONS.length] },
    ],
    edit: (n) => ['/api/v1/image/edit', { input: input(sources.edits, n), operations: EDIT_OPERATIONS }],
    upscale: (n) => [
      '/api/v1/image/edit',
      {
        input: input(sources.upscales, n),
        operations: { restorations: { upscale: true } },
        output: { format: 'jpg' },
      },
    ],
  };
  return {
    create: async (kind, sequence) => {
      const [path, body] = bodies[kind](sequence);
      const created = await postOk(base, path, body, { ...auth, 'Idempotency-Key': `${prefix}-${sequence}` });
      return (created.job as { id: string }).id;
    },
    read: async (jobId) => (await (await fetch(`${base}/api/v1/jobs/${jobId}`, { headers: auth })).json()) as JobRead,
  };
}

/** Which kind the n-th job is: cut-outs and edits in turn, every UPSCALE_EVERY-th edit an upscale. */
function kindOf(sequence: number): Kind {
  if (sequence % 2 === 0) return 'cut-out';
  const edit = (sequence - 1) / 2 + 1;
  return UPSCALE_EVERY > 0 && edit % UPSCALE_EVERY === 0 ? 'upscale' : 'edit';
}

/** ACTIVE_JOBS clients, each creating a job and polling it to its end, until `deadline`. */
async function runLoad(api: Api, deadline: number, tally: Tally): Promise<void> {
  let sequence = 0;
  const client = async () => {
    while (Date.now() < deadline) {
      const n = sequence++;
      const kind = kindOf(n);
      const jobId = await api.create(kind, n);
      let read = await api.read(jobId);
      while (['queued', 'processing'].includes(read.job.status)) {
        await sleep(1000);
        read = await api.read(jobId);
      }
      tally.jobs++;
      for (const result of read.results) {
        if (result.status === 'completed') tally.completed[kind]++;
        else {
          tally.failed[kind]++;
          const code = `${kind}: ${result.error_code ?? result.status}`;
          tally.errors.set(code, (tally.errors.get(code) ?? 0) + 1);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: ACTIVE_JOBS }, client));
}

interface Sample extends MemorySample {
  heapTotalMb: number;
  externalMb: number;
  apiRssMb: number;
  completed: number;
  failed: number;
}

const CSV_HEADER =
  'seconds,worker_rss_mb,worker_heap_used_mb,worker_heap_total_mb,worker_external_mb,api_rss_mb,' +
  'results_completed,results_failed';

async function sample(worker: ServiceProcess, api: ServiceProcess, metricsUrl: string, started: number, tally: Tally) {
  const metrics = await (await fetch(metricsUrl)).text();
  const metric = (name: string) => {
    const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics);
    return match ? Number(match[1]) / 1024 / 1024 : NaN;
  };
  const sum = (counts: Record<Kind, number>) => counts['cut-out'] + counts.edit + counts.upscale;
  const row: Sample = {
    seconds: (Date.now() - started) / 1000,
    rssMb: memoryMb(worker, 'VmRSS'),
    heapUsedMb: metric('nodejs_heap_size_used_bytes'),
    heapTotalMb: metric('nodejs_heap_size_total_bytes'),
    externalMb: metric('nodejs_external_memory_bytes'),
    apiRssMb: memoryMb(api, 'VmRSS'),
    completed: sum(tally.completed),
    failed: sum(tally.failed),
  };
  appendFileSync(
    OUT,
    [row.seconds, row.rssMb, row.heapUsedMb, row.heapTotalMb, row.externalMb, row.apiRssMb]
      .map((v) => fixed(v, 1))
      .concat([String(row.completed), String(row.failed)])
      .join(',') + '\n',
  );
  return row;
}

function report(samples: Sample[], tally: Tally, seconds: number, peakRssMb: number): string {
  const warmup = WARMUP_MINUTES * 60;
  const floor = FLOOR_MINUTES * 60;
  const rss = summarise(samples, (s) => s.rssMb, warmup, floor);
  const heap = summarise(samples, (s) => s.heapUsedMb, warmup, floor);
  const external = summarise(samples, (s) => s.externalMb, warmup, floor);
  const row = (name: string, s: SeriesSummary) =>
    `| ${name} | ${fixed(s.min, 0)}–${fixed(s.max, 0)} | ${fixed(s.mean, 0)} ` +
    `| ${fixed(s.slopePerHour)} ± ${fixed(2 * s.slopeErrorPerHour)} ` +
    `| ${fixed(s.firstHalfPerHour)} | ${fixed(s.secondHalfPerHour)} | ${fixed(s.floorSlopePerHour)} |`;
  const kinds: Kind[] = ['cut-out', 'edit', 'upscale'];
  return [
    `Node ${process.versions.node}, sharp ${sharp.versions.sharp}, ${cpus().length} cores, ` +
      `${new Date().toISOString()}; samples at ${OUT}`,
    `${fixed(seconds / 60)} minutes, ${samples.length} samples every ${SAMPLE_SECONDS} s, ${ACTIVE_JOBS} jobs ` +
      `in flight of ${RESULTS_PER_JOB} results, SEGMENTATION_THREADS and UPSCALER_THREADS ${MODEL_THREADS}; ` +
      `slopes after a ${WARMUP_MINUTES}-minute warm-up, floors per ${FLOOR_MINUTES} minutes`,
    '',
    '| kind | results completed | failed |',
    '|---|---|---|',
    ...kinds.map((kind) => `| ${kind} | ${tally.completed[kind]} | ${tally.failed[kind]} |`),
    `| all (${tally.jobs} jobs) | ${kinds.reduce((n, k) => n + tally.completed[k], 0)} ` +
      `| ${kinds.reduce((n, k) => n + tally.failed[k], 0)} |`,
    ...[...tally.errors].map(([code, count]) => `failed: ${code} x ${count}`),
    '',
    '| worker memory, MB | range | mean | slope MB/h ± 2 SE | first half MB/h | second half MB/h | floor slope MB/h |',
    '|---|---|---|---|---|---|---|',
    row('RSS', rss),
    row('V8 heap used', heap),
    row('external (buffers)', external),
    '',
    `Worker peak RSS (VmHWM) ${fixed(peakRssMb, 0)} MB.`,
  ].join('\n');
}

async function main(): Promise<void> {
  await withDeployment('soak', async (deployment) => {
    log('drawing the product photos');
    const sources = await serveSources();
    deployment.onClose(() => sources.server.stop());
    const { base, healthPort, api, worker } = await deployment.startApiAndWorker(
      serviceEnv(
        {
          NODE_OPTIONS: SERVICE_NODE_OPTIONS,
          ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
          OUTBOUND_ALLOWLIST: '127.0.0.1',
          STORAGE_DIR: deployment.storageDir,
          MODELS_DIR,
          SEGMENTATION_THREADS: MODEL_THREADS,
          UPSCALER_THREADS: MODEL_THREADS,
          LOG_LEVEL: 'warn',
          ...UNLIMITED_LIMITS,
          CAPACITY_MAX_PENDING_RESULTS: '100000',
          CAPACITY_ACCOUNT_SHARE: '1',
        },
        'SOAK_',
      ),
      300_000,
    );
    const client = await seedApi(base, sources, deployment.redisPrefix);

    const tally: Tally = {
      jobs: 0,
      completed: { 'cut-out': 0, edit: 0, upscale: 0 },
      failed: { 'cut-out': 0, edit: 0, upscale: 0 },
      errors: new Map(),
    };
    writeFileSync(OUT, `${CSV_HEADER}\n`);
    log(`load for ${MINUTES} minutes, samples to ${OUT}`);
    const started = Date.now();
    const deadline = started + MINUTES * 60_000;
    const samples: Sample[] = [];
    const metricsUrl = `http://127.0.0.1:${healthPort}/metrics`;
    const sampling = (async () => {
      while (Date.now() < deadline) {
        const row = await sample(worker, api, metricsUrl, started, tally);
        samples.push(row);
        if (samples.length % Math.max(1, Math.round(60 / SAMPLE_SECONDS)) === 0) {
          log(
            `${fixed(row.seconds / 60)} min: RSS ${fixed(row.rssMb, 0)} MB, heap ${fixed(row.heapUsedMb, 0)} MB, ` +
              `${row.completed} results completed, ${row.failed} failed`,
          );
        }
        await sleep(Math.min(SAMPLE_SECONDS * 1000, Math.max(0, deadline - Date.now())));
      }
    })();
    await Promise.all([runLoad(client, deadline, tally), sampling]);
    const seconds = (Date.now() - started) / 1000;
    if (worker.child.exitCode !== null) {
      throw new Error(`the worker exited during the soak\n${worker.output().slice(-4000)}`);
    }
    process.stdout.write(`\n${report(samples, tally, seconds, memoryMb(worker, 'VmHWM'))}\n`);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
