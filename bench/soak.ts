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
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import sharp from 'sharp';
import { fromFixture, productPhoto } from '../test/support/image-fixtures';
import { ImageSourceServer } from '../test/support/image-source-server';
import { productShot } from '../test/support/product-shots';
import { summarise, type MemorySample, type SeriesSummary } from './soak-stats';
import { deleteRedisKeys, freePort, SERVICE_NODE_OPTIONS, UNLIMITED_LIMITS, waitFor } from './support';
import { startServiceProcess, type ServiceProcess } from './service-process';

const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const numberSetting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
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

/** The service's environment: only what is set here, nothing the service reads from the parent. */
function serviceEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['UV_THREADPOOL_SIZE', 'VIPS_CONCURRENCY', 'DATABASE_URL', 'REDIS_URL', 'ADMIN_TOKEN']) {
    delete env[name];
  }
  for (const name of Object.keys(env))
    if (name.startsWith('SOAK_') || name === 'PORT' || name === 'ROLE') delete env[name];
  return { ...env, NODE_OPTIONS: SERVICE_NODE_OPTIONS, ...extra };
}

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

async function seedApi(base: string, adminToken: string, sources: Sources, prefix: string): Promise<Api> {
  const post = async (path: string, body: object, headers: Record<string, string>) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const admin = { Authorization: `Bearer ${adminToken}` };
  const account = (await post('/admin/v1/accounts', { name: 'bench soak', credits: 100_000_000 }, admin)).account as {
    id: string;
  };
  const key = (await post(`/admin/v1/accounts/${account.id}/api-keys`, { environment: 'live' }, admin))
    .secret as string;
  const auth = { Authorization: `Bearer ${key}` };
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
      const created = await post(path, body, { ...auth, 'Idempotency-Key': `${prefix}-${sequence}` });
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
    rssMb: worker.memoryMb('VmRSS'),
    heapUsedMb: metric('nodejs_heap_size_used_bytes'),
    heapTotalMb: metric('nodejs_heap_size_total_bytes'),
    externalMb: metric('nodejs_external_memory_bytes'),
    apiRssMb: api.memoryMb('VmRSS'),
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
  const database = `imgjobs_bench_${randomBytes(4).toString('hex')}`;
  const prefix = `bench-${database}`;
  const storageDir = mkdtempSync(join(tmpdir(), 'imgjobs-bench-soak-'));
  const adminToken = `bench-${randomBytes(16).toString('hex')}`;
  const admin = new Client({ connectionString: BASE_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const databaseUrl = new URL(BASE_DATABASE_URL);
  databaseUrl.pathname = `/${database}`;
  log('drawing the product photos');
  const sources = await serveSources();
  const services: ServiceProcess[] = [];
  try {
    const apiPort = await freePort();
    const healthPort = await freePort();
    const base = `http://127.0.0.1:${apiPort}`;
    const env = serviceEnv({
      PORT: String(apiPort),
      WORKER_HEALTH_PORT: String(healthPort),
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      ADMIN_TOKEN: adminToken,
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      STORAGE_DIR: storageDir,
      PUBLIC_BASE_URL: base,
      MODELS_DIR,
      SEGMENTATION_THREADS: MODEL_THREADS,
      UPSCALER_THREADS: MODEL_THREADS,
      LOG_LEVEL: 'warn',
      ...UNLIMITED_LIMITS,
      CAPACITY_MAX_PENDING_RESULTS: '100000',
      CAPACITY_ACCOUNT_SHARE: '1',
    });
    const api = startServiceProcess('api', env);
    services.push(api);
    await waitFor(`${base}/health/ready`).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${api.tail()}`);
    });
    const worker = startServiceProcess('worker', env);
    services.push(worker);
    await waitFor(`http://127.0.0.1:${healthPort}/health/ready`, 300_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${worker.tail()}`);
    });
    const client = await seedApi(base, adminToken, sources, prefix);

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
    if (worker.child.exitCode !== null) throw new Error(`the worker exited during the soak\n${worker.tail()}`);
    process.stdout.write(`\n${report(samples, tally, seconds, worker.memoryMb('VmHWM'))}\n`);
  } finally {
    for (const service of services.reverse()) await service.stop();
    await sources.server.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    await deleteRedisKeys(REDIS_URL, prefix);
    rmSync(storageDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
