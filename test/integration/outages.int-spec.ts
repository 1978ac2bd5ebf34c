import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { QueueJobName } from '../../src/core/queue/queue-jobs';
import { QueueName } from '../../src/core/queue/queue-name';
import { OUTBOUND_TLS } from '../../src/core/outbound/outbound.module';
import { idempotencyKey, imageInputs, waitForJob, withFakeProvider } from '../support/jobs';
import { GENEROUS_LIMITS, UNREACHABLE_CREATE_LIMITS } from '../support/limits';
import { PrivateRedis } from '../support/private-redis';
import {
  bearer,
  createTestApp,
  seedAccount,
  type SeededAccount,
  type TestApp,
  type TestAppOptions,
} from '../support/test-app';
import { testServices } from '../support/test-services';
import { sleep, until } from '../support/waiting';
import { testCertificate, WebhookReceiver } from '../support/webhook-receiver';

/** Load runs hundreds of creates and polls: no limit may answer before the outage does. */
const LOAD_LIMITS = {
  ...UNREACHABLE_CREATE_LIMITS,
  LIMIT_POLLS_PER_HOUR_IP: '100000',
  LIMIT_POLLS_PER_HOUR_KEY: '100000',
  LIMIT_POLLS_PER_HOUR_ACCOUNT: '100000',
};

/** Boots a test app whose Redis is the given private server rather than the shared one. */
async function createAppOnRedis(
  redis: PrivateRedis,
  settings: Record<string, string>,
  options: TestAppOptions,
): Promise<TestApp> {
  const shared = process.env.TEST_REDIS_URL;
  process.env.TEST_REDIS_URL = redis.url;
  try {
    return await createTestApp(settings, options);
  } finally {
    process.env.TEST_REDIS_URL = shared;
  }
}

/** An answer a client can act on during an outage: success, or the 503 envelope telling it when to retry. */
function expectSuccessOrOutage(res: Response): void {
  if (res.status >= 200 && res.status < 300) return;
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 503, code: 'service_unavailable' });
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  expect(typeof res.body.request_id).toBe('string');
}

interface Create {
  key: string;
  status: number;
  jobId?: string;
}

/** Creates and polls in parallel until `stop` resolves; every answer is kept. */
async function runLoad(
  t: TestApp,
  account: SeededAccount,
  stop: Promise<void>,
): Promise<{ creates: Create[]; answers: Response[] }> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  const creates: Create[] = [];
  const answers: Response[] = [];
  const createdIds: string[] = [];
  const creator = async () => {
    while (!stopped) {
      const key = idempotencyKey();
      const res = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.liveKey))
        .set('Idempotency-Key', key)
        .send({ input: imageInputs(1) });
      answers.push(res);
      const jobId = res.status === 202 || res.status === 200 ? (res.body.job?.id as string | undefined) : undefined;
      if (jobId) createdIds.push(jobId);
      creates.push({ key, status: res.status, jobId });
      await sleep(20);
    }
  };
  const poller = async () => {
    while (!stopped) {
      const jobId = createdIds[createdIds.length - 1];
      const res = jobId
        ? await t.http().get(`/api/v1/jobs/${jobId}`).set(bearer(account.liveKey))
        : await t.http().get('/api/v1/jobs').set(bearer(account.liveKey));
      answers.push(res);
      await sleep(20);
    }
  };
  await Promise.all([creator(), creator(), poller(), poller()]);
  return { creates, answers };
}

/**
 * Retries every create that was not answered with a job, with its own key, until it is; returns all job ids the client
 * learnt.
 */
async function settleCreates(t: TestApp, account: SeededAccount, creates: Create[]): Promise<string[]> {
  const ids: string[] = [];
  for (const create of creates) {
    let jobId = create.jobId;
    const deadline = Date.now() + 30_000;
    while (!jobId) {
      const res = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.liveKey))
        .set('Idempotency-Key', create.key)
        .send({ input: imageInputs(1) });
      expectSuccessOrOutage(res);
      jobId = res.body.job?.id;
      if (!jobId) {
        if (Date.now() > deadline) throw new Error(`create with key ${create.key} never answered: ${res.status}`);
        await sleep(200);
      }
    }
    ids.push(jobId);
  }
  return ids;
}

