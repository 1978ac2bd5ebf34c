import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type { Response } from 'supertest';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { QueueName } from '../../src/core/queue/queue-name';
import { JobCreationService } from '../../src/modules/jobs/job-creation.service';
import { ResultQueueProducer } from '../../src/modules/jobs/result-queue.producer';
import { ResultSweeperService } from '../../src/modules/jobs/worker/result-sweeper.service';
import { RateLimitService } from '../../src/modules/rate-limit/rate-limit.service';
import { expectError } from '../support/http-errors';
import { creditTotals, idempotencyKey, imageInputs, waitForJob, withFakeProvider, writtenRows } from '../support/jobs';
import { GENEROUS_CREATE_LIMITS } from '../support/limits';
import { bearer, createTestApp, seedAccount, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app';
import { until } from '../support/waiting';

const RAISED = {
  ...GENEROUS_CREATE_LIMITS,
  LIMIT_CREATES_PER_HOUR_IP: '1000',
  LIMIT_ACTIVE_JOBS_PER_KEY: '1000',
  LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '1000',
};

function expectRefusal(res: Response, status: number, code: string) {
  expectError(res, status, code);
  if (status === 429 || status === 503) {
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  }
}

describe(JobCreationService.name, () => {
  describe('idempotency', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(RAISED, { override: withFakeProvider() });
    });
    afterAll(() => t.close());

    it(
      'returns the same job with 200 for a replay, reserving ' + 'nothing more, and 409 for another body or endpoint',
      async () => {
        const account = await seedAccount(t, { credits: 10 });
        const key = idempotencyKey();
        const body = { input: imageInputs(2), output: { format: 'webp' } };
        const first = await t
          .http()
          .post('/api/v1/image/edit')
          .set(bearer(account.liveKey))
          .set('Idempotency-Key', key)
          .send(body);
        expect(first.status).toBe(202);
        expect(first.body.remaining_paid_credits).toBe(8);

        // Same body with its keys in another order is the same request.
        const reordered = { output: { format: 'webp' }, input: body.input };
        const replay = await t
          .http()
          .post('/api/v1/image/edit')
          .set(bearer(account.liveKey))
          .set('Idempotency-Key', key)
          .send(reordered);
        expect(replay.status).toBe(200);
        expect(replay.body.job.id).toBe(first.body.job.id);
        expect(replay.body.remaining_paid_credits).toBe(8);
        expect((await creditTotals(t, account.accountId)).balance).toBe(8);

        const otherBody = await t
          .http()
          .post('/api/v1/image/edit')
          .set(bearer(account.liveKey))
          .set('Idempotency-Key', key)
          .send({ input: imageInputs(3) });
        expectRefusal(otherBody, 409, 'idempotency_conflict');
        const otherEndpoint = await t
          .http()
          .post('/api/v1/remove-background')
          .set(bearer(account.liveKey))
          .set('Idempotency-Key', key)
          .send(body);
        expectRefusal(otherEndpoint, 409, 'idempotency_conflict');

        // The key is scoped to the API key: another key may use the same value for its own job.
        const sandbox = await t
          .http()
          .post('/api/v1/image/edit')
          .set(bearer(account.sandboxKey))
          .set('Idempotency-Key', key)
          .send(body);
        expect(sandbox.status).toBe(202);
        expect(sandbox.body.job.id).not.toBe(first.body.job.id);
      },
    );

    it('creates exactly one job and one reservation for 20 concurrent requests with one key', async () => {
      const account = await seedAccount(t, { credits: 100 });
      const key = idempotencyKey();
      const body = { input: imageInputs(3) };
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          t.http().post('/api/v1/image/edit').set(bearer(account.liveKey)).set('Idempotency-Key', key).send(body),
        ),
      );
      expect(responses.filter((res) => res.status === 202)).toHaveLength(1);
      expect(responses.filter((res) => res.status === 200)).toHaveLength(19);
      expect(new Set(responses.map((res) => res.body.job.id)).size).toBe(1);
      const [jobs] = await t.dataSource.query(`SELECT count(*)::int AS n FROM jobs WHERE account_id = $1`, [
        account.accountId,
      ]);
      expect(jobs.n).toBe(1);
      const reserves = await t.dataSource.query(
        `SELECT amount FROM credit_ledger WHERE account_id = $1 AND kind = 'reserve'`,
        [account.accountId],
      );
      expect(reserves).toEqual([{ amount: -3 }]);
      expect(await creditTotals(t, account.accountId)).toEqual({ balance: 97, ledgerSum: 97 });
    });

    it('stores nothing for a refused request, so retrying with the same key can succeed', async () => {
      const account = await seedAccount(t, { credits: 1 });
      const key = idempotencyKey();
      const body = { input: imageInputs(2) };
      const refused = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.liveKey))
        .set('Idempotency-Key', key)
        .send(body);
      expectRefusal(refused, 402, 'insufficient_credits');
      expect(refused.body.error.details).toEqual({ required: 2, available: 1 });
      await t
        .http()
        .post(`/admin/v1/accounts/${account.accountId}/credits`)
        .set(bearer(TEST_ADMIN_TOKEN))
        .send({ amount: 5, reason: 'top-up' })
        .expect(200);
      const retried = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.liveKey))
        .set('Idempotency-Key', key)
        .send(body);
      expect(retried.status).toBe(202);
    });
  });

  describe('credits under concurrency', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(RAISED, { override: withFakeProvider() });
    });
    afterAll(() => t.close());

    it('admits exactly as many jobs as the credits pay for among 30 concurrent creates', async () => {
      // Credits for exactly 7 jobs of 2 results at 1 credit each.
      const account = await seedAccount(t, { credits: 14 });
      const responses = await Promise.all(
        Array.from({ length: 30 }, () =>
          t
            .http()
            .post('/api/v1/image/edit')
            .set(bearer(account.liveKey))
            .set('Idempotency-Key', idempotencyKey())
            .send({ input: imageInputs(2) }),
        ),
      );
      const admitted = responses.filter((res) => res.status === 202);
      const refused = responses.filter((res) => res.status === 402);
      expect(admitted).toHaveLength(7);
      expect(refused).toHaveLength(23);
      for (const res of refused) expect(res.body.error.code).toBe('insufficient_credits');
      const remaining = admitted.map((res) => res.body.remaining_paid_credits).sort((a, b) => a - b);
      expect(remaining).toEqual([0, 2, 4, 6, 8, 10, 12]);
      expect(await creditTotals(t, account.accountId)).toEqual({ balance: 0, ledgerSum: 0 });
      const [jobs] = await t.dataSource.query(
        `SELECT count(*)::int AS n, sum(credits_reserved)::int AS reserved FROM jobs WHERE account_id = $1`,
        [account.accountId],
      );
      expect(jobs).toEqual({ n: 7, reserved: 14 });
    });
  });

  describe('rate limits', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(
        {
          LIMIT_CREATES_PER_HOUR_KEY: '3',
          LIMIT_CREATES_PER_HOUR_ACCOUNT: '5',
          LIMIT_ACTIVE_JOBS_PER_KEY: '100',
          LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '100',
        },
        { override: withFakeProvider() },
      );
    });
    afterAll(() => t.close());

    it(
      'refuses the fourth create of a key with 429, a ' + 'Retry-After, RateLimit headers, and writes nothing',
      async () => {
        const account = await seedAccount(t);
        const create = (key: string) =>
          t
            .http()
            .post('/api/v1/image/edit')
            .set(bearer(key))
            .set('Idempotency-Key', idempotencyKey())
            .send({ input: imageInputs(1) });
        const allowed = [];
        for (let i = 0; i < 3; i++) allowed.push(await create(account.sandboxKey));
        expect(allowed.map((res) => res.status)).toEqual([202, 202, 202]);
        expect(allowed.map((res) => res.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);
        expect(allowed[0].headers['ratelimit-limit']).toBe('3');

        const before = await writtenRows(t);
        const refused = await create(account.sandboxKey);
        expectRefusal(refused, 429, 'rate_limit_exceeded');
        expect(refused.body.error.message).toMatch(/Retry in \d+ seconds/);
        expect(refused.body.error.details).toMatchObject({ scope: 'key', limit: 3 });
        expect(refused.headers['ratelimit-remaining']).toBe('0');
        expect(await writtenRows(t)).toEqual(before);

        // The account limit (5) spans keys: a second sandbox key of the account has two left.
        const second = await t
          .http()
          .post(`/admin/v1/accounts/${account.accountId}/api-keys`)
          .set(bearer(TEST_ADMIN_TOKEN))
          .send({ environment: 'sandbox' });
        const viaSecond = [
          await create(second.body.secret),
          await create(second.body.secret),
          await create(second.body.secret),
        ];
        expect(viaSecond.map((res) => res.status)).toEqual([202, 202, 429]);
        expect(viaSecond[2].body.error.details).toMatchObject({ scope: 'account', limit: 5 });
      },
    );

    it('does not count a replay, and gives back the slot of a request refused later in admission', async () => {
      const account = await seedAccount(t, { credits: 0 });
      // Refused for credits after the rate limit counted it: the slot is given back, and the
      // refusal's own RateLimit-Remaining already counts it as returned.
      for (let i = 0; i < 4; i++) {
        const broke = await t
          .http()
          .post('/api/v1/image/edit')
          .set(bearer(account.liveKey))
          .set('Idempotency-Key', idempotencyKey())
          .send({ input: imageInputs(1) });
        expectRefusal(broke, 402, 'insufficient_credits');
        expect(broke.headers['ratelimit-remaining']).toBe('3');
      }
      const key = idempotencyKey();
      const first = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.sandboxKey))
        .set('Idempotency-Key', key)
        .send({ input: imageInputs(1) });
      expect(first.status).toBe(202);
      for (let i = 0; i < 5; i++) {
        const replay = await t
          .http()
          .post('/api/v1/image/edit')
          .set(bearer(account.sandboxKey))
          .set('Idempotency-Key', key)
          .send({ input: imageInputs(1) });
        expect(replay.status).toBe(200);
      }
      const next = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.sandboxKey))
        .set('Idempotency-Key', idempotencyKey())
        .send({ input: imageInputs(1) });
      expect(next.status).toBe(202);
      expect(next.headers['ratelimit-remaining']).toBe('1');
    });

    it(
      'counts the rate limit before the create transaction ' + 'opens, holding no idempotency row while Redis answers',
      async () => {
        const account = await seedAccount(t);
        const rateLimits = t.app.get(RateLimitService);
        const consume = rateLimits.consume.bind(rateLimits);
        const heldDuringConsume: number[] = [];
        const spy = jest.spyOn(rateLimits, 'consume').mockImplementation(async (kind, subject) => {
          // A claim's uncommitted insert holds this lock on the table until its transaction ends.
          const [held] = await t.dataSource.query(
            `SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'idempotency_keys'::regclass AND ` +
              `mode = 'RowExclusiveLock'`,
          );
          heldDuringConsume.push(held.n);
          return consume(kind, subject);
        });
        try {
          const key = idempotencyKey();
          const send = () =>
            t
              .http()
              .post('/api/v1/image/edit')
              .set(bearer(account.sandboxKey))
              .set('Idempotency-Key', key)
              .send({ input: imageInputs(1) });
          expect((await send()).status).toBe(202);
          expect((await send()).status).toBe(200);
        } finally {
          spy.mockRestore();
        }
        expect(heldDuringConsume).toEqual([0, 0]);
      },
    );

    it('answers a replay with its job even when the create limit is used up', async () => {
      const account = await seedAccount(t);
      const key = idempotencyKey();
      const send = (idempotency: string) =>
        t
          .http()
          .post('/api/v1/image/edit')
          .set(bearer(account.sandboxKey))
          .set('Idempotency-Key', idempotency)
          .send({ input: imageInputs(1) });
      const first = await send(key);
      expect(first.status).toBe(202);
      expect([(await send(idempotencyKey())).status, (await send(idempotencyKey())).status]).toEqual([202, 202]);
      expectRefusal(await send(idempotencyKey()), 429, 'rate_limit_exceeded');
      const replay = await send(key);
      expect(replay.status).toBe(200);
      expect(replay.body.job.id).toBe(first.body.job.id);
      expectRefusal(await send(idempotencyKey()), 429, 'rate_limit_exceeded');
    });
  });

  describe('active jobs and capacity', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(
        {
          ...GENEROUS_CREATE_LIMITS,
          LIMIT_CREATES_PER_HOUR_IP: '1000',
          CAPACITY_MAX_PENDING_RESULTS: '20',
          CAPACITY_ACCOUNT_SHARE: '0.5',
          LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '3',
        },
        { override: withFakeProvider() },
      );
    });
    afterAll(() => t.close());

    const create = (key: string, count: number) =>
      t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(key))
        .set('Idempotency-Key', idempotencyKey())
        .send({ input: imageInputs(count) });

    it('refuses a second active job on one key and a fourth on one account with 429 too_many_active_jobs', async () => {
      const account = await seedAccount(t, { credits: 100 });
      expect((await create(account.sandboxKey, 1)).status).toBe(202);
      const before = await writtenRows(t);
      const perKey = await create(account.sandboxKey, 1);
      expectRefusal(perKey, 429, 'too_many_active_jobs');
      expect(perKey.body.error.details).toMatchObject({ scope: 'key', active_jobs: 1 });
      expect(await writtenRows(t)).toEqual(before);

      // Sandbox jobs count against the account too: 3 keys fill it, the fourth is refused.
      const keys = [];
      for (let i = 0; i < 3; i++) {
        const issued = await t
          .http()
          .post(`/admin/v1/accounts/${account.accountId}/api-keys`)
          .set(bearer(TEST_ADMIN_TOKEN))
          .send({ environment: 'sandbox' });
        keys.push(issued.body.secret as string);
      }
      expect((await create(keys[0], 1)).status).toBe(202);
      expect((await create(keys[1], 1)).status).toBe(202);
      const perAccount = await create(keys[2], 1);
      expectRefusal(perAccount, 429, 'too_many_active_jobs');
      expect(perAccount.body.error.details).toMatchObject({ scope: 'account', active_jobs: 3 });
      expect((await creditTotals(t, account.accountId)).balance).toBe(100);
    });

    it(
      'refuses results beyond the account share with 429 ' + 'too_many_pending_results, and a full group with 503',
      async () => {
        const first = await seedAccount(t, { credits: 100 });
        const second = await seedAccount(t, { credits: 100 });
        const third = await seedAccount(t, { credits: 100 });
        // Share: 50% of 20 = 10 pending results per account.
        expect((await create(first.liveKey, 8)).status).toBe(202);
        const key = await t
          .http()
          .post(`/admin/v1/accounts/${first.accountId}/api-keys`)
          .set(bearer(TEST_ADMIN_TOKEN))
          .send({ environment: 'live' });
        const before = await writtenRows(t);
        const overShare = await create(key.body.secret, 3);
        expectRefusal(overShare, 429, 'too_many_pending_results');
        expect(overShare.body.error.details).toMatchObject({ pending_results: 8, requested_results: 3, limit: 10 });
        expect(await writtenRows(t)).toEqual(before);
        expect((await creditTotals(t, first.accountId)).balance).toBe(92);

        // The group holds 20: 8 + 10 leaves room for 2.
        expect((await create(second.liveKey, 10)).status).toBe(202);
        const full = await create(third.liveKey, 3);
        expectRefusal(full, 503, 'capacity_unavailable');
        expect(await creditTotals(t, third.accountId)).toEqual({ balance: 100, ledgerSum: 100 });
        expect((await create(third.liveKey, 2)).status).toBe(202);

        // Sandbox jobs do not count against group capacity.
        expect((await create(third.sandboxKey, 5)).status).toBe(202);
      },
    );

    it('lets exactly one of many concurrent creates take the last active-job slot of a key', async () => {
      const account = await seedAccount(t, { credits: 100 });
      const responses = await Promise.all(Array.from({ length: 10 }, () => create(account.sandboxKey, 1)));
      expect(responses.filter((res) => res.status === 202)).toHaveLength(1);
      expect(responses.filter((res) => res.status === 429)).toHaveLength(9);
    });
  });

  describe('the capacity group counter', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(
        { ...RAISED, CAPACITY_MAX_PENDING_RESULTS: '3', CAPACITY_ACCOUNT_SHARE: '1' },
        { role: ProcessRole.All, override: withFakeProvider() },
      );
    });
    afterAll(() => t.close());

    const create = (key: string, count: number) =>
      t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(key))
        .set('Idempotency-Key', idempotencyKey())
        .send({ input: imageInputs(count) });
    const counter = async (): Promise<{ counted: number; pending: number }> =>
      (
        await t.dataSource.query(
          `SELECT (SELECT pending_results FROM capacity_groups WHERE name = 'processing') AS counted,
                  (SELECT count(*)::int FROM job_results
                    WHERE capacity_group = 'processing' AND status IN ('queued', 'processing') ` +
            `AND NOT sandbox) AS pending`,
        )
      )[0];

    it(
      'lets exactly one of several accounts racing for the ' + 'last slot of a group take it, and frees it on cancel',
      async () => {
        // Paused, no result settles during the race, so the group holds exactly what was admitted.
        await t.app.get<Queue>(getQueueToken(QueueName.Processing)).pause();
        try {
          const filler = await seedAccount(t, { credits: 100 });
          expect((await create(filler.liveKey, 2)).status).toBe(202);
          const racers = await Promise.all(Array.from({ length: 8 }, () => seedAccount(t, { credits: 10 })));

          for (let round = 0; round < 2; round++) {
            const before = await writtenRows(t);
            const answers = await Promise.all(racers.map((racer) => create(racer.liveKey, 1)));
            const winners = answers.filter((res) => res.status === 202);
            expect(winners).toHaveLength(1);
            for (const res of answers.filter((answer) => answer.status !== 202))
              expectRefusal(res, 503, 'capacity_unavailable');
            expect(await writtenRows(t)).toMatchObject({ jobs: before.jobs + 1, results: before.results + 1 });
            expect(await counter()).toEqual({ counted: 3, pending: 3 });
            const balances = await Promise.all(racers.map((racer) => creditTotals(t, racer.accountId)));
            expect(balances.filter((balance) => balance.balance === 9)).toHaveLength(1);
            expect(balances.filter((balance) => balance.balance === 10)).toHaveLength(racers.length - 1);

            // The winner's cancel gives its slot back for the next round.
            const winner = racers[balances.findIndex((balance) => balance.balance === 9)];
            const cancelled = await t
              .http()
              .post(`/api/v1/jobs/${winners[0].body.job.id}/cancel`)
              .set(bearer(winner.liveKey));
            expect(cancelled.status).toBe(200);
            expect(await counter()).toEqual({ counted: 2, pending: 2 });
          }
        } finally {
          await t.app.get<Queue>(getQueueToken(QueueName.Processing)).resume();
        }
      },
    );

    it(
      'gives a slot back as each result settles, and the ' + 'sweeper corrects a counter changed behind its back',
      async () => {
        const account = await seedAccount(t, { credits: 10 });
        await until(async () => (await counter()).pending === 0, "the earlier test's results settled");
        const res = await create(account.liveKey, 2);
        expect(res.status).toBe(202);
        await waitForJob(t, res.body.job.id, (job) => job.status === 'completed');
        expect(await counter()).toEqual({ counted: 0, pending: 0 });

        await t.dataSource.query(`UPDATE capacity_groups SET pending_results = 3 WHERE name = 'processing'`);
        expectRefusal(await create(account.liveKey, 1), 503, 'capacity_unavailable');
        await t.app.get(ResultSweeperService).sweep();
        expect(await counter()).toEqual({ counted: 0, pending: 0 });
        expect((await create(account.liveKey, 1)).status).toBe(202);
      },
    );
  });

  describe('no lost jobs', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(
        { ...RAISED, SWEEP_INTERVAL_SECONDS: '1', SWEEP_GRACE_SECONDS: '1' },
        { role: ProcessRole.All },
      );
    });
    afterAll(() => t.close());

    it('finishes a committed job whose enqueue was lost, through the sweeper', async () => {
      const account = await seedAccount(t);
      const enqueue = jest
        .spyOn(ResultQueueProducer.prototype, 'enqueue')
        .mockRejectedValueOnce(new Error('connection lost between commit and enqueue'));
      const res = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.sandboxKey))
        .set('Idempotency-Key', idempotencyKey())
        .send({ input: imageInputs(2) });
      expect(res.status).toBe(202);
      expect(enqueue).toHaveBeenCalled();
      enqueue.mockRestore();
      expect((await waitForJob(t, res.body.job.id, undefined, 30_000)).status).toBe('completed');
    });
  });
});
