import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { startWorkerHealthServer } from '../../src/core/bootstrap/worker-health-server';
import { HealthService } from '../../src/core/health/health.service';
import { EVENT_LOOP_SAMPLE_MS } from '../../src/core/metrics/event-loop-delay';
import { MetricsScraper } from '../../src/core/metrics/metrics-scraper';
import { QueueName } from '../../src/core/queue/queue-name';
import type { ToolOutput, ToolTask } from '../../src/modules/tools/tool-runner';
import { FakeProviderRunner, idempotencyKey, waitForJob, withFakeProvider } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { parseSamples, sumOf, valueOf, type Sample } from '../support/prometheus-text';
import { createSecondInstance } from '../support/second-instance';
import { bearer, createTestApp, seedAccount, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app';
import { sleep, until } from '../support/waiting';

/**
 * The shortest lock and stalled check the configuration allows, so a lock lapses within a test:
 * renewed every 250 ms while the event loop runs, gone 1 s after the loop stops.
 */
const SETTINGS = {
  ...GENEROUS_LIMITS,
  WORKER_QUEUES: 'processing',
  WORKER_LOCK_SECONDS: '1',
  WORKER_STALLED_CHECK_SECONDS: '1',
};

/** Longer than the lock, with room for the renewal that may come just before the block. */
const BLOCK_MS = 2500;

/** Keeps the event loop busy for `ms`, as pixel work on the loop does. */
function blockEventLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

/**
 * A delay the event-loop metric must show after a block of `ms`: the tick due during the block
 * runs when it ends, late by the block less at most one sampling interval.
 */
const showsBlockOf = (ms: number) => (ms - EVENT_LOOP_SAMPLE_MS) / 1000;

/** The live provider, whose first run blocks the event loop past the lock before it answers. */
class BlockingOnceRunner extends FakeProviderRunner {
  override run(task: ToolTask): Promise<ToolOutput> {
    if (this.tasks.length === 0) blockEventLoop(BLOCK_MS);
    return super.run(task);
  }
}

const loopDelay = (samples: Sample[], quantile: string) =>
  valueOf(samples, 'imgjobs_event_loop_delay_seconds', { quantile });

describe('Worker responsiveness metrics', () => {
  const runner = new BlockingOnceRunner();
  let api: TestApp;
  /** Two workers on the processing queue: either takes the result first, either may take it over. */
  let workers: TestApp[];
  let healthServer: Server;

  const scrapeApi = async (): Promise<Sample[]> =>
    parseSamples((await api.http().get('/metrics').set(bearer(TEST_ADMIN_TOKEN)).expect(200)).text);
  const scrapeWorker = async (): Promise<Sample[]> => {
    const res = await fetch(`http://127.0.0.1:${(healthServer.address() as AddressInfo).port}/metrics`);
    expect(res.status).toBe(200);
    return parseSamples(await res.text());
  };
  /** Both workers' series, side by side: sums over them are the deployment's. */
  const scrapeWorkers = async (): Promise<Sample[]> => [
    ...(await scrapeWorker()),
    ...parseSamples(await workers[1].app.get(MetricsScraper).scrape()),
  ];

  beforeAll(async () => {
    api = await createTestApp(SETTINGS, { role: ProcessRole.Api, override: withFakeProvider(runner) });
    workers = [
      await createSecondInstance(api, ProcessRole.Worker, withFakeProvider(runner)),
      await createSecondInstance(api, ProcessRole.Worker, withFakeProvider(runner)),
    ];
    healthServer = await startWorkerHealthServer(
      0,
      workers[0].app.get(HealthService),
      workers[0].app.get(MetricsScraper),
      workers[0].config,
    );
  });

  afterAll(async () => {
    await new Promise((resolve) => healthServer?.close(resolve));
    for (const worker of workers ?? []) await worker.close();
    await api?.close();
  });

  it('exports the event-loop delay on /metrics of the API and the worker; a block shows as the max', async () => {
    const before = [await scrapeApi(), await scrapeWorker()];
    for (const samples of before) {
      expect(loopDelay(samples, '0.5')).toBeLessThanOrEqual(loopDelay(samples, '0.99'));
      expect(loopDelay(samples, '0.99')).toBeLessThanOrEqual(loopDelay(samples, '1'));
    }
    // 200 ms, or longer than anything the window holds already (starting the apps), so the max is this block's.
    const longest = Math.max(...before.map((samples) => loopDelay(samples, '1')));
    const blockMs = Math.max(200, Math.ceil(longest * 1000) + 100);

    blockEventLoop(blockMs);
    await sleep(50);

    // The API and the worker share this test's event loop: each process's own metric sees the block.
    for (const samples of [await scrapeApi(), await scrapeWorker()]) {
      expect(loopDelay(samples, '1')).toBeGreaterThanOrEqual(showsBlockOf(blockMs));
      expect(loopDelay(samples, '0.5')).toBeLessThanOrEqual(loopDelay(samples, '0.99'));
    }
  });

  it('counts the lapsed lock, the takeover and the repeated attempt of a worker blocked past its lock', async () => {
    const before = await scrapeWorkers();
    const delta = (samples: Sample[], name: string, labels: Record<string, string>) =>
      sumOf(samples, name, labels) - sumOf(before, name, labels);
    const repeatedAfterStall = async () =>
      delta(await scrapeWorkers(), 'imgjobs_result_attempts_repeated_total', {
        queue: 'processing',
        reason: 'stalled',
      });

    const account = await seedAccount(api, { credits: 10 });
    const created = await api
      .http()
      .post('/api/v1/image/edit')
      .set(bearer(account.liveKey))
      .set('Idempotency-Key', idempotencyKey())
      .send({ input: [{ image_url: 'https://images.example.com/p/slow.jpg', external_id: 'blocks-the-loop' }] })
      .expect(202);
    const jobId = created.body.job.id as string;

    // The first run blocks the loop for 2.5 s: its lock lapses in Redis meanwhile. When the loop
    // runs again, the renewal fails, the run completes the result but BullMQ refuses to record it
    // (the lock is gone), and a stalled check gives the entry back to the queue, where a worker
    // starts it again.
    expect((await waitForJob(api, jobId)).status).toBe('completed');
    // The worker that ran it saw its own loop blocked (both share this test's loop). Read as soon
    // as the run is over, well within the metric's minute, however long the waits below take.
    expect(loopDelay(await scrapeWorker(), '1')).toBeGreaterThanOrEqual(showsBlockOf(BLOCK_MS));
    await until(async () => (await repeatedAfterStall()) >= 1, 'a result attempt repeated after a stall', {
      timeoutMs: 30_000,
    });
    const [{ id: resultId }] = await api.dataSource.query<Array<{ id: string }>>(
      `SELECT id FROM job_results WHERE job_id = $1`,
      [jobId],
    );
    const processing = api.app.get<Queue>(getQueueToken(QueueName.Processing));
    await until(
      async () => (await processing.getJob(resultId))?.finishedOn !== undefined,
      'the entry to be completed by its second start',
    );
    const after = await scrapeWorkers();

    const queue = { queue: 'processing' };
    expect(delta(after, 'imgjobs_queue_lock_renewal_failures_total', queue)).toBeGreaterThanOrEqual(1);
    // The completion was refused, and so was the retry BullMQ tried to record instead.
    expect(delta(after, 'imgjobs_queue_finish_lock_errors_total', queue)).toBeGreaterThanOrEqual(1);
    expect(delta(after, 'imgjobs_queue_stalled_total', queue)).toBe(1);
    expect(delta(after, 'imgjobs_result_attempts_repeated_total', { ...queue, reason: 'stalled' })).toBe(1);
    expect(delta(after, 'imgjobs_result_attempts_repeated_total', queue)).toBe(1);

    // BullMQ's counters on the entry: a takeover after a stall is a start (attemptsStarted) and a
    // stall (stalledCounter), not an attempt made; the second start completed it.
    const entry = await processing.getJob(resultId);
    expect({
      attemptsStarted: entry?.attemptsStarted,
      stalledCounter: entry?.stalledCounter,
      attemptsMade: entry?.attemptsMade,
    }).toEqual({ attemptsStarted: 2, stalledCounter: 1, attemptsMade: 1 });
    // Here the first run had settled the result before the takeover, so the second start found
    // nothing to do; had it still been running (another process), the tool would have run twice.
    expect(runner.tasks).toHaveLength(1);
  });
});
