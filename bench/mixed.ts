/**
 * `npm run bench:mixed`: how responsive one worker stays while it does CPU-bound pixel work.
 *
 * The built API and ONE worker run as separate processes (`node dist/main.js api|worker`, the
 * image's NODE_OPTIONS and MALLOC_ARENA_MAX) on a database of their own, with the service's
 * default settings except what the benchmark must set: its database, Redis prefix, ports,
 * storage folder and admin token, the loopback sources and receiver (OUTBOUND_ALLOWLIST and
 * NODE_EXTRA_CA_CERTS), the prepared models' folder, and the rate and active-job limits out of
 * reach. So the worker consumes every queue, with the default concurrency, a 10 s queue lock
 * and the local segmentation model on SEGMENTATION_THREADS 2. Sources are photos drawn with
 * sharp on a loopback server, one URL per result; webhooks go to an HTTPS receiver on loopback
 * whose self-signed certificate is made at run time with openssl.
 *
 * In order:
 * 1. idle: MIXED_IDLE_SANDBOX sandbox jobs, one after another (after one not measured);
 * 2. cut-outs alone: MIXED_SMALL_CUTOUTS live cut-outs of a 0.3 MP photo (640 x 480), one job
 *    at a time (after one not measured);
 * 3. mixed: MIXED_EDIT_JOBS live edit jobs of MIXED_EDIT_PHOTOS 12 MP photos (4000 x 3000;
 *    light, colour and polish, JPEG out) and MIXED_CUTOUT_JOBS live cut-out jobs of
 *    MIXED_CUTOUT_SHOTS 1 MP product shots (1200 x 900), all created at once, while sandbox jobs
 *    are created one after another until the live jobs end (or MIXED_LIMIT_SECONDS pass);
 * 4. after the services stop: the worker's segmentation session (`ModelSession` of the shipped model, the worker's
 *    options) alone on the same 0.3 MP photo, MIXED_MODEL_RUNS times after one warm-up.
 *
 * Reported (a table on standard output, JSON at MIXED_OUT): results started more than once (the
 * database's attempts, BullMQ's attemptsStarted and stalledCounter); lock errors in the worker's
 * log, and any lock, stall or repeated-attempt series of the worker's /metrics; sandbox job
 * latency (created_at to completed_at of the job, as the API reports them) idle and under load,
 * p50 and p95; webhook delay (receipt minus the completion of the result, or job, the event
 * reports) idle and under load; the worker's event-loop delay p99 and max over each phase, from
 * prom-client's monitorEventLoopDelay histogram on its /metrics
 * (`nodejs_eventloop_lag_p99_seconds` and `_max_seconds`): that histogram is reset by every
 * scrape, so the benchmark scrapes only at the start of a phase and at its end, and the second
 * scrape covers the whole phase; throughput per kind in the mixed phase (results completed per
 * minute, from its start to the kind's last completion); the 0.3 MP cut-out through the service
 * (median create to completed) against the session alone; the worker's peak RSS (VmHWM). Needs
 * PostgreSQL (DATABASE_URL, where a database of its own is created and dropped) and Redis
 * (REDIS_URL), like bench:soak.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Queue } from 'bullmq';
import { Client } from 'pg';
import sharp from 'sharp';
import { prepareIsnetModel } from '../src/core/segmentation/isnet-model';
import { ModelSession } from '../src/core/segmentation/model-session';
import { shippedModelManifest } from '../src/core/segmentation/segmentation-models';
import { fromFixture, productPhoto } from '../test/support/image-fixtures';
import { ImageSourceServer } from '../test/support/image-source-server';
import { BACKDROPS, PRODUCTS, productShot } from '../test/support/product-shots';
import { parseSamples, valueOf } from '../test/support/prometheus-text';
import { testCertificate, WebhookReceiver } from '../test/support/webhook-receiver';
import {
  AS_DEPLOYED,
  BENCH_ADMIN_TOKEN,
  createAccount,
  memoryMb,
  postOk,
  serviceEnv,
  serviceQueue,
  UNLIMITED_LIMITS,
  numberSetting,
  withDeployment,
} from './harness';

const EDIT_JOBS = numberSetting('MIXED_EDIT_JOBS', 2);
const EDIT_PHOTOS = numberSetting('MIXED_EDIT_PHOTOS', 4);
const CUTOUT_JOBS = numberSetting('MIXED_CUTOUT_JOBS', 2);
const CUTOUT_SHOTS = numberSetting('MIXED_CUTOUT_SHOTS', 10);
const IDLE_SANDBOX = numberSetting('MIXED_IDLE_SANDBOX', 10);
const SMALL_CUTOUTS = numberSetting('MIXED_SMALL_CUTOUTS', 7);
const MODEL_RUNS = numberSetting('MIXED_MODEL_RUNS', 7);
/** The mixed phase's limit: on a worker that keeps losing its locks, results start over and over. */
const LIMIT_SECONDS = numberSetting('MIXED_LIMIT_SECONDS', 300);
/** How long webhooks still missing after a phase are waited for. */
const WEBHOOK_WAIT_SECONDS = 30;
const OUT =
  process.env.MIXED_OUT ?? join(tmpdir(), `imgjobs-mixed-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
/** The models the tests prepare, so nothing is converted again for a run. */
const MODELS_DIR = process.env.MODELS_DIR ?? join(tmpdir(), 'imgjobs-test-models');
/** The worker's defaults (SEGMENTATION_INPUT_SIZE, SEGMENTATION_THREADS), for the session alone. */
const SEGMENTATION_INPUT_SIZE = 768;
const SEGMENTATION_THREADS = 2;

const EDIT_SIZE = { width: 4000, height: 3000 };
const CUTOUT_SIZE = { width: 1200, height: 900 };
const SMALL_SIZE = { width: 640, height: 480 };
const EDIT_OPERATIONS = { adjustments: { light: true, color: true }, restorations: { polish: true } };
/** Log messages of a worker that lost a result's lock, as BullMQ words them. */
const LOCK_ERROR = /could not renew lock|lock mismatch|missing lock|stalled/i;

const log = (line: string) => process.stderr.write(`[bench:mixed] ${new Date().toISOString()} ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The nearest-rank percentile; NaN for no figures. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;
}

