import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import sharp from 'sharp';
import { fromFixture, productPhoto } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { cleanEnv, freePort, startService, waitForReady, type ServiceProcess } from '../support/processes';
import { startLoopbackS3, type LoopbackS3 } from '../support/s3-server';
import { createScratchDatabase } from '../support/scratch-database';
import { postJson, seedAccountOverHttp } from '../support/service-http';
import { deleteRedisKeys } from '../support/redis-keys';
import { testServices } from '../support/test-services';
import { readUntil } from '../support/waiting';

const ADMIN_TOKEN = 's3-e2e-admin-token-0123456789';

interface ResultBody {
  status: string;
  result_url: string | null;
  thumbnail_url: string | null;
}

interface JobRead {
  job: { status: string };
  results: ResultBody[];
}

async function queryDatabase(url: string, sql: string, parameters: unknown[]): Promise<Array<{ body: string }>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ body: string }>(sql, parameters)).rows;
  } finally {
    await client.end();
  }
}

async function download(url: string): Promise<{ contentType: string | null; image: Buffer }> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return { contentType: response.headers.get('content-type'), image: Buffer.from(await response.arrayBuffer()) };
}

describe('S3 result storage with the API and a worker as separate processes that share no folder', () => {
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  let sources: ImageSourceServer;
  let s3: LoopbackS3;
  const processes: ServiceProcess[] = [];
  /** A private, empty working folder per process: nothing is shared but the bucket. */
  const folders: string[] = [];
  let redisPrefix: string | undefined;

  beforeAll(async () => {
    database = await createScratchDatabase();
    sources = await ImageSourceServer.start();
    s3 = await startLoopbackS3();
  });
  afterAll(async () => {
    for (const service of processes) service.kill();
    await sources.stop();
    await s3.stop();
    await database.drop();
    if (redisPrefix) await deleteRedisKeys(testServices().redisUrl, `${redisPrefix}:*`);
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  /** Settings of one process, with its own STORAGE_DIR and DATA_DIR. */
  async function processEnv(port: number, settings: Record<string, string>): Promise<NodeJS.ProcessEnv> {
    const folder = await mkdtemp(join(tmpdir(), 'imgjobs-e2e-s3-process-'));
    folders.push(folder);
    return cleanEnv({
      DATABASE_URL: database.url,
      REDIS_URL: testServices().redisUrl,
      REDIS_KEY_PREFIX: redisPrefix ?? '',
      ADMIN_TOKEN,
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      STORAGE_DIR: join(folder, 'results'),
      DATA_DIR: join(folder, 'data'),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      ...s3.env,
      ...settings,
    });
  }

  it(
    'completes a live job whose result and thumbnail download ' + 'through the API’s URLs and through presigned ones',
    async () => {
      const apiPort = await freePort();
      const presigningApiPort = await freePort();
      const workerHealthPort = await freePort();
      redisPrefix = `e2e-s3-${apiPort}`;
      const api = startService('api', await processEnv(apiPort, { PORT: String(apiPort), RESULT_URLS: 'api' }));
      processes.push(api);
      await waitForReady(apiPort);
      const presigningApi = startService(
        'api',
        await processEnv(presigningApiPort, { PORT: String(presigningApiPort), RESULT_URLS: 'presigned' }),
      );
      processes.push(presigningApi);
      const worker = startService(
        'worker',
        // The worker records webhook events, so its RESULT_URLS decides the URLs they carry.
        await processEnv(workerHealthPort, { WORKER_HEALTH_PORT: String(workerHealthPort), RESULT_URLS: 'presigned' }),
      );
      processes.push(worker);
      await waitForReady(presigningApiPort);
      await waitForReady(workerHealthPort);

      sources.serve(
        '/shoe.jpg',
        await fromFixture(productPhoto(1200, 900, 5))
          .jpeg()
          .toBuffer(),
        { contentType: 'image/jpeg' },
      );
      const base = `http://127.0.0.1:${apiPort}`;
      const { key } = await seedAccountOverHttp(base, ADMIN_TOKEN, {
        name: 's3 e2e',
        credits: 10,
        environment: 'live',
      });
      const auth = { Authorization: `Bearer ${key}` };

      const created = await postJson(
        `${base}/api/v1/image/edit`,
        {
          input: [{ image_url: sources.url('/shoe.jpg'), external_id: 'shoe' }],
          operations: { resizing: { width: 640, height: 480, fit: 'cover' } },
          output: { format: 'png' },
          // Nothing listens there: the event is recorded all the same, which is what is checked.
          webhook_url: `https://127.0.0.1:${await freePort()}/hooks`,
        },
        { ...auth, 'Idempotency-Key': 's3-e2e-1' },
      );
      expect(created.status).toBe(202);
      const jobId = (created.body.job as { id: string }).id;

      const read = async (origin: string): Promise<JobRead> =>
        (await (await fetch(`${origin}/api/v1/jobs/${jobId}`, { headers: auth })).json()) as JobRead;
      const viaApi = await readUntil(
        () => read(base),
        (answer) => !['queued', 'processing'].includes(answer.job.status),
        'the job to end',
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(viaApi.job.status).toBe('completed');
      const viaPresigningApi = await read(`http://127.0.0.1:${presigningApiPort}`);

      for (const [origin, { results }] of [
        [base, viaApi],
        [s3.endpoint, viaPresigningApi],
      ] as const) {
        expect(results).toHaveLength(1);
        const [result] = results;
        // The same JSON shape in both modes; only where the URLs point differs.
        expect(Object.keys(result).sort()).toEqual(Object.keys(viaApi.results[0] ?? {}).sort());
        expect(result.result_url?.startsWith(`${origin}/`)).toBe(true);
        expect(result.thumbnail_url?.startsWith(`${origin}/`)).toBe(true);

        const image = await download(result.result_url as string);
        expect(image.contentType).toBe('image/png');
        expect(await sharp(image.image).metadata()).toMatchObject({ format: 'png', width: 640, height: 480 });
        const thumbnail = await download(result.thumbnail_url as string);
        expect(thumbnail.contentType).toBe('image/webp');
        expect(await sharp(thumbnail.image).metadata()).toMatchObject({ format: 'webp', width: 256, height: 192 });
      }
      expect(viaPresigningApi.results[0].result_url).toContain(`/${s3.bucket}/results/${jobId}/`);
      expect(viaPresigningApi.results[0].result_url).toContain('X-Amz-Signature=');

      const events = await queryDatabase(
        database.url,
        `SELECT body FROM webhook_events WHERE job_id = $1 AND result_id IS NOT NULL`,
        [jobId],
      );
      const event = JSON.parse(events[0].body) as { result: { result_url: string; thumbnail_url: string } };
      expect(event.result.result_url).toContain(`/${s3.bucket}/results/${jobId}/`);
      expect((await download(event.result.thumbnail_url)).contentType).toBe('image/webp');

      // No process wrote a result file to its own folder: the bucket is the only store.
      for (const folder of folders) {
        expect(await readdir(folder)).not.toContain('results');
      }
    },
    120_000,
  );
});
