import { ProcessRole } from '../../src/core/bootstrap/role';
import { IdempotencyService } from '../../src/modules/idempotency/idempotency.service';
import { ResultSweeperService } from '../../src/modules/jobs/worker/result-sweeper.service';
import { creditTotals, idempotencyKey, imageInputs, waitForJob, withFakeProvider } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import {
  bearer,
  createTestApp,
  seedAccount,
  TEST_ADMIN_TOKEN,
  type SeededAccount,
  type TestApp,
} from '../support/test-app';

/** Backdates a public create's idempotency record, as if it had been written `hours` ago. */
async function backdateKey(t: TestApp, apiKeyId: string, key: string, hours: number): Promise<void> {
  const [, updated]: [unknown, number] = await t.dataSource.query(
    `UPDATE idempotency_keys SET created_at = now() - make_interval(hours => $3) WHERE api_key_id = $1 AND key = $2`,
    [apiKeyId, key, hours],
  );
  expect(updated).toBe(1);
}

describe(IdempotencyService.name, () => {
  let t: TestApp;
  let account: SeededAccount;

  beforeAll(async () => {
    // The sweep runs only when a test calls it.
    t = await createTestApp(
      { ...GENEROUS_LIMITS, SWEEP_INTERVAL_SECONDS: '3600' },
      { role: ProcessRole.All, override: withFakeProvider() },
    );
    account = await seedAccount(t, { credits: 100 });
  });
  afterAll(() => t.close());

  const create = (key: string, body: object) =>
    t.http().post('/api/v1/image/edit').set(bearer(account.liveKey)).set('Idempotency-Key', key).send(body);

  const recordOf = async (key: string): Promise<{ job_id: string; request_hash: string } | undefined> => {
    const [row] = await t.dataSource.query(
      `SELECT job_id, request_hash FROM idempotency_keys WHERE api_key_id = $1 AND key = $2`,
      [account.liveKeyId, key],
    );
    return row;
  };

  describe('taking over an expired key', () => {
    it('replays a key younger than 24 hours, and creates a new job once its record has expired', async () => {
      const key = idempotencyKey();
      const body = { input: imageInputs(2) };
      const first = await create(key, body);
      expect(first.status).toBe(202);
      await waitForJob(t, first.body.job.id);

      // Shortly before expiry the key still replays the first job and reserves nothing.
      await backdateKey(t, account.liveKeyId, key, 23);
      const before = await creditTotals(t, account.accountId);
      const replay = await create(key, body);
      expect(replay.status).toBe(200);
      expect(replay.body.job.id).toBe(first.body.job.id);
      expect(await creditTotals(t, account.accountId)).toEqual(before);

      await backdateKey(t, account.liveKeyId, key, 25);
      const taken = await create(key, body);
      expect(taken.status).toBe(202);
      expect(taken.body.job.id).not.toBe(first.body.job.id);
      expect(taken.body.job).toMatchObject({ status: 'queued', credits_reserved: 2 });
      expect(taken.body.remaining_paid_credits).toBe(before.balance - 2);
      const [{ jobs }] = await t.dataSource.query(`SELECT count(*)::int AS jobs FROM jobs WHERE id = ANY($1::uuid[])`, [
        [first.body.job.id, taken.body.job.id],
      ]);
      expect(jobs).toBe(2);

      // The record now belongs to the new job, fresh again: a repeat replays the new job, not the old one.
      expect((await recordOf(key))?.job_id).toBe(taken.body.job.id);
      const replayOfNew = await create(key, body);
      expect(replayOfNew.status).toBe(200);
      expect(replayOfNew.body.job.id).toBe(taken.body.job.id);
      await waitForJob(t, taken.body.job.id);
    });

    it('takes over an expired key with a different body instead of answering 409', async () => {
      const key = idempotencyKey();
      const first = await create(key, { input: imageInputs(1) });
      expect(first.status).toBe(202);
      const conflict = await create(key, { input: imageInputs(3) });
      expect(conflict.status).toBe(409);
      expect(conflict.body.error.code).toBe('idempotency_conflict');

      await backdateKey(t, account.liveKeyId, key, 25);
      const taken = await create(key, { input: imageInputs(3) });
      expect(taken.status).toBe(202);
      expect(taken.body.job).toMatchObject({ total_results: 3, credits_reserved: 3 });
      expect(taken.body.job.id).not.toBe(first.body.job.id);
      // The first job is untouched by the takeover.
      const read = await t.http().get(`/api/v1/jobs/${first.body.job.id}`).set(bearer(account.liveKey)).expect(200);
      expect(read.body.job.total_results).toBe(1);
      await waitForJob(t, first.body.job.id);
      await waitForJob(t, taken.body.job.id);
    });
  });

  describe('the purge run by the result sweep', () => {
    it('deletes expired records, of public creates and of operator requests, and keeps live ones', async () => {
      const live = idempotencyKey();
      const almost = idempotencyKey();
      const expired = idempotencyKey();
      const jobs: Record<string, string> = {};
      for (const key of [live, almost, expired]) {
        const res = await create(key, { input: imageInputs(1) });
        expect(res.status).toBe(202);
        jobs[key] = res.body.job.id;
      }
      await backdateKey(t, account.liveKeyId, almost, 23);
      await backdateKey(t, account.liveKeyId, expired, 25);

      const operatorKey = (name: string) => `purge-${name}-${idempotencyKey()}`;
      const operatorLive = operatorKey('live');
      const operatorExpired = operatorKey('expired');
      for (const key of [operatorLive, operatorExpired]) {
        await t
          .http()
          .post(`/admin/v1/accounts/${account.accountId}/credits`)
          .set(bearer(TEST_ADMIN_TOKEN))
          .set('Idempotency-Key', key)
          .send({ amount: 1, reason: 'purge test' })
          .expect(200);
      }
      await t.dataSource.query(
        `UPDATE operator_idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`,
        [operatorExpired],
      );

      await t.app.get(ResultSweeperService).sweep();

      expect(await recordOf(live)).toBeDefined();
      expect((await recordOf(almost))?.job_id).toBe(jobs[almost]);
      expect(await recordOf(expired)).toBeUndefined();
      const operatorRows: Array<{ key: string }> = await t.dataSource.query(
        `SELECT key FROM operator_idempotency_keys WHERE key = ANY($1::text[])`,
        [[operatorLive, operatorExpired]],
      );
      expect(operatorRows.map((row) => row.key)).toEqual([operatorLive]);
      // The purge removes only the record: the job it pointed at stays readable.
      await t.http().get(`/api/v1/jobs/${jobs[expired]}`).set(bearer(account.liveKey)).expect(200);

      // A purged key is free again; a kept one still replays.
      const reused = await create(expired, { input: imageInputs(1) });
      expect(reused.status).toBe(202);
      expect(reused.body.job.id).not.toBe(jobs[expired]);
      const replay = await create(almost, { input: imageInputs(1) });
      expect(replay.status).toBe(200);
      expect(replay.body.job.id).toBe(jobs[almost]);
      for (const id of [...Object.values(jobs), reused.body.job.id]) await waitForJob(t, id);
    });
  });
});
