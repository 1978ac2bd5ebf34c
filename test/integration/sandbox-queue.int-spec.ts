import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { QueueName } from '../../src/core/queue/queue-name';
import { imageInputs, idempotencyKey, waitForJob, withFakeProvider } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { bearer, createTestApp, seedAccount, type TestApp } from '../support/test-app';

describe('Sandbox results on their own queue', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(
      {
        ...GENEROUS_LIMITS,
        // One result at a time on each queue, and sandbox results that take 3 s each: on a
        // shared queue the live job would wait behind the whole burst.
        WORKER_CONCURRENCY_PROCESSING: '1',
        WORKER_CONCURRENCY_SANDBOX: '1',
        SANDBOX_SLOW_SECONDS: '3',
        CAPACITY_ACCOUNT_SHARE: '1',
      },
      { role: ProcessRole.All, override: withFakeProvider() },
    );
  });
  afterAll(() => t.close());

  const create = (key: string, input: ReturnType<typeof imageInputs>) =>
    t.http().post('/api/v1/image/edit').set(bearer(key)).set('Idempotency-Key', idempotencyKey()).send({ input });

  it('runs a live job at once while a sandbox burst is still waiting', async () => {
    const account = await seedAccount(t, { credits: 10 });
    const burst = await create(
      account.sandboxKey,
      imageInputs(5, (i) => `sandbox_slow_${i}`),
    );
    expect(burst.status).toBe(202);
    const sandbox = t.app.get<Queue>(getQueueToken(QueueName.Sandbox));
    const processing = t.app.get<Queue>(getQueueToken(QueueName.Processing));
    expect(await sandbox.getJobCountByTypes('waiting', 'active', 'delayed')).toBe(5);

    const live = await create(account.liveKey, imageInputs(1));
    expect(live.status).toBe(202);
    expect(await processing.getJobCountByTypes('waiting', 'active', 'delayed', 'completed')).toBe(1);
    await waitForJob(t, live.body.job.id, (job) => job.status === 'completed');

    // Completed before the burst was: it did not wait behind it (one 3 s result at a time).
    const [{ settled }] = await t.dataSource.query(
      `SELECT count(*)::int AS settled FROM job_results WHERE job_id = $1 AND status NOT IN ('queued', 'processing')`,
      [burst.body.job.id],
    );
    expect(settled).toBeLessThan(5);
    const sandboxJob = await waitForJob(t, burst.body.job.id, undefined, 30_000);
    expect(sandboxJob.status).toBe('completed');
  });
});