interface Spread {
  n: number;
  p50: number;
  p95: number;
  max: number;
}
const spread = (values: number[]): Spread => ({
  n: values.length,
  p50: percentile(values, 50),
  p95: percentile(values, 95),
  max: values.length ? Math.max(...values) : NaN,
});

/** CPU seconds a process has used so far (user and system, from /proc). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

interface JobRead {
  job: { id: string; status: string; created_at: string; completed_at: string | null };
  results: Array<{ id: string; status: string; error_code: string | null; completed_at: string | null }>;
}

type Kind = 'edit' | 'cut-out' | 'sandbox';

interface Fixtures {
  server: ImageSourceServer;
  edit: string;
  cutouts: string[];
  small: string;
}

/** Drawn photos under fixed paths; a query string makes each result's URL its own. */
async function serveFixtures(): Promise<Fixtures> {
  const server = await ImageSourceServer.start();
  const serve = (path: string, jpeg: Buffer) => {
    server.serve(path, jpeg, { contentType: 'image/jpeg' });
    return path;
  };
  // A shaded product with a printed stripe and sensor noise (sigma 6), so polish has work.
  const edit = serve(
    '/edit/12mp.jpg',
    await fromFixture(productPhoto(EDIT_SIZE.width, EDIT_SIZE.height, 31))
      .jpeg({ quality: 90 })
      .toBuffer(),
  );
  const cutouts: string[] = [];
  for (let i = 0; i < Math.min(CUTOUT_SHOTS, 8); i++) {
    const shot = await productShot(PRODUCTS[i % PRODUCTS.length], BACKDROPS[i % 4], CUTOUT_SIZE);
    cutouts.push(serve(`/cutout/${shot.name}.jpg`, shot.jpeg));
  }
  const small = serve('/small/mug-on-tabletop.jpg', (await productShot('mug', 'tabletop', SMALL_SIZE)).jpeg);
  return { server, edit, cutouts, small };
}

