import { ProcessRole } from '../../src/core/bootstrap/role';
import { JobLifecycleService } from '../../src/modules/jobs/job-lifecycle.service';
import type { ToolOutput, ToolTask } from '../../src/modules/tools/tool-runner';
import { creditTotals, FakeProviderRunner, idempotencyKey, imageInputs, withFakeProvider } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';
import { readUntil, sleep } from '../support/waiting';

/**
 * The fake provider, holding every task until the test releases the provider; `tasks` lists those that went through.
 */
class GatedProviderRunner extends FakeProviderRunner {
  readonly waiting: ToolTask[] = [];
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));

  override async run(task: ToolTask): Promise<ToolOutput> {
    this.waiting.push(task);
    await this.gate;
    this.waiting.splice(this.waiting.indexOf(task), 1);
    return super.run(task);
  }

  release(): void {
    this.open();
  }
}

/** How the worker's progress is polled here: often, and for at most 10 s. */
const POLLING = { timeoutMs: 10_000, intervalMs: 50 };

interface ResultRow {
  id: string;
  status: string;
  credits_reserved: number;
  credits_used: number;
  completed_at: Date | null;
}

describe(`${JobLifecycleService.name}: a running result of a cancelled job`, () => {
  let t: TestApp;
  let account: SeededAccount;
  const provider = new GatedProviderRunner();

  beforeAll(async () => {
    // One processing slot: the first result runs (and waits on the provider) while the others stay queued.
    t = await createTestApp(
      { ...GENEROUS_LIMITS, WORKER_CONCURRENCY_PROCESSING: '1', SWEEP_INTERVAL_SECONDS: '3600' },
      { role: ProcessRole.All, override: withFakeProvider(provider) },
    );
    account = await seedAccount(t, { credits: 30 });
  });
  afterAll(async () => {
    provider.release();
    await t.close();
  });

  it(
    'may finish: its credits are captured, the others are ' + 'cancelled and released, and the job stays cancelled',
    async () => {
      const res = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.liveKey))
        .set('Idempotency-Key', idempotencyKey())
        .send({ input: imageInputs(3) });
      expect(res.status).toBe(202);
      const jobId: string = res.body.job.id;
      expect(res.body.job.credits_reserved).toBe(3);
      expect(await creditTotals(t, account.accountId)).toEqual({ balance: 27, ledgerSum: 27 });

      const results = () =>
        t.dataSource.query<ResultRow[]>(
          `SELECT id, status, credits_reserved, credits_used, completed_at FROM job_results WHERE ` +
            `job_id = $1 ORDER BY index`,
          [jobId],
        );
      const running = await readUntil(
        results,
        (rows) => rows.filter((row) => row.status === 'processing').length === 1 && provider.waiting.length === 1,
        'one result to be running in the provider',
        POLLING,
      );
      const runningId = running.find((row) => row.status === 'processing')?.id as string;
      expect(provider.waiting[0].resultId).toBe(runningId);

      const cancelled = await t.http().post(`/api/v1/jobs/${jobId}/cancel`).set(bearer(account.liveKey)).expect(200);
      expect(cancelled.body.job).toMatchObject({ status: 'cancelled', credits_used: 0 });
      const cancelledAt: string = cancelled.body.job.completed_at;
      expect(cancelledAt).toEqual(expect.any(String));
      // Results not started are cancelled and released at once; the running one is left to finish.
      for (const result of cancelled.body.results) {
        expect(result).toMatchObject(
          result.id === runningId ? { status: 'processing' } : { status: 'cancelled', credits_used: 0 },
        );
      }
      expect(await creditTotals(t, account.accountId)).toEqual({ balance: 29, ledgerSum: 29 });

      provider.release();
      const settled = await readUntil(
        results,
        (rows) => rows.every((row) => row.status !== 'processing'),
        'the running result to finish',
        POLLING,
      );

      expect(settled.find((row) => row.id === runningId)).toMatchObject({
        status: 'completed',
        credits_reserved: 1,
        credits_used: 1,
        completed_at: expect.any(Date),
      });
      for (const row of settled.filter((r) => r.id !== runningId)) {
        expect(row).toMatchObject({ status: 'cancelled', credits_used: 0 });
      }

      // Let the worker take the queued entries of the cancelled results: they must not run or move anything.
      await sleep(500);
      expect(provider.waiting).toHaveLength(0);
      expect(provider.tasks.map((task) => task.resultId)).toEqual([runningId]);

      const read = await t.http().get(`/api/v1/jobs/${jobId}`).set(bearer(account.liveKey)).expect(200);
      // A terminal state never changes again: the job stays cancelled, with when it was cancelled.
      expect(read.body.job).toMatchObject({
        status: 'cancelled',
        total_results: 3,
        completed_results: 1,
        failed_results: 0,
        credits_reserved: 3,
        credits_used: 1,
        completed_at: cancelledAt,
      });
      const completed = read.body.results.find((result: { id: string }) => result.id === runningId);
      expect(completed).toMatchObject({ status: 'completed', credits_used: 1, error_code: null });
      expect(completed.result_url).toEqual(expect.any(String));
      expect(read.body.results.filter((result: { status: string }) => result.status === 'cancelled')).toHaveLength(2);

      const [counts] = await t.dataSource.query(`SELECT cancelled_results FROM jobs WHERE id = $1`, [jobId]);
      expect(counts.cancelled_results).toBe(2);
      const ledger: Array<{ kind: string; amount: number; credits: number }> = await t.dataSource.query(
        `SELECT kind, amount, credits FROM credit_ledger WHERE job_id = $1 ORDER BY created_at, kind`,
        [jobId],
      );
      expect(ledger).toEqual([
        { kind: 'reserve', amount: -3, credits: 3 },
        { kind: 'release', amount: 2, credits: 2 },
        { kind: 'capture', amount: 0, credits: 1 },
      ]);
      // The capture spends what was reserved: the balance is where the cancel left it, 30 - 3 + 2.
      expect(await creditTotals(t, account.accountId)).toEqual({ balance: 29, ledgerSum: 29 });
    },
  );
});
