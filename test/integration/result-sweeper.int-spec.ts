import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { QueueJobName } from '../../src/core/queue/queue-jobs';
import { QueueName } from '../../src/core/queue/queue-name';
import { ResultErrorCode, ResultFailure } from '../../src/modules/tools/result-failure';
import {
  RESULT_SWEEP_LIMITS,
  ResultSweeperService,
  type ResultSweepLimits,
} from '../../src/modules/jobs/worker/result-sweeper.service';
import { ResultWorkService } from '../../src/modules/jobs/worker/result-work.service';
import type { ToolOutput, ToolTask } from '../../src/modules/tools/tool-runner';
import { creditTotals, FakeProviderRunner, idempotencyKey, imageInputs, withFakeProvider } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';
import { readUntil } from '../support/waiting';

const BLOCKED_MESSAGE = 'The source resolves to a private address.';

/**
 * The fake provider, except that sources whose external_id starts with `blocked` are refused as the address policy
 * would.
 */
class BlockingProviderRunner extends FakeProviderRunner {
  override async run(task: ToolTask): Promise<ToolOutput> {
    if (task.externalId?.startsWith('blocked')) {
      this.tasks.push(task);
      throw new ResultFailure(ResultErrorCode.SourceBlocked, BLOCKED_MESSAGE);
    }
    return super.run(task);
  }
}

/** How the worker's progress is polled here: often, and for at most 10 s. */
const POLLING = { timeoutMs: 10_000, intervalMs: 50 };

async function resultIdsOf(t: TestApp, jobId: string): Promise<string[]> {
  const rows: Array<{ id: string }> = await t.dataSource.query(
    `SELECT id FROM job_results WHERE job_id = $1 ORDER BY index`,
    [jobId],
  );
  return rows.map((row) => row.id);
}

/** Moves results an hour into the past, beyond the sweeper's grace period, keeping their order. */
async function age(t: TestApp, resultIds: string[]): Promise<void> {
  await t.dataSource.query(
    `UPDATE job_results SET created_at = created_at - interval '1 hour', started_at = started_at - interval '1 hour'
      WHERE id = ANY($1::uuid[])`,
    [resultIds],
  );
}