interface Report {
  machine: {
    node: string;
    cores: number;
    date: string;
    load_average_at_start: number[];
    load_average_at_end: number[];
  };
  settings: Record<string, number | string>;
  worker_ready_ms: number;
  idle: { sandbox_ms: Spread; webhook_delay_ms: Spread; event_loop: EventLoop };
  cutouts_alone: { photo: string; service_ms: number[]; service_median_ms: number };
  model_alone: { probability_median_ms: number; inference_median_ms: number; runs: number };
  mixed: {
    ran_ms: number;
    limit_reached: boolean;
    worker_cpu_seconds: number;
    sandbox_ms: Spread;
    sandbox_not_completed: string[];
    webhook_delay_ms: Spread;
    webhooks_missing: number;
    webhook_duplicates: number;
    event_loop: EventLoop;
    results: Record<Kind, { total: number; completed: number; failed: number; per_minute: number }>;
    failures: Record<string, number>;
  };
  started_more_than_once: { total: number; by_kind: Record<Kind, number>; examples: string[] };
  lock_errors: { worker_log: number; by_message: Record<string, number>; metrics: Record<string, number> };
  worker_peak_rss_mb: number;
  bench_seconds: number;
}

interface EventLoop {
  p99_ms: number;
  max_ms: number;
}

