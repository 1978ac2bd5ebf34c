import { writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { cleanEnv, freePort, startService, waitForReady, type ServiceProcess } from '../support/processes';
import { createScratchDatabase } from '../support/scratch-database';
import { postJson, seedAccountOverHttp } from '../support/service-http';
import { deleteRedisKeys } from '../support/redis-keys';
import { testServices } from '../support/test-services';
import { readUntil, until } from '../support/waiting';
import { testCertificate, WebhookReceiver } from '../support/webhook-receiver';

const ADMIN_TOKEN = 'webhook-crash-admin-token-0123';
const RESULTS = 5;

describe('a worker killed while webhook deliveries are pending', () => {
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  let db: Client | undefined;
  let receiver: WebhookReceiver | undefined;
  const caFile = join(tmpdir(), `imgjobs-webhook-ca-${process.pid}.pem`);
  const processes: ServiceProcess[] = [];
  let redisPrefix: string | undefined;

  beforeAll(async () => {
    database = await createScratchDatabase();
    writeFileSync(caFile, testCertificate().cert);
  });
  afterAll(async () => {
    for (const service of processes) service.kill();
    await receiver?.stop();
    await db?.end();
    await database.drop();
    if (redisPrefix) await deleteRedisKeys(testServices().redisUrl, `${redisPrefix}:*`);
    rmSync(caFile, { force: true });
  });

  it('delivers every event after the replacement worker starts', async () => {
    // The receiver holds its first answers long enough for the worker to die mid-delivery.
    let slow = true;
    receiver = await WebhookReceiver.start(() => ({ status: 200, delayMs: slow ? 5000 : 0 }));
    const apiPort = await freePort();
    redisPrefix = `e2e-webhook-crash-${apiPort}`;
    const env = cleanEnv({
      DATABASE_URL: database.url,
      REDIS_URL: testServices().redisUrl,
      REDIS_KEY_PREFIX: redisPrefix,
      PORT: String(apiPort),
      WORKER_HEALTH_PORT: String(await freePort()),
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      NODE_EXTRA_CA_CERTS: caFile,
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1,1,1,1,1,1',
      WORKER_LOCK_SECONDS: '2',
      WORKER_STALLED_CHECK_SECONDS: '1',
      SWEEP_INTERVAL_SECONDS: '1',
      SWEEP_GRACE_SECONDS: '3',
    });
    const api = startService('api', env);
    processes.push(api);
    await waitForReady(apiPort);
    const worker = startService('worker', env);
    processes.push(worker);

    const base = `http://127.0.0.1:${apiPort}`;
    const { key } = await seedAccountOverHttp(base, ADMIN_TOKEN, { name: 'webhook crash', environment: 'sandbox' });
    const input = Array.from({ length: RESULTS }, (_, i) => ({ image_url: `https://images.example.com/${i}.jpg` }));
    const created = await postJson(
      `${base}/api/v1/image/edit`,
      { input, webhook_url: receiver.url },
      { Authorization: `Bearer ${key}`, 'Idempotency-Key': 'webhook-crash-1' },
    );
    const jobId = (created.body.job as { id: string }).id;

    await until(() => receiver!.received.length > 0, 'the first delivery to arrive', { timeoutMs: 30_000 });
    worker.child.kill('SIGKILL');
    await worker.exited;
    slow = false;

    db = new Client({ connectionString: database.url });
    await db.connect();
    const { rows: pendingBefore } = await db.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE job_id = $1 AND status = 'pending'`,
      [jobId],
    );
    expect(pendingBefore[0].n).toBeGreaterThan(0);

    const replacement = startService('worker', env);
    processes.push(replacement);

    const events = await readUntil(
      async () => {
        const { rows } = await db!.query(
          `SELECT e.id, e.type FROM webhook_events e WHERE e.job_id = $1 ORDER BY e.sequence`,
          [jobId],
        );
        return rows;
      },
      (rows) => rows.length === RESULTS + 1,
      'every event to be recorded',
      { timeoutMs: 60_000 },
    );
    await until(
      async () => {
        const { rows } = await db!.query(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE job_id = $1 AND status <> 'delivered'`,
          [jobId],
        );
        return rows[0].n === 0;
      },
      'every delivery to succeed',
      { timeoutMs: 60_000 },
    );
    const receivedIds = new Set(receiver.eventIds());
    for (const event of events as Array<{ id: string }>) expect(receivedIds.has(event.id)).toBe(true);
    expect((events as Array<{ type: string }>).at(-1)?.type).toBe('image_api.job.completed');
  }, 120_000);
});