describe(ResultSweeperService.name, () => {
  const createJob = async (t: TestApp, account: SeededAccount, input: object[]): Promise<string> => {
    const res = await t
      .http()
      .post('/api/v1/image/edit')
      .set(bearer(account.liveKey))
      .set('Idempotency-Key', idempotencyKey())
      .send({ input });
    expect(res.status).toBe(202);
    return res.body.job.id;
  };

  describe('settling results whose queue entry failed', () => {
    let t: TestApp;
    let account: SeededAccount;

    beforeAll(async () => {
      t = await createTestApp(
        { ...GENEROUS_LIMITS, SWEEP_INTERVAL_SECONDS: '3600' },
        { role: ProcessRole.All, override: withFakeProvider(new BlockingProviderRunner()) },
      );
      account = await seedAccount(t, { credits: 20 });
    });
    afterAll(() => t.close());

    it('keeps the failure code and message the tool gave', async () => {
      const work = t.app.get(ResultWorkService);
      // The worker cannot settle the failure itself (its database is away, say): the queue entry stays failed.
      const settle = jest.spyOn(work, 'settleFailure').mockRejectedValue(new Error('database unavailable'));
      const processing = t.app.get<Queue>(getQueueToken(QueueName.Processing));
      let resultId: string;
      try {
        const jobId = await createJob(
          t,
          account,
          imageInputs(1, () => 'blocked-source'),
        );
        [resultId] = await resultIdsOf(t, jobId);
        await readUntil(
          async () => processing.getJob(resultId).then((entry) => entry?.getState()),
          (state) => state === 'failed',
          'the queue entry to fail',
          POLLING,
        );
        await readUntil(
          async () => settle.mock.calls.length,
          (calls) => calls > 0,
          'the worker to try to settle',
          POLLING,
        );
      } finally {
        settle.mockRestore();
      }
      const [stranded] = await t.dataSource.query(`SELECT status FROM job_results WHERE id = $1`, [resultId]);
      expect(stranded.status).toBe('processing');
      await age(t, [resultId]);

      await t.app.get(ResultSweeperService).sweep();

      const [settled] = await t.dataSource.query(
        `SELECT status, error_code, error_message, credits_used FROM job_results WHERE id = $1`,
        [resultId],
      );
      expect(settled).toEqual({
        status: 'failed',
        error_code: 'source_blocked',
        error_message: BLOCKED_MESSAGE,
        credits_used: 0,
      });
    });
  });

  describe('paging through a backlog', () => {
    let t: TestApp;
    let account: SeededAccount;
    const limits: ResultSweepLimits = { pageSize: 2, pagesPerSweep: 1 };

    beforeAll(async () => {
      // No worker consumes results, so queued ones keep their waiting queue entries: a legitimate backlog.
      t = await createTestApp(
        { ...GENEROUS_LIMITS, WORKER_QUEUES: 'webhook-delivery' },
        {
          role: ProcessRole.All,
          override: (builder) => withFakeProvider()(builder).overrideProvider(RESULT_SWEEP_LIMITS).useValue(limits),
        },
      );
      account = await seedAccount(t, { credits: 20 });
    });
    afterAll(() => t.close());

    it('cancels a result of a cancelled job that waits out a long retry backoff, releasing its credits', async () => {
      const processing = t.app.get<Queue>(getQueueToken(QueueName.Processing));
      const before = await creditTotals(t, account.accountId);
      const jobId = await createJob(t, account, imageInputs(1));
      const [resultId] = await resultIdsOf(t, jobId);
      // As after a transient failure: the result is processing and its entry is delayed for its next attempt.
      await t.dataSource.query(
        `UPDATE job_results SET status = 'processing', attempts = 1, started_at = now() WHERE id = $1`,
        [resultId],
      );
      await processing.remove(resultId);
      await processing.add(QueueJobName.ProcessResult, { resultId }, { jobId: resultId, delay: 3_600_000 });
      await t.http().post(`/api/v1/jobs/${jobId}/cancel`).set(bearer(account.liveKey)).expect(200);
      await age(t, [resultId]);

      const sweeper = t.app.get(ResultSweeperService);
      let cancelled = 0;
      for (let i = 0; i < 5 && cancelled === 0; i++) cancelled = (await sweeper.sweep()).cancelled;

      expect(cancelled).toBe(1);
      const [result] = await t.dataSource.query(`SELECT status, credits_used FROM job_results WHERE id = $1`, [
        resultId,
      ]);
      expect(result).toEqual({ status: 'cancelled', credits_used: 0 });
      expect(await processing.getJob(resultId)).toBeUndefined();
      const [job] = await t.dataSource.query(`SELECT status, cancelled_results FROM jobs WHERE id = $1`, [jobId]);
      expect(job).toEqual({ status: 'cancelled', cancelled_results: 1 });
      const ledger: Array<{ kind: string }> = await t.dataSource.query(
        `SELECT kind FROM credit_ledger WHERE job_id = $1 ORDER BY created_at, kind DESC`,
        [jobId],
      );
      expect(ledger.map((entry) => entry.kind)).toEqual(['reserve', 'release']);
      expect(await creditTotals(t, account.accountId)).toEqual(before);
    });

    it('reaches a stranded result behind more than a page of queued ones', async () => {
      const processing = t.app.get<Queue>(getQueueToken(QueueName.Processing));
      // Three results of one job share one created_at: the cursor must not lose or repeat them.
      const backlog = await resultIdsOf(t, await createJob(t, account, imageInputs(3)));
      const [strandedId] = await resultIdsOf(t, await createJob(t, account, imageInputs(1)));
      // A crash between commit and enqueue: the result has no queue entry.
      await processing.remove(strandedId);
      expect(await processing.getJob(strandedId)).toBeUndefined();
      await age(t, [...backlog, strandedId]);

      const sweeper = t.app.get(ResultSweeperService);
      const sweeps = [];
      for (let i = 0; i < 3 && !(await processing.getJob(strandedId)); i++) sweeps.push(await sweeper.sweep());

      expect(sweeps).toEqual([
        { requeued: 0, failed: 0, cancelled: 0 },
        { requeued: 1, failed: 0, cancelled: 0 },
      ]);
      expect(await processing.getJob(strandedId)).toBeDefined();
      for (const id of backlog) expect(await processing.getJob(id).then((entry) => entry?.getState())).toBe('waiting');
    });
  });
});
