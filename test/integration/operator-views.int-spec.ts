import { randomUUID } from 'node:crypto';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { OperatorViewsController } from '../../src/modules/admin/operator-views.controller';
import { expectError } from '../support/http-errors';
import { idempotencyKey, imageInputs, waitForJob, withFakeProvider } from '../support/jobs';
import { GENEROUS_CREATE_LIMITS } from '../support/limits';
import { createSecondInstance } from '../support/second-instance';
import { TcpProxy } from '../support/tcp-proxy';
import { testServices } from '../support/test-services';
import { readUntil } from '../support/waiting';
import { bearer, createTestApp, seedAccount, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app';

const admin = bearer(TEST_ADMIN_TOKEN);

interface ListedAccount {
  id: string;
  name: string;
  paid_credits: number;
  created_at: string;
  active_keys: number;
}

interface QueueBody {
  name: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  oldest_waiting_seconds: number | null;
}

interface OverviewBody {
  generated_at: string;
  queues: QueueBody[];
  results_per_minute: Array<{ minute: string; completed: number; failed: number }>;
  failures_by_code: Array<{ code: string; count: number }>;
  workers: Array<{ name: string; addresses: string[]; queues: string[] }>;
}

describe(OperatorViewsController.name, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(
      { ...GENEROUS_CREATE_LIMITS, LIMIT_FAILED_ADMIN_AUTH_PER_HOUR_IP: '1000' },
      { override: withFakeProvider() },
    );
  });
  afterAll(() => t.close());

  const list = (query: string, headers: Record<string, string> = admin) =>
    t.http().get(`/admin/v1/accounts${query}`).set(headers);
  const overview = async (): Promise<OverviewBody> =>
    (await t.http().get('/admin/v1/overview').set(admin).expect(200)).body.overview;
  const createAccount = async (name: string): Promise<ListedAccount> =>
    (await t.http().post('/admin/v1/accounts').set(admin).send({ name, credits: 5 }).expect(201)).body.account;
  const snapshot = async () => ({
    accounts: await t.dataSource.query(`SELECT * FROM accounts ORDER BY id`),
    keys: await t.dataSource.query(`SELECT * FROM api_keys ORDER BY id`),
  });

  describe('GET /admin/v1/accounts', () => {
    it('pages through the accounts newest first, each once, with its active keys', async () => {
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await createAccount(`Pager ${i}`));
      const key = await t
        .http()
        .post(`/admin/v1/accounts/${made[4].id}/api-keys`)
        .set(admin)
        .send({ environment: 'live' })
        .expect(201);
      const pages: ListedAccount[][] = [];
      let cursor: string | null = null;
      do {
        const query: string = `?query=pager&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
        const res = await list(query).expect(200);
        expect(res.body.request_id).toBe(res.headers['x-request-id']);
        pages.push(res.body.accounts);
        cursor = res.body.next_cursor;
      } while (cursor);
      expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
      expect(pages.flat().map((account) => account.name)).toEqual([
        'Pager 4',
        'Pager 3',
        'Pager 2',
        'Pager 1',
        'Pager 0',
      ]);
      expect(pages[0][0]).toEqual({ ...made[4], active_keys: 1 });
      expect(pages.flat()[1]).toMatchObject({ active_keys: 0 });
      await t.http().delete(`/admin/v1/api-keys/${key.body.api_key.id}`).set(admin).expect(204);
      expect((await list('?query=Pager%204').expect(200)).body.accounts[0]).toMatchObject({ active_keys: 0 });
    });

    it('lists every account without a query, newest first', async () => {
      const newest = await createAccount('The newest of all');
      const res = await list('?limit=100').expect(200);
      const names: string[] = res.body.accounts.map((account: ListedAccount) => account.name);
      expect(names[0]).toBe(newest.name);
      expect(names.length).toBe(Number((await t.dataSource.query(`SELECT count(*) FROM accounts`))[0].count));
    });

    it('finds an account by a part of its name in any case, by its id, and by its key’s prefix', async () => {
      const acme = await createAccount('ACME Widgets, Ltd.');
      const other = await seedAccount(t, { name: 'Globex' });
      expect((await list('?query=me%20wID').expect(200)).body.accounts.map((a: ListedAccount) => a.id)).toEqual([
        acme.id,
      ]);
      expect((await list(`?query=${acme.id.toUpperCase()}`).expect(200)).body.accounts).toEqual([
        { ...acme, active_keys: 0 },
      ]);
      const prefix: string = (
        await t.dataSource.query(`SELECT prefix FROM api_keys WHERE id = $1`, [other.liveKeyId])
      )[0].prefix;
      const byKey = (await list(`?query=${prefix}`).expect(200)).body.accounts;
      expect(byKey.map((a: ListedAccount) => a.id)).toEqual([other.accountId]);
      expect(byKey[0]).toMatchObject({ name: 'Globex', active_keys: 2 });
      const byStart = (await list(`?query=${prefix.slice(0, -1)}&limit=100`).expect(200)).body.accounts;
      expect(byStart.map((a: ListedAccount) => a.id)).toContain(other.accountId);
      expect(byStart.map((a: ListedAccount) => a.id)).not.toContain(acme.id);
      expect((await list(`?query=${randomUUID()}`).expect(200)).body).toMatchObject({
        accounts: [],
        next_cursor: null,
      });
    });

    it('takes % and _ in the query as themselves', async () => {
      const percent = await createAccount('Fifty % off');
      await createAccount('Fifty X off');
      expect((await list('?query=%25').expect(200)).body.accounts.map((a: ListedAccount) => a.id)).toEqual([
        percent.id,
      ]);
      expect((await list('?query=y_x').expect(200)).body.accounts).toEqual([]);
    });

    it('refuses bad parameters with 400 naming each, and changes nothing', async () => {
      const before = await snapshot();
      for (const [query, path] of [
        ['?limit=0', 'query.limit'],
        ['?limit=101', 'query.limit'],
        ['?limit=two', 'query.limit'],
        ['?query=', 'query.query'],
        [`?query=${'a'.repeat(201)}`, 'query.query'],
        ['?cursor=not-a-cursor', 'query.cursor'],
        ['?sort=name', 'query.sort'],
      ] as const) {
        const error = expectError(await list(query), 400, 'invalid_request');
        const paths = (error.details as { errors: Array<{ path: string }> }).errors.map((e) => e.path);
        expect(paths).toContain(path);
      }
      expect(await snapshot()).toEqual(before);
    });

    it('refuses a missing, wrong or customer credential with 401', async () => {
      const { liveKey } = await seedAccount(t);
      for (const headers of [{}, bearer('wrong-admin-token-0123456789'), bearer(liveKey)]) {
        expectError(await list('', headers), 401, 'unauthorized');
        expectError(await t.http().get('/admin/v1/overview').set(headers), 401, 'unauthorized');
      }
    });
  });

  describe('GET /admin/v1/accounts/{id}/ledger.csv', () => {
    it('holds the account’s whole ledger as the admin ledger lists it, and nothing of another account', async () => {
      const account = await createAccount('Ledger export');
      const other = await createAccount('Not exported');
      const grant = (id: string, amount: number, reason: string) =>
        t.http().post(`/admin/v1/accounts/${id}/credits`).set(admin).send({ amount, reason }).expect(200);
      await grant(account.id, 3, 'Late, "very" late');
      await grant(account.id, -2, '=1+1');
      await grant(other.id, 9, 'elsewhere');
      const res = await t.http().get(`/admin/v1/accounts/${account.id}/ledger.csv`).set(admin).expect(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="ledger-${account.id}.csv"`);
      const entries: Array<{ id: string; kind: string; amount: number }> = (
        await t.http().get(`/admin/v1/accounts/${account.id}/ledger`).set(admin).expect(200)
      ).body.entries;
      const [ledgerHeader, ...lines] = res.text.split('\r\n');
      expect(ledgerHeader).toBe('id,created_at,kind,amount,credits,balance_after,job_id,reason');
      expect(lines.pop()).toBe('');
      expect(lines.map((line) => line.split(',').slice(0, 4))).toEqual(
        entries.map((entry) => [entry.id, expect.any(String), entry.kind, String(entry.amount)]),
      );
      expect(lines[0]).toMatch(/,adjustment,-2,2,6,,'=1\+1$/);
      expect(lines[1]).toMatch(/,grant,3,3,8,,"Late, ""very"" late"$/);
      expect(res.text).not.toContain('elsewhere');
    });

    it('answers 404 for no such account, 400 for a bad id or any parameter, 401 without the token', async () => {
      expectError(await t.http().get(`/admin/v1/accounts/${randomUUID()}/ledger.csv`).set(admin), 404, 'not_found');
      expectError(await t.http().get('/admin/v1/accounts/nope/ledger.csv').set(admin), 400, 'invalid_request');
      const { accountId } = await seedAccount(t);
      expectError(
        await t.http().get(`/admin/v1/accounts/${accountId}/ledger.csv?limit=5`).set(admin),
        400,
        'invalid_request',
      );
      expectError(await t.http().get(`/admin/v1/accounts/${accountId}/ledger.csv`), 401, 'unauthorized');
    });
  });

  describe('GET /admin/v1/overview', () => {
    it('shows results waiting while no worker runs, then the worker, results per minute and failures', async () => {
      const quiet = await overview();
      expect(quiet.workers).toEqual([]);
      expect(quiet.results_per_minute).toHaveLength(60);
      expect(quiet.results_per_minute.every((m) => m.completed === 0 && m.failed === 0)).toBe(true);
      expect(quiet.failures_by_code).toEqual([]);
      const minutes = quiet.results_per_minute.map((m) => Date.parse(m.minute));
      for (let i = 1; i < minutes.length; i++) expect(minutes[i] - minutes[i - 1]).toBe(60_000);
      for (const queue of quiet.queues) expect(queue).toMatchObject({ waiting: 0, oldest_waiting_seconds: null });
      expect(quiet.queues.map((q) => q.name)).toEqual(
        expect.arrayContaining(['background-removal', 'processing', 'sandbox', 'webhook-delivery', 'maintenance']),
      );

      const account = await seedAccount(t, { credits: 100 });
      const job = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(account.liveKey))
        .set('Idempotency-Key', idempotencyKey())
        .send({ input: imageInputs(4, (i) => (i === 1 ? 'fail-1' : `ok-${i}`)) })
        .expect(202);
      const waiting = await overview();
      const busy = waiting.queues.filter((queue) => queue.waiting > 0);
      expect(busy).toEqual([
        expect.objectContaining({ waiting: 4, active: 0, oldest_waiting_seconds: expect.any(Number) }),
      ]);
      expect(busy[0].oldest_waiting_seconds).toBeGreaterThanOrEqual(0);
      expect(waiting.workers).toEqual([]);

      const worker = await createSecondInstance(t, ProcessRole.Worker, withFakeProvider());
      try {
        await waitForJob(t, job.body.job.id);
        const settled = await overview();
        const settledMinutes: Array<{ minute: Date; status: string; count: number }> = await t.dataSource.query(
          `SELECT date_trunc('minute', completed_at) AS minute, status, count(*)::int AS count
             FROM job_results WHERE job_id = $1 GROUP BY 1, 2`,
          [job.body.job.id],
        );
        for (const bucket of settled.results_per_minute) {
          const of = (status: string) =>
            settledMinutes
              .filter((row) => row.status === status && row.minute.toISOString() === bucket.minute)
              .reduce((sum, row) => sum + row.count, 0);
          expect(bucket).toEqual({ minute: bucket.minute, completed: of('completed'), failed: of('failed') });
        }
        expect(settled.results_per_minute.reduce((sum, m) => sum + m.completed, 0)).toBe(3);
        expect(settled.results_per_minute.reduce((sum, m) => sum + m.failed, 0)).toBe(1);
        expect(settled.failures_by_code).toEqual([{ code: 'provider_error', count: 1 }]);
        expect(settled.queues.find((queue) => queue.name === busy[0].name)).toMatchObject({
          waiting: 0,
          oldest_waiting_seconds: null,
        });
        expect(settled.workers).toHaveLength(1);
        expect(settled.workers[0].name).toMatch(/^.+:\d+$/);
        expect(settled.workers[0].addresses.length).toBeGreaterThan(0);
        expect(settled.workers[0].queues).toEqual(expect.arrayContaining([busy[0].name]));
      } finally {
        await worker.close();
      }
      // A closed worker's connections leave Redis's client list once the server has closed them.
      await readUntil(
        overview,
        (view) => view.workers.length === 0,
        () => 'the closed worker still listed',
      );
    });
  });

  describe('GET /admin/v1/overview while Redis does not answer', () => {
    it('answers 503 service_unavailable with Retry-After rather than waiting', async () => {
      const { redisUrl } = testServices();
      const partition = await TcpProxy.start(redisUrl);
      const cutOff = await createSecondInstance(t, ProcessRole.Api, undefined, partition.urlFor(redisUrl));
      try {
        await cutOff.http().get('/admin/v1/overview').set(admin).expect(200);
        partition.cut();
        const res = await cutOff.http().get('/admin/v1/overview').set(admin);
        expectError(res, 503, 'service_unavailable');
        expect(res.headers['retry-after']).toBe('5');
        partition.heal();
        await readUntil(
          () => cutOff.http().get('/admin/v1/overview').set(admin),
          (answer) => answer.status === 200,
          (last) => `the overview once Redis is back (last: ${last.status})`,
        );
      } finally {
        partition.heal();
        await cutOff.close();
        await partition.close();
      }
    });
  });
});