async function main(): Promise<void> {
  const begun = Date.now();
  const loadAtStart = loadavg().map((value) => Number(value.toFixed(2)));
  await withDeployment('mixed', async (deployment) => {
    const caFile = join(deployment.storageDir, 'receiver-ca.pem');
    log('drawing the photos');
    const fixtures = await serveFixtures();
    deployment.onClose(() => fixtures.server.stop());
    const receiver = await WebhookReceiver.start();
    deployment.onClose(() => receiver.stop());
    writeFileSync(caFile, testCertificate().cert);
    const {
      base,
      healthPort,
      worker,
      workerStartMs: workerReadyMs,
    } = await deployment.startApiAndWorker(
      serviceEnv(
        {
          ...AS_DEPLOYED,
          ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
          OUTBOUND_ALLOWLIST: '127.0.0.1',
          NODE_EXTRA_CA_CERTS: caFile,
          STORAGE_DIR: join(deployment.storageDir, 'results'),
          MODELS_DIR,
          ...UNLIMITED_LIMITS,
        },
        'MIXED_',
      ),
      300_000,
    );
    const db = new Client({ connectionString: deployment.databaseUrl });
    deployment.onClose(() => db.end().catch(() => undefined));
    await db.connect();

    const post = (path: string, body: object, headers: Record<string, string>) => postOk(base, path, body, headers);
    const account = await createAccount(base, 'bench mixed', 100_000_000);
    const live = await account.auth('live');
    const sandbox = await account.auth('sandbox');
    const create = async (path: string, body: object, auth: Record<string, string>) =>
      (
        (
          await post(
            `/api/v1${path}`,
            { ...body, webhook_url: receiver.url },
            { ...auth, 'Idempotency-Key': randomUUID() },
          )
        ).job as { id: string }
      ).id;
    const read = async (jobId: string, auth: Record<string, string>) =>
      (await (await fetch(`${base}/api/v1/jobs/${jobId}`, { headers: auth })).json()) as JobRead;
    const ended = (job: JobRead) => !['queued', 'processing'].includes(job.job.status);
    const serverMs = (job: JobRead) =>
      Date.parse(job.job.completed_at ?? new Date().toISOString()) - Date.parse(job.job.created_at);
    /** Creates a job and polls it to its end (or `deadline`); the last read. */
    const runJob = async (path: string, body: object, auth: Record<string, string>, deadline = Infinity) => {
      const jobId = await create(path, body, auth);
      for (;;) {
        const job = await read(jobId, auth);
        if (ended(job) || Date.now() > deadline) return job;
        await sleep(100);
      }
    };
    let sandboxCount = 0;
    const sandboxJob = (deadline?: number) => {
      const n = sandboxCount++;
      return runJob(
        '/image/edit',
        { input: [{ image_url: `https://images.example.com/sandbox-${n}.jpg`, external_id: `sandbox-${n}` }] },
        sandbox,
        deadline,
      );
    };
    const metricsUrl = `http://127.0.0.1:${healthPort}/metrics`;
    const scrape = async () => parseSamples(await (await fetch(metricsUrl)).text());
    /** The event-loop delay since the last scrape (each scrape resets prom-client's histogram). */
    const eventLoopSinceLastScrape = async (): Promise<EventLoop> => {
      const samples = await scrape();
      return {
        p99_ms: Math.round(valueOf(samples, 'nodejs_eventloop_lag_p99_seconds') * 1000),
        max_ms: Math.round(valueOf(samples, 'nodejs_eventloop_lag_max_seconds') * 1000),
      };
    };
    /** Every webhook event of jobs created from `since` on, with the completion it reports. */
    const eventsSince = async (since: number) =>
      (
        await db.query<{ id: string; completed_at: Date }>(
          `SELECT e.id, coalesce(r.completed_at, j.completed_at) AS completed_at
             FROM webhook_events e JOIN jobs j ON j.id = e.job_id LEFT JOIN job_results r ON r.id = e.result_id
            WHERE j.created_at >= $1`,
          [new Date(since)],
        )
      ).rows;
    /** Waits for every event of those jobs to arrive; each one's delay, and how many never came. */
    const webhookDelays = async (since: number) => {
      const events = await eventsSince(since);
      const deadline = Date.now() + WEBHOOK_WAIT_SECONDS * 1000;
      const firstReceipt = () => {
        const first = new Map<string, number>();
        for (const delivery of receiver.received) {
          const id = String(delivery.headers['x-service-event-id']);
          if (!first.has(id)) first.set(id, delivery.receivedAt);
        }
        return first;
      };
      while (Date.now() < deadline && !events.every((event) => firstReceipt().has(event.id))) await sleep(250);
      const received = firstReceipt();
      return {
        delays: events.map((event) => (received.get(event.id) ?? Date.now()) - event.completed_at.getTime()),
        missing: events.filter((event) => !received.has(event.id)).length,
      };
    };

    // 1. Idle.
    log('warming up');
    await sandboxJob();
    await runJob('/remove-background', { input: [{ image_url: fixtures.server.url(`${fixtures.small}?warm`) }] }, live);
    log(`idle: ${IDLE_SANDBOX} sandbox jobs one after another`);
    await eventLoopSinceLastScrape();
    const idleFrom = Date.now();
    const idleSandbox: number[] = [];
    for (let i = 0; i < IDLE_SANDBOX; i++) idleSandbox.push(serverMs(await sandboxJob()));
    const idleLoop = await eventLoopSinceLastScrape();
    const idleWebhooks = await webhookDelays(idleFrom);

    // 2. Cut-outs alone.
    log(`cut-outs alone: ${SMALL_CUTOUTS} of ${SMALL_SIZE.width} x ${SMALL_SIZE.height}, one at a time`);
    const smallCutouts: number[] = [];
    for (let i = 0; i < SMALL_CUTOUTS; i++) {
      const job = await runJob(
        '/remove-background',
        { input: [{ image_url: fixtures.server.url(`${fixtures.small}?n=${i}`) }] },
        live,
      );
      if (job.job.status !== 'completed') throw new Error(`a 0.3 MP cut-out ended ${job.job.status}`);
      smallCutouts.push(serverMs(job));
    }

    // 3. Mixed.
    log(
      `mixed: ${EDIT_JOBS} x ${EDIT_PHOTOS} 12 MP edits, ${CUTOUT_JOBS} x ${CUTOUT_SHOTS} 1 MP cut-outs, ` +
        `sandbox jobs one after another`,
    );
    await eventLoopSinceLastScrape();
    const mixedFrom = Date.now();
    const cpuBefore = cpuSeconds(worker.child.pid);
    const deadline = mixedFrom + LIMIT_SECONDS * 1000;
    const input = (path: string, job: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        image_url: fixtures.server.url(`${path}?job=${job}&i=${i}`),
        external_id: `j${job}-${i}`,
      }));
    const editIds = await Promise.all(
      Array.from({ length: EDIT_JOBS }, (_, j) =>
        create(
          '/image/edit',
          { input: input(fixtures.edit, j, EDIT_PHOTOS), operations: EDIT_OPERATIONS, output: { format: 'jpg' } },
          live,
        ),
      ),
    );
    const cutoutIds = await Promise.all(
      Array.from({ length: CUTOUT_JOBS }, (_, j) =>
        create(
          '/remove-background',
          {
            input: Array.from({ length: CUTOUT_SHOTS }, (_, i) => ({
              image_url: fixtures.server.url(`${fixtures.cutouts[i % fixtures.cutouts.length]}?job=${j}&i=${i}`),
              external_id: `j${j}-${i}`,
            })),
          },
          live,
        ),
      ),
    );
    let liveReads: JobRead[] = [];
    let liveOver = false;
    const liveRun = (async () => {
      try {
        for (;;) {
          liveReads = await Promise.all([...editIds, ...cutoutIds].map((jobId) => read(jobId, live)));
          if (liveReads.every(ended) || Date.now() > deadline) return;
          await sleep(1000);
        }
      } finally {
        liveOver = true;
      }
    })();
    const loadSandbox: JobRead[] = [];
    while (!liveOver && Date.now() < deadline) loadSandbox.push(await sandboxJob(deadline));
    await liveRun;
    const mixedMs = Date.now() - mixedFrom;
    const mixedLoop = await eventLoopSinceLastScrape();
    const workerCpu = cpuSeconds(worker.child.pid) - cpuBefore;
    log(`mixed phase over after ${(mixedMs / 1000).toFixed(1)} s; waiting for its webhooks`);
    const mixedWebhooks = await webhookDelays(mixedFrom);

    // Throughput and failures per kind.
    const byKind: Array<[Kind, JobRead[]]> = [
      ['edit', liveReads.slice(0, EDIT_JOBS)],
      ['cut-out', liveReads.slice(EDIT_JOBS)],
      ['sandbox', loadSandbox],
    ];
    const failures: Record<string, number> = {};
    const results = Object.fromEntries(
      byKind.map(([kind, jobs]) => {
        const all = jobs.flatMap((job) => job.results);
        const done = all.filter((result) => result.status === 'completed');
        for (const result of all.filter((r) => r.status === 'failed')) {
          const key = `${kind}: ${result.error_code ?? 'failed'}`;
          failures[key] = (failures[key] ?? 0) + 1;
        }
        const last = Math.max(mixedFrom, ...done.map((result) => Date.parse(result.completed_at as string)));
        return [
          kind,
          {
            total: all.length,
            completed: done.length,
            failed: all.filter((result) => result.status === 'failed').length,
            per_minute: done.length ? Number(((done.length / (last - mixedFrom)) * 60_000).toFixed(1)) : 0,
          },
        ];
      }),
    ) as Report['mixed']['results'];

    // Results started more than once, over the whole run.
    const queues: Queue[] = ['processing', 'background-removal', 'sandbox'].map((name) =>
      serviceQueue(deployment, name),
    );
    const { rows: resultRows } = await db.query<{ id: string; attempts: number; sandbox: boolean; api: string }>(
      `SELECT r.id, r.attempts, j.sandbox, j.api FROM job_results r JOIN jobs j ON j.id = r.job_id`,
    );
    const startedTwice = { total: 0, by_kind: { edit: 0, 'cut-out': 0, sandbox: 0 } as Record<Kind, number> };
    const examples: string[] = [];
    for (const row of resultRows) {
      const entries = await Promise.all(queues.map((queue) => queue.getJob(row.id)));
      const entry = entries.find((found) => found !== undefined);
      if (row.attempts > 1 || (entry?.attemptsStarted ?? 0) > 1 || (entry?.stalledCounter ?? 0) > 0) {
        const kind: Kind = row.sandbox ? 'sandbox' : row.api === 'remove_background' ? 'cut-out' : 'edit';
        startedTwice.total++;
        startedTwice.by_kind[kind]++;
        if (examples.length < 5) {
          examples.push(
            `${kind} ${row.id}: ${row.attempts} attempts, ${entry?.attemptsStarted ?? 0} queue runs, ` +
              `${entry?.stalledCounter ?? 0} stalls`,
          );
        }
      }
    }

    // Lock errors: the worker's log (pino JSON lines), and any lock, stall or repeated-attempt
    // series it exports.
    const byMessage: Record<string, number> = {};
    for (const line of worker
      .output()
      .split('\n')
      .filter((text) => text.startsWith('{'))) {
      let message = line;
      try {
        const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
        message = [entry.msg, entry.err?.message].filter(Boolean).join(': ');
      } catch {
        // Not JSON: kept as it is.
      }
      if (!LOCK_ERROR.test(message)) continue;
      const kind = message.replace(/[0-9a-f]{8}-[0-9a-f-]{27}|\d{10,}/g, '…');
      byMessage[kind] = (byMessage[kind] ?? 0) + 1;
    }
    const lockSeries: Record<string, number> = {};
    for (const sample of await scrape()) {
      if (!/lock|stall|repeated/i.test(sample.name)) continue;
      const labels = Object.entries(sample.labels).map(([name, value]) => `${name}="${value}"`);
      lockSeries[`${sample.name}${labels.length ? `{${labels.join(',')}}` : ''}`] = sample.value;
    }
    const peakRssMb = Math.round(memoryMb(worker, 'VmHWM'));

    await deployment.stopProcesses();

    // 4. The session alone.
    log(`the segmentation session alone: ${MODEL_RUNS} runs`);
    const model = await prepareIsnetModel({ modelsDir: MODELS_DIR, inputSize: SEGMENTATION_INPUT_SIZE });
    const session = await ModelSession.open(shippedModelManifest(SEGMENTATION_INPUT_SIZE), model.path, {
      intraOpThreads: SEGMENTATION_THREADS,
      provider: 'cpu',
    });
    const { data, info } = await sharp((await productShot('mug', 'tabletop', SMALL_SIZE)).jpeg)
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const photo = { data, width: info.width, height: info.height, channels: 3 as const };
    const probability: number[] = [];
    const inference: number[] = [];
    await session.probability(photo);
    for (let i = 0; i < MODEL_RUNS; i++) {
      const started = performance.now();
      const { timings } = await session.probability(photo);
      probability.push(performance.now() - started);
      inference.push(timings.inferenceMs);
    }
    await session.release();

    const report: Report = {
      machine: {
        node: process.versions.node,
        cores: cpus().length,
        date: new Date().toISOString(),
        load_average_at_start: loadAtStart,
        load_average_at_end: loadavg().map((value) => Number(value.toFixed(2))),
      },
      settings: {
        edit_jobs: EDIT_JOBS,
        edit_photos_per_job: EDIT_PHOTOS,
        edit_size: `${EDIT_SIZE.width}x${EDIT_SIZE.height}`,
        cutout_jobs: CUTOUT_JOBS,
        cutout_shots_per_job: CUTOUT_SHOTS,
        cutout_size: `${CUTOUT_SIZE.width}x${CUTOUT_SIZE.height}`,
        idle_sandbox_jobs: IDLE_SANDBOX,
        small_cutouts: SMALL_CUTOUTS,
        small_size: `${SMALL_SIZE.width}x${SMALL_SIZE.height}`,
        limit_seconds: LIMIT_SECONDS,
      },
      worker_ready_ms: workerReadyMs,
      idle: {
        sandbox_ms: spread(idleSandbox),
        webhook_delay_ms: spread(idleWebhooks.delays),
        event_loop: idleLoop,
      },
      cutouts_alone: {
        photo: `${SMALL_SIZE.width}x${SMALL_SIZE.height}`,
        service_ms: smallCutouts,
        service_median_ms: percentile(smallCutouts, 50),
      },
      model_alone: {
        probability_median_ms: Math.round(percentile(probability, 50)),
        inference_median_ms: Math.round(percentile(inference, 50)),
        runs: MODEL_RUNS,
      },
      mixed: {
        ran_ms: mixedMs,
        limit_reached: !liveReads.every(ended),
        worker_cpu_seconds: Number(workerCpu.toFixed(1)),
        sandbox_ms: spread(loadSandbox.map(serverMs)),
        sandbox_not_completed: loadSandbox
          .filter((job) => job.job.status !== 'completed')
          .map((job) => `${job.job.status} ${job.results.map((r) => r.error_code ?? '').join()}`),
        webhook_delay_ms: spread(mixedWebhooks.delays),
        webhooks_missing: mixedWebhooks.missing,
        webhook_duplicates: receiver.received.length - new Set(receiver.eventIds()).size,
        event_loop: mixedLoop,
        results,
        failures,
      },
      started_more_than_once: { ...startedTwice, examples },
      lock_errors: {
        worker_log: Object.values(byMessage).reduce((sum, count) => sum + count, 0),
        by_message: byMessage,
        metrics: lockSeries,
      },
      worker_peak_rss_mb: peakRssMb,
      bench_seconds: Math.round((Date.now() - begun) / 1000),
    };
    writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`\n${table(report)}\n\nJSON: ${OUT}\n`);
  });
}

