import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { QueueWorker } from '../../src/core/queue/queue-worker';
import { PrivateRedis } from '../support/private-redis';

const PREFIX = 'test-held-moves';
/** A short lock: BullMQ looks for locks to renew every quarter of it (1.5 s). */
const LOCK_MS = 6000;
/**
 * How long Redis is paused while the move waits in its connection: longer than one of the
 * worker's looks for locks to renew, each of which would send a renewal for a job it still
 * tracked, and well within the lock, which stays the job's until the move runs.
 */
const PAUSE_MS = 2000;

type Move = 'postpone' | 'hand back';

/**
 * A processor that moves the job it holds (to the delayed set, or back to its queue) must not be
 * followed by a renewal of the lock the move deleted: BullMQ would report "could not renew lock"
 * for a job that is fine. Redis is paused as the move is sent, so the move waits in the
 * connection while the worker's renewal timer runs; any renewal it sent for the job would run
 * after the move and fail. The Redis is the test's own, so the pause holds up no other test.
 */
describe('a job moved by the processor that holds it', () => {
  let redis: PrivateRedis;
  let connection: { host: string; port: number };
  let admin: Redis;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    connection = { host: '127.0.0.1', port: redis.port };
    admin = new Redis(redis.url);
  });

  afterAll(async () => {
    admin?.disconnect();
    await redis?.kill();
  });

  it.each<Move>(['postpone', 'hand back'])('is not renewed after the move (%s)', async (move) => {
    const name = `moves-${randomUUID()}`;
    const queue = new Queue(name, { connection, prefix: PREFIX });
    let runs = 0;
    const renewedJobs: string[] = [];
    const renewalFailures: string[] = [];
    const errors: string[] = [];
    let firstRenewal: () => void = () => undefined;
    const renewedOnce = new Promise<void>((resolve) => (firstRenewal = resolve));
    const worker: QueueWorker = new QueueWorker(
      name,
      async (job: Job, token: string | undefined) => {
        runs++;
        if (runs > 1) return 'done';
        // Held long enough for the worker to renew its lock once: it is tracked, and due again.
        await renewedOnce;
        await admin.client('PAUSE', PAUSE_MS, 'ALL');
        if (move === 'postpone') return worker.postpone(job, token, 10);
        return worker.handBack(job, token, (error) => errors.push(String(error)));
      },
      { connection, prefix: PREFIX, lockDuration: LOCK_MS, autorun: false },
    );
    worker.on('locksRenewed', ({ jobIds }: { jobIds: string[] }) => {
      renewedJobs.push(...jobIds);
      firstRenewal();
    });
    worker.on('lockRenewalFailed', (jobIds: string[]) => renewalFailures.push(...jobIds));
    worker.on('error', (error) => errors.push(error.message));
    try {
      const completed = once(worker, 'completed');
      void worker.run();
      const job = await queue.add('held', {});
      await completed;

      expect(runs).toBe(2);
      expect(renewedJobs).toContain(job.id);
      expect(renewalFailures).toEqual([]);
      expect(errors).toEqual([]);
      const finished = await queue.getJob(job.id!);
      // Started twice, and only the run that completed counted as an attempt.
      expect(finished?.attemptsStarted).toBe(2);
      expect(finished?.attemptsMade).toBe(1);
      expect(finished?.stalledCounter).toBe(0);
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
