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
import { readUntil, sleep, until } from '../support/waiting';

const LIMITS = {
  ...GENEROUS_LIMITS,
  LIMIT_CREATES_PER_HOUR_IP: '1000',
  LIMIT_POLLS_PER_HOUR_IP: '1000',
  LIMIT_ACTIVE_JOBS_PER_KEY: '10',
  LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '10',
};

/**
 * The fake provider, except that a source whose external_id starts with `transient-once` fails transiently on its first
 * try.
 */
class FlakyProviderRunner extends FakeProviderRunner {
  override async run(task: ToolTask): Promise<ToolOutput> {
    const tries = this.tasks.filter((seen) => seen.resultId === task.resultId).length;
    if (task.externalId?.startsWith('transient-once') && tries === 0) {
      this.tasks.push(task);
      throw new TransientResultFailure(ResultErrorCode.SourceFetchFailed, 'The source answered 503.');
    }
    return super.run(task);
  }
}

describe(JobLifecycleService.name, () => {
  describe('with API and worker in one process', () => {
    let t: TestApp;
    let account: SeededAccount;
    const provider = new FlakyProviderRunner();

    beforeAll(async () => {
      t = await createTestApp(LIMITS, { role: ProcessRole.All, override: withFakeProvider(provider) });
      account = await seedAccount(t, { credits: 100 });
    });
    afterAll(() => t.close());

    const create = (key: string, body: object, path = '/api/v1/image/edit') =>
      t.http().post(path).set(bearer(key)).set('Idempotency-Key', idempotencyKey()).send(body);

    it('takes a sandbox job from create to completed, with signed result and thumbnail URLs', async () => {
      const res = await create(account.sandboxKey, {
        input: imageInputs(2),
        output: { number_of_images: 2, format: 'webp' },
      });
      expect(res.status).toBe(202);
      expect(res.body.job).toMatchObject({
        api: 'image_editing',
        status: 'queued',
        sandbox: true,
        total_results: 4,
        completed_results: 0,
        failed_results: 0,
        credits_reserved: 0,
        completed_at: null,
      });
      expect(res.body.remaining_paid_credits).toBe(100);
      expect(res.body.request_id).toBe(res.headers['x-request-id']);

      await waitForJob(t, res.body.job.id);
      const read = await t.http().get(`/api/v1/jobs/${res.body.job.id}`).set(bearer(account.sandboxKey)).expect(200);
      expect(read.body.job).toMatchObject({ status: 'completed', completed_results: 4, failed_results: 0 });
      expect(read.body.job.completed_at).toEqual(expect.any(String));
      expect(read.body.results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3]);
      expect(read.body.results.map((r: { external_id: string }) => r.external_id)).toEqual([
        'item-0',
        'item-0',
        'item-1',
        'item-1',
      ]);
      for (const result of read.body.results) {
        expect(result).toMatchObject({ status: 'completed', error_code: null, credits_used: 0 });
        const image = await t.http().get(new URL(result.result_url).pathname + new URL(result.result_url).search);
        expect(image.status).toBe(200);
        expect(image.headers['content-type']).toBe('image/webp');
        const thumbnail = await t
          .http()
          .get(new URL(result.thumbnail_url).pathname + new URL(result.thumbnail_url).search);
        expect(thumbnail.status).toBe(200);
        expect(thumbnail.headers['content-type']).toBe('image/webp');
      }
      expect((await creditTotals(t, account.accountId)).balance).toBe(100);
    });

    it('ends a mixed sandbox batch as partially_completed, failing only the sandbox_fail item', async () => {
      const input = imageInputs(3, (i) => (i === 1 ? 'sandbox_fail_1' : `ok-${i}`));
      const res = await create(account.sandboxKey, { input });
      await waitForJob(t, res.body.job.id);
      const read = await t.http().get(`/api/v1/jobs/${res.body.job.id}`).set(bearer(account.sandboxKey)).expect(200);
      expect(read.body.job).toMatchObject({ status: 'partially_completed', completed_results: 2, failed_results: 1 });
      const failed = read.body.results.find((r: { external_id: string }) => r.external_id === 'sandbox_fail_1');
      expect(failed).toMatchObject({ status: 'failed', error_code: 'sandbox_simulated_failure', result_url: null });
      expect(failed.error_message).toEqual(expect.any(String));
    });

    it('ends an all-failing sandbox batch as failed', async () => {
      const res = await create(account.sandboxKey, { input: imageInputs(2, (i) => `sandbox_fail_${i}`) });
      await waitForJob(t, res.body.job.id);
      const read = await t.http().get(`/api/v1/jobs/${res.body.job.id}`).set(bearer(account.sandboxKey)).expect(200);
      expect(read.body.job).toMatchObject({ status: 'failed', completed_results: 0, failed_results: 2 });
    });

    it('captures the credits of completed live results and releases those of failed ones', async () => {
      const before = await creditTotals(t, account.accountId);
      const res = await create(account.liveKey, { input: imageInputs(3, (i) => (i === 2 ? 'fail-2' : `ok-${i}`)) });
      expect(res.status).toBe(202);
      expect(res.body.job).toMatchObject({ sandbox: false, credits_reserved: 3, pricing_version: 1 });
      expect(res.body.remaining_paid_credits).toBe(before.balance - 3);

      await waitForJob(t, res.body.job.id);
      const read = await t.http().get(`/api/v1/jobs/${res.body.job.id}`).set(bearer(account.liveKey)).expect(200);
      expect(read.body.job).toMatchObject({ status: 'partially_completed', credits_reserved: 3, credits_used: 2 });
      const after = await creditTotals(t, account.accountId);
      expect(after.balance).toBe(before.balance - 2);
      expect(after.ledgerSum).toBe(after.balance);
      const ledger: Array<{ kind: string; amount: number; credits: number }> = await t.dataSource.query(
        `SELECT kind, amount, credits FROM credit_ledger WHERE job_id = $1 ORDER BY kind`,
        [res.body.job.id],
      );
      expect(ledger).toEqual(
        expect.arrayContaining([
          { kind: 'reserve', amount: -3, credits: 3 },
          { kind: 'capture', amount: 0, credits: 1 },
          { kind: 'release', amount: 1, credits: 1 },
        ]),
      );
      expect(ledger.filter((entry) => entry.kind === 'capture')).toHaveLength(2);
      expect(provider.tasks.some((task) => task.jobId === res.body.job.id)).toBe(true);
    });

    it('cancels a result waiting for its retry: it never runs again and its credits are released', async () => {
      const before = await creditTotals(t, account.accountId);
      const res = await create(account.liveKey, { input: imageInputs(1, () => 'transient-once-cancel') });
      expect(res.status).toBe(202);
      const jobId: string = res.body.job.id;
      const [{ id: resultId }]: Array<{ id: string }> = await t.dataSource.query(
        `SELECT id FROM job_results WHERE job_id = $1`,
        [jobId],
      );
      // The first attempt fails transiently; BullMQ holds the entry for its backoff (2 s) while the result stays
      // processing.
      await until(() => provider.tasks.some((task) => task.resultId === resultId), 'the first attempt', {
        timeoutMs: 10_000,
        intervalMs: 20,
      });
      const cancelled = await t.http().post(`/api/v1/jobs/${jobId}/cancel`).set(bearer(account.liveKey)).expect(200);
      expect(cancelled.body.job.status).toBe('cancelled');

      const readResult = async (): Promise<{ status: string; credits_used: number; completed_at: Date | null }> => {
        const [row] = await t.dataSource.query(
          `SELECT status, credits_used, completed_at FROM job_results WHERE id = $1`,
          [resultId],
        );
        return row;
      };
      const result = await readUntil(readResult, (row) => row.status !== 'processing', 'the result to settle', {
        timeoutMs: 15_000,
        intervalMs: 50,
      });
      expect(result).toMatchObject({ status: 'cancelled', credits_used: 0, completed_at: expect.any(Date) });
      // Past the retry's backoff, the tool has still been called only once.
      await sleep(500);
      expect(provider.tasks.filter((task) => task.resultId === resultId)).toHaveLength(1);

      const read = await t.http().get(`/api/v1/jobs/${jobId}`).set(bearer(account.liveKey)).expect(200);
      expect(read.body.job).toMatchObject({ status: 'cancelled', credits_used: 0, completed_results: 0 });
      expect(read.body.results).toEqual([expect.objectContaining({ status: 'cancelled', credits_used: 0 })]);
      const ledger: Array<{ kind: string; amount: number }> = await t.dataSource.query(
        `SELECT kind, amount FROM credit_ledger WHERE job_id = $1 ORDER BY created_at, kind DESC`,
        [jobId],
      );
      expect(ledger).toEqual([
        { kind: 'reserve', amount: -1 },
        { kind: 'release', amount: 1 },
      ]);
      expect(await creditTotals(t, account.accountId)).toEqual(before);
    });

    it(
      'refuses live jobs of a tool without a configured ' + 'provider with 503 tool_unavailable, reserving nothing',
      async () => {
        const before = await creditTotals(t, account.accountId);
        const res = await create(
          account.liveKey,
          { input: imageInputs(1), options: { prompt: 'a beach' } },
          '/api/v1/image/ai-edit',
        );
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe('tool_unavailable');
        expect(await creditTotals(t, account.accountId)).toEqual(before);
      },
    );
  });

  describe('cancelling, with no worker consuming', () => {
    let t: TestApp;
    let account: SeededAccount;

    beforeAll(async () => {
      t = await createTestApp(LIMITS, { role: ProcessRole.Api, override: withFakeProvider() });
      account = await seedAccount(t, { credits: 50 });
    });
    afterAll(() => t.close());

    it('cancels a queued job, releases every credit, and never changes it again', async () => {
      const res = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.liveKey))
        .set('Idempotency-Key', idempotencyKey())
        .send({ input: imageInputs(4) })
        .expect(202);
      expect((await creditTotals(t, account.accountId)).balance).toBe(46);

      const cancelled = await t
        .http()
        .post(`/api/v1/jobs/${res.body.job.id}/cancel`)
        .set(bearer(account.liveKey))
        .expect(200);
      expect(cancelled.body.job).toMatchObject({ status: 'cancelled', credits_used: 0 });
      expect(cancelled.body.job.completed_at).toEqual(expect.any(String));
      expect(cancelled.body.results.every((r: { status: string }) => r.status === 'cancelled')).toBe(true);
      const totals = await creditTotals(t, account.accountId);
      expect(totals).toEqual({ balance: 50, ledgerSum: 50 });

      const again = await t
        .http()
        .post(`/api/v1/jobs/${res.body.job.id}/cancel`)
        .set(bearer(account.liveKey))
        .expect(200);
      expect(again.body.job.status).toBe('cancelled');
      expect(await creditTotals(t, account.accountId)).toEqual(totals);

      // A late settlement of a cancelled result cannot move the job or the credits.
      const lifecycle = t.app.get(JobLifecycleService);
      expect(await lifecycle.fail(cancelled.body.results[0].id, 'processing_failed' as never, 'late')).toBe(false);
      expect(await creditTotals(t, account.accountId)).toEqual(totals);
    });

    it('answers 404 for another account’s job and for the other environment', async () => {
      const other = await seedAccount(t, { credits: 10 });
      const res = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.liveKey))
        .set('Idempotency-Key', idempotencyKey())
        .send({ input: imageInputs(1) })
        .expect(202);
      const id = res.body.job.id;
      for (const key of [other.liveKey, other.sandboxKey, account.sandboxKey]) {
        const read = await t.http().get(`/api/v1/jobs/${id}`).set(bearer(key));
        expect(read.status).toBe(404);
        expect(read.body.error.code).toBe('not_found');
        expect((await t.http().post(`/api/v1/jobs/${id}/cancel`).set(bearer(key))).status).toBe(404);
      }
    });
  });
});