const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value).toLocaleString('en')} ms` : 'n/a');

/** Each series name once, its labelled values summed: `name total, …`. */
function metricTotals(series: Record<string, number>): string {
  const totals = new Map<string, number>();
  for (const [key, value] of Object.entries(series)) {
    const name = key.replace(/\{.*$/, '');
    totals.set(name, (totals.get(name) ?? 0) + value);
  }
  return totals.size ? [...totals].map(([name, total]) => `${name} ${total}`).join(', ') : 'no such series';
}

function table(report: Report): string {
  const { idle, mixed } = report;
  const rows: Array<[string, string, string]> = [
    [
      'results started more than once',
      '',
      `${report.started_more_than_once.total} (edit ${report.started_more_than_once.by_kind.edit}, ` +
        `cut-out ${report.started_more_than_once.by_kind['cut-out']}, ` +
        `sandbox ${report.started_more_than_once.by_kind.sandbox})`,
    ],
    [
      'lock errors (worker log / metrics)',
      '',
      `${report.lock_errors.worker_log} / ${metricTotals(report.lock_errors.metrics)}`,
    ],
    ['sandbox job p50', ms(idle.sandbox_ms.p50), ms(mixed.sandbox_ms.p50)],
    ['sandbox job p95', ms(idle.sandbox_ms.p95), ms(mixed.sandbox_ms.p95)],
    ['sandbox jobs measured', String(idle.sandbox_ms.n), String(mixed.sandbox_ms.n)],
    ['webhook delay after completion p50', ms(idle.webhook_delay_ms.p50), ms(mixed.webhook_delay_ms.p50)],
    ['webhook delay after completion p95', ms(idle.webhook_delay_ms.p95), ms(mixed.webhook_delay_ms.p95)],
    ['webhooks missing / received twice (whole run)', '', `${mixed.webhooks_missing} / ${mixed.webhook_duplicates}`],
    ['event-loop delay p99', ms(idle.event_loop.p99_ms), ms(mixed.event_loop.p99_ms)],
    ['event-loop delay max', ms(idle.event_loop.max_ms), ms(mixed.event_loop.max_ms)],
    ...(['edit', 'cut-out', 'sandbox'] as const).map((kind): [string, string, string] => [
      `${kind} results per minute`,
      '',
      `${mixed.results[kind].per_minute} ` +
        `(${mixed.results[kind].completed} of ${mixed.results[kind].total} completed)`,
    ]),
  ];
  const { cutouts_alone: cutouts, model_alone: model } = report;
  return [
    `Node ${report.machine.node}, ${report.machine.cores} cores, ${report.machine.date}, load average ` +
      `${report.machine.load_average_at_start.join(' ')} at start, ` +
      `${report.machine.load_average_at_end.join(' ')} at end`,
    `mixed phase: ${(mixed.ran_ms / 1000).toFixed(1)} s${mixed.limit_reached ? ' (limit reached)' : ''}, ` +
      `worker CPU ${mixed.worker_cpu_seconds} s; worker ready in ${(report.worker_ready_ms / 1000).toFixed(1)} s; ` +
      `bench ${report.bench_seconds} s`,
    ...Object.entries(mixed.failures).map(([code, count]) => `failed: ${code} x ${count}`),
    ...mixed.sandbox_not_completed.map((line) => `sandbox job not completed: ${line}`),
    ...Object.entries(report.lock_errors.by_message).map(([message, count]) => `log: ${count} x ${message}`),
    '',
    '| figure | idle | mixed load |',
    '|---|---|---|',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
    `A ${cutouts.photo} cut-out through the service, cut-outs alone: median ${ms(cutouts.service_median_ms)} ` +
      `from create to completed (${cutouts.service_ms.length} jobs); the worker's segmentation session alone on it: ` +
      `${ms(model.probability_median_ms)} (inference ${ms(model.inference_median_ms)}; median of ${model.runs}).`,
    `Worker peak RSS (VmHWM): ${report.worker_peak_rss_mb} MB.`,
  ].join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
