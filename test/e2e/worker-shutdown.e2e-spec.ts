import { readdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { fromFixture, productPhoto } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { cleanEnv, freePort, startService, waitForReady, type ServiceProcess } from '../support/processes';
import { createScratchDatabase } from '../support/scratch-database';
import { postJson, seedAccountOverHttp } from '../support/service-http';
import { deleteRedisKeys } from '../support/redis-keys';
import { testServices } from '../support/test-services';
import { readUntil } from '../support/waiting';

const ADMIN_TOKEN = 'shutdown-admin-token-0123456789';
const CREDITS = 20;
/** How long a source takes to answer in the drain case: each result runs for several seconds. */
const SLOW_SOURCE_MS = 5000;

interface ResultRow {
  id: string;
  external_id: string;
  status: string;
  attempts: number;
  error_code: string | null;
  result_key: string | null;
  thumbnail_key: string | null;
  source_preview_key: string | null;
}

/** Every file below `folder`, relative to it, hidden ones included. */
async function filesBelow(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Workers started with `node dist/main.js worker`, as the image runs them, stopped with SIGTERM
 * while live image edits run. Each source URL is its own path on a loopback server, so the
 * requests it received say which results were started, and how often; the queue entries say
 * which worker took each (BullMQ's `processedBy`, the worker's host and pid) and when.
 */
describe('a worker stopped with SIGTERM while results run', () => {
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  let sources: ImageSourceServer;
  let db: Client;
  let sourceBytes: Buffer;
  const processes: ServiceProcess[] = [];
  const redisPrefixes: string[] = [];
  const storageDirs: string[] = [];
  const queues: Queue[] = [];

  beforeAll(async () => {
    database = await createScratchDatabase();
    sources = await ImageSourceServer.start();
    sourceBytes = await fromFixture(productPhoto(640, 480, 3))
      .jpeg()
      .toBuffer();
    db = new Client({ connectionString: database.url });
    await db.connect();
  });
  afterAll(async () => {
    for (const service of processes) service.kill();
    for (const queue of queues) await queue.close();
    await sources.stop();
    await db.end().catch(() => undefined);
    await database.drop();
    for (const prefix of redisPrefixes) await deleteRedisKeys(testServices().redisUrl, `${prefix}:*`);
    for (const folder of storageDirs) await rm(folder, { recursive: true, force: true });
  });

  /** An API, a live account and the settings workers of this case share. */
  async function deployment(name: string, settings: Record<string, string>) {
    const apiPort = await freePort();
    const redisPrefix = `e2e-shutdown-${name}-${apiPort}`;
    const storageDir = `/tmp/imgjobs-e2e-shutdown-${name}-${apiPort}`;
    redisPrefixes.push(redisPrefix);
    storageDirs.push(storageDir);
    const env = (extra: Record<string, string> = {}) =>
      cleanEnv({
        DATABASE_URL: database.url,
        REDIS_URL: testServices().redisUrl,
        REDIS_KEY_PREFIX: redisPrefix,
        PORT: String(apiPort),
        ADMIN_TOKEN,
        OUTBOUND_ALLOWLIST: '127.0.0.1',
        STORAGE_DIR: storageDir,
        PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
        LIMIT_ACTIVE_JOBS_PER_KEY: '5',
        LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '5',
        ...settings,
        ...extra,
      });
    const api = startService('api', env());
    processes.push(api);
    await waitForReady(apiPort);
    const base = `http://127.0.0.1:${apiPort}`;
    const { accountId, key } = await seedAccountOverHttp(base, ADMIN_TOKEN, {
      name: `shutdown ${name}`,
      credits: CREDITS,
      environment: 'live',
    });
    const url = new URL(testServices().redisUrl);
    const queue = new Queue('processing', {
      prefix: `${redisPrefix}:bull`,
      connection: { host: url.hostname, port: Number(url.port || 6379), db: Number(url.pathname.slice(1) || 0) },
    });
    queues.push(queue);

    const startWorker = async (concurrency: number) => {
      const healthPort = await freePort();
      const worker = startService(
        'worker',
        env({ WORKER_HEALTH_PORT: String(healthPort), WORKER_CONCURRENCY_PROCESSING: String(concurrency) }),
      );
      processes.push(worker);
      await waitForReady(healthPort);
      return { process: worker, name: `${hostname()}:${worker.child.pid}`, readyAt: Date.now() };
    };

    const createJob = async (paths: string[]) => {
      const created = await postJson(
        `${base}/api/v1/image/edit`,
        {
          input: paths.map((path) => ({ image_url: sources.url(path), external_id: path.slice(1) })),
          operations: { resizing: { width: 320, height: 320, fit: 'cover' } },
          output: { format: 'jpg' },
        },
        { Authorization: `Bearer ${key}`, 'Idempotency-Key': `shutdown-${name}` },
      );
      expect(created.status).toBe(202);
      return (created.body.job as { id: string }).id;
    };

    const jobEnded = (jobId: string) =>
      readUntil(
        async () => (await db.query(`SELECT * FROM jobs WHERE id = $1`, [jobId])).rows[0],
        (job) => job && !['queued', 'processing'].includes(job.status),
        'the job to end',
        { timeoutMs: 90_000, intervalMs: 250 },
      );

    const resultsOf = async (jobId: string) =>
      (
        await db.query<ResultRow>(
          `SELECT id, external_id, status, attempts, error_code, result_key, thumbnail_key, source_preview_key
             FROM job_results WHERE job_id = $1 ORDER BY index`,
          [jobId],
        )
      ).rows;

    /** Each kind of credit movement of the job: how many entries and their sum. */
    const ledgerOf = async (jobId: string) => {
      const { rows } = await db.query<{ kind: string; entries: number; amount: number }>(
        `SELECT kind, count(*)::int AS entries, sum(amount)::int AS amount FROM credit_ledger
          WHERE job_id = $1 GROUP BY kind ORDER BY kind`,
        [jobId],
      );
      const { rows: balance } = await db.query(`SELECT paid_credits FROM accounts WHERE id = $1`, [accountId]);
      return { kinds: rows, balance: balance[0].paid_credits as number };
    };

    return { startWorker, createJob, jobEnded, resultsOf, ledgerOf, queue, storageDir };
  }

  /** Every result completed once: one attempt counted, its three files stored and nothing else, no temporary file. */
  async function expectEachCompletedOnce(results: ResultRow[], storageDir: string) {
    for (const result of results) {
      expect(result).toMatchObject({ status: 'completed', attempts: 1, error_code: null });
    }
    const stored = await filesBelow(storageDir);
    expect(stored.filter((file) => file.endsWith('.tmp'))).toEqual([]);
    const kept = results.flatMap((result) => [result.result_key, result.thumbnail_key, result.source_preview_key]);
    expect(stored.map((file) => file.slice(storageDir.length + 1)).sort()).toEqual(kept.sort());
  }

  it(
    'starts nothing after the signal, lets running results finish and exits 0; ' +
      'a second worker takes the rest at once',
    async () => {
      const setup = await deployment('drain', {});
      const paths = Array.from({ length: 5 }, (_, i) => `/drain-${i}.jpg`);
      for (const path of paths)
        sources.serve(path, sourceBytes, { contentType: 'image/jpeg', delayMs: SLOW_SOURCE_MS });
      const first = await setup.startWorker(2);
      const jobId = await setup.createJob(paths);

      await readUntil(
        () => paths.filter((path) => sources.requests(path) > 0),
        (started) => started.length === 2,
        'the first worker to start two results',
      );
      const runningAtSignal = paths.filter((path) => sources.requests(path) > 0).map((path) => path.slice(1));
      const signalledAt = Date.now();
      first.process.signal('SIGTERM');
      const second = await setup.startWorker(5);

      expect(await first.process.exited).toBe(0);
      const job = await setup.jobEnded(jobId);
      expect(job).toMatchObject({ status: 'completed', completed_results: 5, failed_results: 0 });
      const results = await setup.resultsOf(jobId);

      // Which worker took each result, and when: the first kept exactly the two it was running.
      const entries = await Promise.all(results.map((result) => setup.queue.getJob(result.id)));
      const takenBy = Object.fromEntries(results.map((result, i) => [result.external_id, entries[i]?.processedBy]));
      for (const [externalId, worker] of Object.entries(takenBy)) {
        expect([externalId, worker]).toEqual([
          externalId,
          runningAtSignal.includes(externalId) ? first.name : second.name,
        ]);
      }
      for (const [i, result] of results.entries()) {
        if (runningAtSignal.includes(result.external_id)) continue;
        // Waiting for no lock: started once, after the signal, by the second worker, never
        // taken over after a stall (the first worker never locked it).
        expect(entries[i]?.processedOn).toBeGreaterThan(signalledAt);
        expect([result.external_id, entries[i]?.attemptsStarted, entries[i]?.stalledCounter]).toEqual([
          result.external_id,
          1,
          0,
        ]);
      }
      // Each source was downloaded once: no result ran twice.
      expect(paths.map((path) => sources.requests(path))).toEqual(paths.map(() => 1));
      await expectEachCompletedOnce(results, setup.storageDir);
      expect(await setup.ledgerOf(jobId)).toEqual({
        kinds: [
          { kind: 'capture', entries: 5, amount: 0 },
          { kind: 'reserve', entries: 1, amount: -5 },
        ],
        balance: CREDITS - 5,
      });
    },
    180_000,
  );

  it(
    'hands back what cannot finish within a short grace: another worker completes it at once, ' +
      'each result once, its credits captured once, and the stopped worker exits 0',
    async () => {
      // A lapsing lock would take 30 s: a takeover within seconds can only be the hand-back.
      const setup = await deployment('grace', {
        SHUTDOWN_GRACE_SECONDS: '4',
        WORKER_LOCK_SECONDS: '30',
        WORKER_STALLED_CHECK_SECONDS: '30',
      });
      const paths = ['/grace-0.jpg', '/grace-1.jpg'];
      // The first download of each source never answers; any later one answers at once.
      for (const path of paths) {
        sources.route(path, (_req, res) => {
          if (sources.requests(path) > 1) res.writeHead(200, { 'content-type': 'image/jpeg' }).end(sourceBytes);
        });
      }
      const first = await setup.startWorker(2);
      const jobId = await setup.createJob(paths);
      await readUntil(
        () => paths.filter((path) => sources.requests(path) > 0).length,
        (started) => started === 2,
        'the first worker to start both results',
      );
      const second = await setup.startWorker(2);

      const signalledAt = Date.now();
      first.process.signal('SIGTERM');
      // The grace timer exits 1: 0 means the drain, hand-back included, ended within the grace.
      expect(await first.process.exited).toBe(0);

      const job = await setup.jobEnded(jobId);
      expect(job).toMatchObject({ status: 'completed', completed_results: 2, failed_results: 0 });
      const results = await setup.resultsOf(jobId);
      for (const result of results) {
        const entry = await setup.queue.getJob(result.id);
        // Taken back by the second worker after the signal, handed back rather than taken over
        // once the first one's 30 s lock lapsed (no stall counted against it), and one attempt
        // made: the second worker's.
        expect(entry?.processedBy).toBe(second.name);
        expect(entry?.processedOn).toBeGreaterThan(signalledAt);
        expect(entry?.attemptsMade).toBe(1);
        expect(entry?.stalledCounter).toBe(0);
      }
      // Downloaded twice each: the first worker's download was cut short, not failed.
      expect(paths.map((path) => sources.requests(path))).toEqual([2, 2]);
      // The handed-back attempt was undone: one attempt counted, by the worker that completed it.
      await expectEachCompletedOnce(results, setup.storageDir);
      expect(await setup.ledgerOf(jobId)).toEqual({
        kinds: [
          { kind: 'capture', entries: 2, amount: 0 },
          { kind: 'reserve', entries: 1, amount: -2 },
        ],
        balance: CREDITS - 2,
      });
    },
    180_000,
  );
});
