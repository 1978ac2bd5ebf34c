import { ProcessRole } from '../../src/core/bootstrap/role';
import { JobLifecycleService } from '../../src/modules/jobs/job-lifecycle.service';
import { ResultErrorCode, TransientResultFailure } from '../../src/modules/tools/result-failure';
import type { ToolOutput, ToolTask } from '../../src/modules/tools/tool-runner';
import {
  creditTotals,
  FakeProviderRunner,
  idempotencyKey,
  imageInputs,
  waitForJob,
  withFakeProvider,
} from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';
import { sleep } from '../support/waiting';

const LIMITS = {
  ...GENEROUS_LIMITS,
  LIMIT_CREATES_PER_HOUR_IP: '10000',
  LIMIT_POLLS_PER_HOUR_IP: '10000',
  CAPACITY_ACCOUNT_SHARE: '1',
};

/**
 * The fake provider, slowed by a few random milliseconds so that attempts start, fail and
 * finish while cancels run; `fail-*` sources fail for good, `flaky-*` ones fail their first try.
 */
class RacingProviderRunner extends FakeProviderRunner {
  override async run(task: ToolTask): Promise<ToolOutput> {
    await sleep(Math.random() * 30);
    const tries = this.tasks.filter((seen) => seen.resultId === task.resultId).length;
    if (task.externalId?.startsWith('flaky') && tries === 0) {
      this.tasks.push(task);
      throw new TransientResultFailure(ResultErrorCode.SourceFetchFailed, 'The source answered 503.');
    }
    return super.run(task);
  }
}

/** Every credit of every job is accounted for: reserve = capture + release, and the ledger sums to the balance. */
async function expectCreditsBalance(t: TestApp, accountId: string): Promise<void> {
  const totals = await creditTotals(t, accountId);
  expect(totals.ledgerSum).toBe(totals.balance);
  const unbalanced: unknown[] = await t.dataSource.query(
    `SELECT job_id,
            sum(credits) FILTER (WHERE kind = 'reserve')::int AS reserved,
            coalesce(sum(credits) FILTER (WHERE kind IN ('capture', 'release')), 0)::int AS settled
       FROM credit_ledger WHERE account_id = $1 AND job_id IS NOT NULL
      GROUP BY job_id
     HAVING sum(credits) FILTER (WHERE kind = 'reserve') <> ` +
      `coalesce(sum(credits) FILTER (WHERE kind IN ('capture', 'release')), 0)`,
    [accountId],
  );
  expect(unbalanced).toEqual([]);
}