describe('Outages', () => {
  describe('Redis comes back empty', () => {
    let redis: PrivateRedis;
    let t: TestApp;
    let account: SeededAccount;

    beforeAll(async () => {
      redis = await PrivateRedis.start();
      const { cert } = testCertificate();
      t = await createAppOnRedis(
        redis,
        { ...GENEROUS_LIMITS, SWEEP_INTERVAL_SECONDS: '1', SWEEP_GRACE_SECONDS: '1', OUTBOUND_ALLOWLIST: '127.0.0.1' },
        {
          role: ProcessRole.All,
          override: (builder) =>
            withFakeProvider()(builder)
              .overrideProvider(OUTBOUND_TLS)
              .useValue({ ca: [cert] }),
        },
      );
      account = await seedAccount(t, { credits: 20 });
    });
    afterAll(async () => {
      await t?.close();
      await redis?.kill();
    });

    it('runs a committed result whose queue entry and sweep schedules were lost, without a restart', async () => {
      const processing = t.app.get<Queue>(getQueueToken(QueueName.Processing));
      const maintenance = t.app.get<Queue>(getQueueToken(QueueName.Maintenance));
      // Paused, the worker cannot take the result before Redis goes; the pause goes with Redis' data.
      await processing.pause();
      const res = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.liveKey))
        .set('Idempotency-Key', idempotencyKey())
        .send({ input: imageInputs(1) });
      expect(res.status).toBe(202);
      const jobId: string = res.body.job.id;
      const [{ id: resultId }] = await t.dataSource.query<Array<{ id: string }>>(
        `SELECT id FROM job_results WHERE job_id = $1`,
        [jobId],
      );
      expect(await processing.getJob(resultId)).toBeDefined();

      await redis.kill();
      await sleep(500);
      await redis.restart();
      expect(await maintenance.getJobScheduler(QueueJobName.SweepUnsettledResults)).toBeUndefined();

      // The process put its sweep schedules back, and the sweep queued the result again, which
      // the worker then ran: the README's bound, a reconnection plus two intervals plus the grace
      // period, is a few seconds here; the deadline only stops the wait.
      await waitForJob(t, jobId, (job) => job.status === 'completed', 30_000);
      expect(await maintenance.getJobScheduler(QueueJobName.SweepUnsettledResults)).toBeDefined();
      expect(await maintenance.getJobScheduler(QueueJobName.SweepWebhookDeliveries)).toBeDefined();
      expect((await processing.getJob(resultId))?.finishedOn).toEqual(expect.any(Number));
    });

    it('delivers the events whose queued deliveries were lost, without a restart', async () => {
      const receiver = await WebhookReceiver.start();
      try {
        const webhooks = t.app.get<Queue>(getQueueToken(QueueName.WebhookDelivery));
        // Paused, no delivery is attempted before Redis goes; the pause goes with Redis' data.
        await webhooks.pause();
        const res = await t
          .http()
          .post('/api/v1/image/edit')
          .set(bearer(account.liveKey))
          .set('Idempotency-Key', idempotencyKey())
          .send({ input: imageInputs(1), webhook_url: receiver.url });
        expect(res.status).toBe(202);
        const jobId: string = res.body.job.id;
        await waitForJob(t, jobId, (job) => job.status === 'completed');
        const pending = async (): Promise<number> =>
          (
            await t.dataSource.query(
              `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
                WHERE e.account_id = $1 AND d.status = 'pending'`,
              [account.accountId],
            )
          )[0].n;
        const lost = await pending();
        expect(lost).toBeGreaterThan(0);

        await redis.kill();
        await sleep(500);
        await redis.restart();

        await receiver.waitFor(lost, 15_000);
        await until(async () => (await pending()) === 0, 'every delivery settled', { timeoutMs: 15_000 });
        expect(
          new Set(receiver.received.map((delivery) => (JSON.parse(delivery.body) as { id: string }).id)).size,
        ).toBe(lost);
      } finally {
        await receiver.stop();
      }
    });
  });

  describe('Redis killed under load', () => {
    let redis: PrivateRedis;
    let t: TestApp;
    let account: SeededAccount;

    beforeAll(async () => {
      redis = await PrivateRedis.start();
      t = await createAppOnRedis(
        redis,
        { ...LOAD_LIMITS, SWEEP_INTERVAL_SECONDS: '1', SWEEP_GRACE_SECONDS: '1' },
        { role: ProcessRole.All, override: withFakeProvider() },
      );
      account = await seedAccount(t, { credits: 100_000 });
    });
    afterAll(async () => {
      await t?.close();
      await redis?.kill();
    });

    it(
      'answers 2xx or the 503 envelope throughout, reports ' + 'not ready, and recovers when Redis returns empty',
      async () => {
        let stopLoad!: () => void;
        const load = runLoad(t, account, new Promise<void>((resolve) => (stopLoad = resolve)));
        await sleep(500);
        await redis.kill();
        await sleep(1500);
        const ready = await t.http().get('/health/ready');
        expect(ready.status).toBe(503);
        expect(ready.body.checks.redis).toBe('down');
        await sleep(1000);
        await redis.restart();
        await until(async () => (await t.http().get('/health/ready')).status === 200, 'ready again', {
          timeoutMs: 30_000,
        });
        await sleep(1000);
        stopLoad();
        const { creates, answers } = await load;

        for (const res of answers) expectSuccessOrOutage(res);
        expect(answers.some((res) => res.status === 503)).toBe(true);
        const lastCreates = creates.slice(-2);
        expect(lastCreates.map((create) => create.status)).toEqual([202, 202]);

        const ids = await settleCreates(t, account, creates);
        const rows: Array<{ id: string }> = await t.dataSource.query(`SELECT id FROM jobs WHERE account_id = $1`, [
          account.accountId,
        ]);
        expect(new Set(ids)).toEqual(new Set(rows.map((row) => row.id)));
        // Every committed job runs, including those whose queue entries Redis lost.
        for (const id of new Set(ids)) await waitForJob(t, id, (job) => job.status === 'completed', 30_000);
      },
    );
  });

  describe('PostgreSQL connections terminated under load', () => {
    const appName = `outage-test-${process.pid}-${Date.now()}`;
    let admin: DataSource;
    let t: TestApp;
    let account: SeededAccount;

    const previousAppName = process.env.PGAPPNAME;

    beforeAll(async () => {
      // pg names each new connection from PGAPPNAME, so the app's backends, and only they, can
      // be found; it stays set while the pool reconnects.
      process.env.PGAPPNAME = appName;
      t = await createTestApp(LOAD_LIMITS, { role: ProcessRole.Api });
      admin = new DataSource({
        type: 'postgres',
        url: testServices().databaseUrl,
        applicationName: 'outage-test-admin',
      });
      await admin.initialize();
      account = await seedAccount(t, { credits: 100_000 });
    });
    afterAll(async () => {
      await admin?.destroy();
      await t?.close();
      if (previousAppName === undefined) delete process.env.PGAPPNAME;
      else process.env.PGAPPNAME = previousAppName;
    });

    it('answers 2xx or the 503 envelope, and a retried create finds exactly the jobs that exist', async () => {
      let stopLoad!: () => void;
      const load = runLoad(t, account, new Promise<void>((resolve) => (stopLoad = resolve)));
      let terminated = 0;
      for (let round = 0; round < 15; round++) {
        await sleep(150);
        const rows: unknown[] = await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 ` +
            `AND pid <> pg_backend_pid()`,
          [appName],
        );
        terminated += rows.length;
      }
      await sleep(500);
      stopLoad();
      const { creates, answers } = await load;

      expect(terminated).toBeGreaterThan(0);
      for (const res of answers) expectSuccessOrOutage(res);
      await until(async () => (await t.http().get('/health/ready')).status === 200, 'ready again', {
        timeoutMs: 15_000,
      });

      const ids = await settleCreates(t, account, creates);
      const rows: Array<{ id: string }> = await t.dataSource.query(`SELECT id FROM jobs WHERE account_id = $1`, [
        account.accountId,
      ]);
      expect(new Set(ids)).toEqual(new Set(rows.map((row) => row.id)));
    });
  });
});