describe(`${JobLifecycleService.name} lock order`, () => {
  describe('PostgreSQL session settings', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ DATABASE_LOCK_TIMEOUT_MS: '1234', DATABASE_STATEMENT_TIMEOUT_MS: '45678' });
    });
    afterAll(() => t.close());

    it('gives every session of the app the configured lock and statement timeouts', async () => {
      // Several at once, so more than one pooled connection is looked at.
      const sessions = await Promise.all(
        Array.from({ length: 4 }, () =>
          t.dataSource.transaction(async (manager) => {
            const [lock] = await manager.query(`SHOW lock_timeout`);
            const [statement] = await manager.query(`SHOW statement_timeout`);
            await manager.query(`SELECT pg_sleep(0.05)`);
            return { lock: lock.lock_timeout, statement: statement.statement_timeout };
          }),
        ),
      );
      for (const session of sessions) expect(session).toEqual({ lock: '1234ms', statement: '45678ms' });
    });
  });

  describe('with no worker consuming', () => {
    let t: TestApp;
    let account: SeededAccount;
    beforeAll(async () => {
      t = await createTestApp(LIMITS);
      account = await seedAccount(t, { credits: 100 });
    });
    afterAll(() => t.close());

    it('defaults to a 5 s lock timeout and a 30 s statement timeout', async () => {
      const [lock] = await t.dataSource.query(`SHOW lock_timeout`);
      const [statement] = await t.dataSource.query(`SHOW statement_timeout`);
      expect({ lock: lock.lock_timeout, statement: statement.statement_timeout }).toEqual({
        lock: '5s',
        statement: '30s',
      });
    });

    it('runs a cancel again when PostgreSQL aborts it to break a deadlock, instead of answering 500', async () => {
      const created = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.liveKey))
        .set('Idempotency-Key', idempotencyKey())
        .send({ input: imageInputs(2) })
        .expect(202);
      const jobId: string = created.body.job.id;
      const before = await creditTotals(t, account.accountId);

      // Another transaction takes the account, then the job: against the documented order, so
      // with the cancel (job, results, account) it forms a cycle that PostgreSQL must break.
      const other = t.dataSource.createQueryRunner();
      await other.connect();
      try {
        await other.startTransaction();
        // PostgreSQL aborts the transaction whose deadlock check runs first, one deadlock_timeout
        // (1 s) after it began to wait. The other side's check is put off for a minute, so the
        // cancel's is first however the two are scheduled on a busy machine.
        await other.query(`SET LOCAL deadlock_timeout = '60s'`);
        await other.query(`SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, [account.accountId]);
        const cancel = t
          .http()
          .post(`/api/v1/jobs/${jobId}/cancel`)
          .set(bearer(account.liveKey))
          .then((res) => res);
        const deadline = Date.now() + 5000;
        for (;;) {
          const [waiting] = await t.dataSource.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ` +
              `ILIKE '%UPDATE accounts%'`,
          );
          if (waiting.n > 0) break;
          if (Date.now() > deadline) throw new Error('the cancel never waited for the account row');
          await sleep(10);
        }
        // The cancel's deadlock check runs first and aborts it (40P01).
        await other.query(`SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE`, [jobId]);
        await other.commitTransaction();
        const res = await cancel;
        expect(res.status).toBe(200);
        expect(res.body.job.status).toBe('cancelled');
        expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['cancelled', 'cancelled']);
      } finally {
        if (other.isTransactionActive) await other.rollbackTransaction();
        await other.release();
      }
      const after = await creditTotals(t, account.accountId);
      expect(after.balance).toBe(before.balance + 2);
      await expectCreditsBalance(t, account.accountId);
    });
  });

  describe('concurrent cancels against a running worker', () => {
    let t: TestApp;
    let account: SeededAccount;
    const provider = new RacingProviderRunner();
    beforeAll(async () => {
      t = await createTestApp(
        { ...LIMITS, RESULT_ATTEMPTS: '2', WORKER_CONCURRENCY_PROCESSING: '16', DATABASE_POOL_SIZE: '20' },
        { role: ProcessRole.All, override: withFakeProvider(provider) },
      );
      account = await seedAccount(t, { credits: 1000 });
    });
    afterAll(() => t.close());

    it('answers every cancel, loses no attempt, settles every result and balances the credits', async () => {
      const kinds = ['ok', 'fail', 'flaky', 'fail', 'ok', 'flaky'];
      const creates = await Promise.all(
        Array.from({ length: 24 }, () =>
          t
            .http()
            .post('/api/v1/image/edit')
            .set(bearer(account.liveKey))
            .set('Idempotency-Key', idempotencyKey())
            .send({ input: imageInputs(kinds.length, (i) => `${kinds[i]}-${i}`) }),
        ),
      );
      expect(creates.map((res) => res.status)).toEqual(creates.map(() => 202));
      const jobIds: string[] = creates.map((res) => res.body.job.id);

      // Cancel while the worker is starting and failing their results, staggered over a few
      // milliseconds so that cancels land before, during and after the attempts.
      const cancels = await Promise.all(
        jobIds.map(async (id, i) => {
          await sleep((i % 6) * 5);
          return t.http().post(`/api/v1/jobs/${id}/cancel`).set(bearer(account.liveKey));
        }),
      );
      expect(cancels.map((res) => res.status)).toEqual(cancels.map(() => 200));

      for (const id of jobIds) await waitForJob(t, id, undefined, 30_000);
      // Results running when their job was cancelled may still finish: wait for every one.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const [open] = await t.dataSource.query(
          `SELECT count(*)::int AS n FROM job_results WHERE job_id = ANY($1) AND status IN ('queued', 'processing')`,
          [jobIds],
        );
        if (open.n === 0) break;
        if (Date.now() > deadline) throw new Error(`${open.n} results never settled`);
        await sleep(100);
      }

      const results: Array<{ id: string; status: string; attempts: number; external_id: string }> =
        await t.dataSource.query(`SELECT id, status, attempts, external_id FROM job_results WHERE job_id = ANY($1)`, [
          jobIds,
        ]);
      expect(results).toHaveLength(jobIds.length * kinds.length);
      for (const result of results) {
        expect(['completed', 'failed', 'cancelled']).toContain(result.status);
        // A result that ran was started by the lifecycle as often as the provider saw it: no
        // attempt ran without being recorded, or was recorded without running.
        const ran = provider.tasks.filter((task) => task.resultId === result.id).length;
        expect({ id: result.id, attempts: result.attempts }).toEqual({ id: result.id, attempts: ran });
        if (result.status !== 'cancelled') expect(result.attempts).toBeGreaterThan(0);
      }
      const jobs: Array<{ status: string; settled: number; total: number }> = await t.dataSource.query(
        `SELECT status, completed_results + failed_results + cancelled_results AS settled, total_results AS total
           FROM jobs WHERE id = ANY($1)`,
        [jobIds],
      );
      for (const job of jobs) {
        expect(job.status).toBe('cancelled');
        expect(job.settled).toBe(job.total);
      }
      await expectCreditsBalance(t, account.accountId);
    });
  });
});
