import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import type { EntityManager } from 'typeorm';
import { AdminController } from '../../src/modules/admin/admin.controller';
import { CreditsService } from '../../src/modules/credits/credits.service';
import { expectError } from '../support/http-errors';
import {
  bearer,
  createTestApp,
  OPERATOR_TOKEN_LIMIT_SETTINGS,
  seedAccount,
  TEST_ADMIN_TOKEN,
  TEST_METRICS_TOKEN,
  type TestApp,
} from '../support/test-app';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const admin = bearer(TEST_ADMIN_TOKEN);

type Method = 'get' | 'post' | 'patch' | 'delete';

interface AccountBody {
  id: string;
  name: string;
  api_access: boolean;
  restricted_until: string | null;
  paid_credits: number;
  created_at: string;
}

interface LedgerEntryBody {
  id: string;
  kind: string;
  amount: number;
  credits: number;
  job_id: string | null;
  reason: string | null;
  created_at: string;
}

/** A 400 whose `details.errors` are all `{ path, message }` and name `path`. */
function expectInvalid(res: Response, path: string): void {
  expectError(res, 400, 'invalid_request');
  const errors: Array<{ path: string; message: string }> = res.body.error.details.errors;
  expect(errors.length).toBeGreaterThan(0);
  for (const error of errors) expect(error).toEqual({ path: expect.any(String), message: expect.any(String) });
  expect(errors.map((error) => error.path)).toContain(path);
}

describe(AdminController.name, () => {
  let t: TestApp;

  beforeAll(async () => {
    // The authentication tests below try dozens of wrong tokens from one address.
    t = await createTestApp({ LIMIT_FAILED_ADMIN_AUTH_PER_HOUR_IP: '1000' });
  });
  afterAll(() => t.close());

  const call = (method: Method, path: string, headers: Record<string, string> = admin) =>
    t.http()[method](`/admin/v1${path}`).set(headers);
  const createAccount = async (body: Record<string, unknown>): Promise<AccountBody> =>
    (await call('post', '/accounts').send(body).expect(201)).body.account;
  const ledgerOf = async (accountId: string, query = ''): Promise<LedgerEntryBody[]> =>
    (await call('get', `/accounts/${accountId}/ledger${query}`).expect(200)).body.entries;
  const balanceOf = async (accountId: string): Promise<number> =>
    (await call('get', `/accounts/${accountId}`).expect(200)).body.account.paid_credits;
  /** Everything an admin write can touch, to prove a refused request changed nothing. */
  const snapshot = async () => ({
    accounts: await t.dataSource.query(`SELECT * FROM accounts ORDER BY id`),
    keys: await t.dataSource.query(`SELECT * FROM api_keys ORDER BY id`),
    ledger: await t.dataSource.query(`SELECT * FROM credit_ledger ORDER BY id`),
    idempotencyKeys: await t.dataSource.query(`SELECT * FROM operator_idempotency_keys ORDER BY key`),
  });

  describe('POST /admin/v1/accounts', () => {
    it('creates an account with opening credits, written to the ledger as a grant', async () => {
      const res = await call('post', '/accounts').send({ name: 'Acme', credits: 250, api_access: false }).expect(201);
      expect(res.body).toEqual({
        account: {
          id: expect.stringMatching(UUID),
          name: 'Acme',
          api_access: false,
          restricted_until: null,
          paid_credits: 250,
          review_threshold: 0.539,
          created_at: expect.stringMatching(ISO_UTC),
        },
        request_id: res.headers['x-request-id'],
      });
      const entries = await ledgerOf(res.body.account.id);
      expect(entries).toEqual([expect.objectContaining({ kind: 'grant', amount: 250, credits: 250, job_id: null })]);
    });

    it('defaults to API access on and no credits, with an empty ledger', async () => {
      const account = await createAccount({ name: 'Defaults' });
      expect(account).toMatchObject({ name: 'Defaults', api_access: true, restricted_until: null, paid_credits: 0 });
      expect(await ledgerOf(account.id)).toEqual([]);
    });
  });

  describe('GET /admin/v1/accounts/{id}', () => {
    it('returns the account as created', async () => {
      const account = await createAccount({ name: 'Readable', credits: 3 });
      const res = await call('get', `/accounts/${account.id}`).expect(200);
      expect(res.body).toEqual({ account, request_id: res.headers['x-request-id'] });
    });

    it('answers 404 not_found for an unknown id and 400 naming path.accountId for a malformed one', async () => {
      expectError(await call('get', `/accounts/${randomUUID()}`), 404, 'not_found');
      expectInvalid(await call('get', '/accounts/not-a-uuid'), 'path.accountId');
    });
  });

  describe('PATCH /admin/v1/accounts/{id}', () => {
    it('switches api_access off and on', async () => {
      const { id } = await createAccount({ name: 'Toggle' });
      const off = await call('patch', `/accounts/${id}`).send({ api_access: false }).expect(200);
      expect(off.body.account).toMatchObject({ id, api_access: false });
      const on = await call('patch', `/accounts/${id}`).send({ api_access: true }).expect(200);
      expect(on.body.account).toMatchObject({ id, api_access: true });
    });

    it('sets restricted_until (normalised to UTC) and lifts it with null', async () => {
      const { id } = await createAccount({ name: 'Restrict' });
      const set = await call('patch', `/accounts/${id}`)
        .send({ restricted_until: '2031-05-06T12:00:00+02:00' })
        .expect(200);
      expect(set.body.account.restricted_until).toBe('2031-05-06T10:00:00.000Z');
      expect((await call('get', `/accounts/${id}`).expect(200)).body.account.restricted_until).toBe(
        '2031-05-06T10:00:00.000Z',
      );

      const lifted = await call('patch', `/accounts/${id}`).send({ restricted_until: null }).expect(200);
      expect(lifted.body.account.restricted_until).toBeNull();
    });

    it('sets the review threshold', async () => {
      const { id } = await createAccount({ name: 'Reviewed' });
      const set = await call('patch', `/accounts/${id}`).send({ review_threshold: 0.25 }).expect(200);
      expect(set.body.account).toMatchObject({ id, review_threshold: 0.25 });
      expect((await call('get', `/accounts/${id}`).expect(200)).body.account.review_threshold).toBe(0.25);
    });

    it('leaves fields that are not sent untouched', async () => {
      const { id } = await createAccount({ name: 'Partial', api_access: false });
      await call('patch', `/accounts/${id}`).send({ restricted_until: '2031-01-01T00:00:00Z' }).expect(200);
      const res = await call('patch', `/accounts/${id}`).send({}).expect(200);
      expect(res.body.account).toMatchObject({ api_access: false, restricted_until: '2031-01-01T00:00:00.000Z' });
    });

    it('answers 404 not_found for an unknown account', async () => {
      expectError(await call('patch', `/accounts/${randomUUID()}`).send({ api_access: false }), 404, 'not_found');
    });
  });

  describe('POST /admin/v1/accounts/{id}/api-keys', () => {
    it.each([
      ['live', /^sk_live_[A-Za-z0-9]{32,}$/],
      ['sandbox', /^sk_sandbox_[A-Za-z0-9]{32,}$/],
    ])('issues a %s key whose secret is shown once and works at once', async (environment, format) => {
      const { id } = await createAccount({ name: `Keys ${environment}` });
      const res = await call('post', `/accounts/${id}/api-keys`).send({ environment, name: 'CI' }).expect(201);
      const { api_key: key, secret } = res.body;
      expect(res.body).toEqual({
        api_key: {
          id: expect.stringMatching(UUID),
          environment,
          name: 'CI',
          prefix: expect.any(String),
          created_at: expect.stringMatching(ISO_UTC),
        },
        secret: expect.stringMatching(format),
        request_id: res.headers['x-request-id'],
      });
      expect(secret.startsWith(key.prefix)).toBe(true);
      expect(key.prefix.length).toBeLessThan(secret.length - 16);

      const me = await t.http().get('/api/v1/account').set(bearer(secret)).expect(200);
      expect(me.body.api_key).toEqual({ id: key.id, environment });
      expect(me.body.account.id).toBe(id);
    });

    it('gives every key its own secret, and name null when none is given', async () => {
      const { id } = await createAccount({ name: 'Two keys' });
      const first = await call('post', `/accounts/${id}/api-keys`).send({ environment: 'live' }).expect(201);
      const second = await call('post', `/accounts/${id}/api-keys`).send({ environment: 'live' }).expect(201);
      expect(first.body.api_key.name).toBeNull();
      expect(first.body.secret).not.toBe(second.body.secret);
      expect(first.body.api_key.id).not.toBe(second.body.api_key.id);
    });

    it('answers 404 not_found for an unknown account and stores no key', async () => {
      const before = await snapshot();
      expectError(
        await call('post', `/accounts/${randomUUID()}/api-keys`).send({ environment: 'live' }),
        404,
        'not_found',
      );
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('DELETE /admin/v1/api-keys/{id}', () => {
    it('revokes with 204 and no body; the key is refused afterwards; revoking again is harmless', async () => {
      const { liveKey, liveKeyId } = await seedAccount(t);
      await t.http().get('/api/v1/account').set(bearer(liveKey)).expect(200);

      const res = await call('delete', `/api-keys/${liveKeyId}`).expect(204);
      expect(res.text).toBe('');
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
      expectError(await t.http().get('/api/v1/account').set(bearer(liveKey)), 401, 'unauthorized');

      await call('delete', `/api-keys/${liveKeyId}`).expect(204);
      const [row] = await t.dataSource.query(`SELECT revoked_at FROM api_keys WHERE id = $1`, [liveKeyId]);
      expect(row.revoked_at).toBeInstanceOf(Date);
    });

    it('answers 404 not_found for an unknown key and 400 naming path.keyId for a malformed one', async () => {
      expectError(await call('delete', `/api-keys/${randomUUID()}`), 404, 'not_found');
      expectInvalid(await call('delete', '/api-keys/12345'), 'path.keyId');
    });
  });

  describe('POST /admin/v1/accounts/{id}/credits', () => {
    it('grants and corrects, each written to the ledger as grant and adjustment', async () => {
      const { id } = await createAccount({ name: 'Credits' });
      const grant = await call('post', `/accounts/${id}/credits`).send({ amount: 50, reason: 'goodwill' }).expect(200);
      expect(grant.body).toEqual({
        account: expect.objectContaining({ id, paid_credits: 50 }),
        request_id: grant.headers['x-request-id'],
      });
      const fix = await call('post', `/accounts/${id}/credits`)
        .send({ amount: -20, reason: 'double grant' })
        .expect(200);
      expect(fix.body.account.paid_credits).toBe(30);

      expect(await ledgerOf(id)).toEqual([
        expect.objectContaining({ kind: 'adjustment', amount: -20, credits: 20, job_id: null, reason: 'double grant' }),
        expect.objectContaining({ kind: 'grant', amount: 50, credits: 50, job_id: null, reason: 'goodwill' }),
      ]);
    });

    it('refuses a correction larger than the balance with 400 and changes nothing', async () => {
      const { id } = await createAccount({ name: 'Small', credits: 10 });
      const before = await snapshot();
      expectInvalid(await call('post', `/accounts/${id}/credits`).send({ amount: -11, reason: 'too much' }), 'amount');
      expect(await snapshot()).toEqual(before);
      expect(await balanceOf(id)).toBe(10);

      // Exactly the balance is allowed: it reaches zero, never below.
      await call('post', `/accounts/${id}/credits`).send({ amount: -10, reason: 'all of it' }).expect(200);
      expect(await balanceOf(id)).toBe(0);
    });

    it('answers 404 not_found for an unknown account and writes no ledger row', async () => {
      const before = await snapshot();
      expectError(
        await call('post', `/accounts/${randomUUID()}/credits`).send({ amount: 5, reason: 'x' }),
        404,
        'not_found',
      );
      expect(await snapshot()).toEqual(before);
    });

    it('refuses a grant the balance cannot hold with a 400, not a 500', async () => {
      const { id } = await createAccount({ name: 'Whale', credits: 1_000_000_000 });
      await call('post', `/accounts/${id}/credits`).send({ amount: 1_000_000_000, reason: 'more' }).expect(200);
      const before = await snapshot();
      // 3e9 does not fit the balance column; each move is within the documented maximum.
      expectInvalid(
        await call('post', `/accounts/${id}/credits`).send({ amount: 1_000_000_000, reason: 'too much' }),
        'amount',
      );
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('POST /admin/v1/accounts/{id}/credits with an Idempotency-Key', () => {
    const grant = (accountId: string, body: object, key?: string) => {
      const req = call('post', `/accounts/${accountId}/credits`);
      return key === undefined ? req.send(body) : req.set('Idempotency-Key', key).send(body);
    };
    const grantsOf = async (accountId: string) => (await ledgerOf(accountId)).filter((e) => e.kind === 'grant');
    const newKey = () => `grant-${randomUUID()}`;

    it('applies a retried grant once and answers the retry like the first request', async () => {
      const { id } = await createAccount({ name: 'Retried grant' });
      const key = newKey();
      const first = await grant(id, { amount: 40, reason: 'top-up' }, key).expect(200);
      const retry = await grant(id, { reason: 'top-up', amount: 40 }, key).expect(200);
      expect(first.body.account).toMatchObject({ id, paid_credits: 40 });
      expect(retry.body.account).toEqual(first.body.account);
      expect(retry.body.request_id).toBe(retry.headers['x-request-id']);
      expect(await balanceOf(id)).toBe(40);
      expect(await grantsOf(id)).toHaveLength(1);
    });

    it('grants once when concurrent requests share a key, and every one gets the same answer', async () => {
      const { id } = await createAccount({ name: 'Concurrent grant' });
      const key = newKey();
      const responses = await Promise.all(
        Array.from({ length: 6 }, () => grant(id, { amount: 25, reason: 'parallel top-up' }, key)),
      );
      for (const res of responses) {
        expect(res.status).toBe(200);
        expect(res.body.account).toEqual(responses[0].body.account);
      }
      expect(responses[0].body.account.paid_credits).toBe(25);
      expect(await balanceOf(id)).toBe(25);
      expect(await grantsOf(id)).toHaveLength(1);
    });

    it(
      'answers 409 idempotency_conflict for the same key ' + 'with another body or another account, changing nothing',
      async () => {
        const { id } = await createAccount({ name: 'Conflicting grant' });
        const { id: otherId } = await createAccount({ name: 'Other account' });
        const key = newKey();
        await grant(id, { amount: 10, reason: 'first' }, key).expect(200);
        const before = await snapshot();
        expectError(await grant(id, { amount: 11, reason: 'first' }, key), 409, 'idempotency_conflict');
        expectError(await grant(id, { amount: 10, reason: 'second' }, key), 409, 'idempotency_conflict');
        expectError(await grant(otherId, { amount: 10, reason: 'first' }, key), 409, 'idempotency_conflict');
        expect(await snapshot()).toEqual(before);
      },
    );

    it('stores nothing for a refused change: the key can be used again', async () => {
      const { id } = await createAccount({ name: 'Refused then retried', credits: 5 });
      const key = newKey();
      expectInvalid(await grant(id, { amount: -6, reason: 'too much' }, key), 'amount');
      await grant(id, { amount: -5, reason: 'all of it' }, key).expect(200);
      expect(await balanceOf(id)).toBe(0);
      expectError(await grant(randomUUID(), { amount: 1, reason: 'nobody' }, newKey()), 404, 'not_found');
    });

    it('keeps working without the header: two requests are two grants', async () => {
      const { id } = await createAccount({ name: 'No key' });
      await grant(id, { amount: 3, reason: 'same' }).expect(200);
      await grant(id, { amount: 3, reason: 'same' }).expect(200);
      expect(await balanceOf(id)).toBe(6);
    });

    it.each([['short'], ['has spaces in it'], ['k'.repeat(161)], ['']])(
      'refuses the malformed key %j with 400 naming headers.idempotency-key, changing nothing',
      async (key) => {
        const { id } = await createAccount({ name: 'Bad key' });
        const before = await snapshot();
        expectInvalid(await grant(id, { amount: 1, reason: 'x' }, key), 'headers.idempotency-key');
        expect(await snapshot()).toEqual(before);
      },
    );
  });

  describe('balance bound: grants leave room for the credits still reserved', () => {
    const MAX_BALANCE = 2_147_483_647;
    let credits: CreditsService;

    beforeAll(() => {
      credits = t.app.get(CreditsService);
    });

    /** An account holding exactly the largest balance, built from grants within the per-move limit. */
    async function fullAccount(name: string): Promise<string> {
      const { id } = await createAccount({ name, credits: 1_000_000_000 });
      await call('post', `/accounts/${id}/credits`).send({ amount: 1_000_000_000, reason: 'more' }).expect(200);
      await call('post', `/accounts/${id}/credits`)
        .send({ amount: MAX_BALANCE - 2_000_000_000, reason: 'to the top' })
        .expect(200);
      expect(await balanceOf(id)).toBe(MAX_BALANCE);
      return id;
    }
    const inTransaction = <T>(work: (manager: EntityManager) => Promise<T>) => t.dataSource.transaction(work);

    it(
      'refuses a grant that fits the balance but not the ' + 'balance plus reservations, so the release still fits',
      async () => {
        const id = await fullAccount('Reserved whale');
        const jobId = randomUUID();
        expect(await inTransaction((m) => credits.reserve(m, id, jobId, 100))).toBe(MAX_BALANCE - 100);

        const before = await snapshot();
        expectInvalid(
          await call('post', `/accounts/${id}/credits`).send({ amount: 100, reason: 'would overflow' }),
          'amount',
        );
        expectInvalid(
          await call('post', `/accounts/${id}/credits`).send({ amount: 1, reason: 'would overflow' }),
          'amount',
        );
        expect(await snapshot()).toEqual(before);

        // The reserved credits come back without overflowing the integer column.
        await inTransaction((m) => credits.release(m, id, jobId, 100));
        expect(await balanceOf(id)).toBe(MAX_BALANCE);
      },
    );

    it('counts captured and released credits as no longer reserved', async () => {
      const id = await fullAccount('Settled whale');
      const jobId = randomUUID();
      await inTransaction((m) => credits.reserve(m, id, jobId, 100));
      await inTransaction((m) => credits.capture(m, id, jobId, 30));
      await inTransaction((m) => credits.release(m, id, jobId, 10));
      // 60 still reserved, balance MAX - 90: room for 30 more, not 31.
      expectInvalid(
        await call('post', `/accounts/${id}/credits`).send({ amount: 31, reason: 'one too many' }),
        'amount',
      );
      await call('post', `/accounts/${id}/credits`).send({ amount: 30, reason: 'exactly' }).expect(200);
      await inTransaction((m) => credits.release(m, id, jobId, 60));
      expect(await balanceOf(id)).toBe(MAX_BALANCE);
      const [{ sum }] = await t.dataSource.query(
        `SELECT sum(amount)::bigint AS sum FROM credit_ledger WHERE account_id = $1`,
        [id],
      );
      expect(Number(sum)).toBe(MAX_BALANCE);
    });

    it(
      'fails a release that would overflow with a clear error ' +
        'and changes nothing, should the bound ever be broken',
      async () => {
        const id = await fullAccount('Broken by hand');
        const jobId = randomUUID();
        await inTransaction((m) => credits.reserve(m, id, jobId, 5));
        // Outside the service: an operator setting the balance by hand breaks the grant rule.
        await t.dataSource.query(`UPDATE accounts SET paid_credits = $2 WHERE id = $1`, [id, MAX_BALANCE]);
        const before = await snapshot();
        await expect(inTransaction((m) => credits.release(m, id, jobId, 5))).rejects.toThrow(
          `would take the balance of account ${id} above ${MAX_BALANCE}`,
        );
        expect(await snapshot()).toEqual(before);
      },
    );
  });

  describe('GET /admin/v1/accounts/{id}/ledger', () => {
    it('lists entries newest first with their fields, and the balance equals the sum of amounts', async () => {
      const { id } = await createAccount({ name: 'Ledger', credits: 100 });
      for (const amount of [25, -40, 7, -2]) {
        await call('post', `/accounts/${id}/credits`)
          .send({ amount, reason: `move ${amount}` })
          .expect(200);
      }
      const res = await call('get', `/accounts/${id}/ledger`).expect(200);
      expect(res.body.request_id).toBe(res.headers['x-request-id']);
      const entries: LedgerEntryBody[] = res.body.entries;
      expect(entries.map((e) => e.amount)).toEqual([-2, 7, -40, 25, 100]);
      expect(entries.map((e) => e.kind)).toEqual(['adjustment', 'grant', 'adjustment', 'grant', 'grant']);
      expect(entries.map((e) => e.credits)).toEqual([2, 7, 40, 25, 100]);
      for (const entry of entries) {
        expect(entry).toEqual({
          id: expect.stringMatching(UUID),
          kind: expect.any(String),
          amount: expect.any(Number),
          credits: expect.any(Number),
          job_id: null,
          reason: expect.any(String),
          created_at: expect.stringMatching(ISO_UTC),
        });
      }
      const times = entries.map((e) => e.created_at);
      expect([...times].sort().reverse()).toEqual(times);

      const balance = await balanceOf(id);
      expect(balance).toBe(90);
      expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(balance);
      const [{ sum }] = await t.dataSource.query(
        `SELECT sum(amount)::int AS sum FROM credit_ledger WHERE account_id = $1`,
        [id],
      );
      expect(sum).toBe(balance);
    });

    it('honours limit, validates it, and answers 404 for an unknown account', async () => {
      const { id } = await createAccount({ name: 'Limit', credits: 1 });
      await call('post', `/accounts/${id}/credits`).send({ amount: 2, reason: 'second' }).expect(200);
      expect((await ledgerOf(id, '?limit=1')).map((e) => e.amount)).toEqual([2]);
      expectInvalid(await call('get', `/accounts/${id}/ledger?limit=0`), 'query.limit');
      expectInvalid(await call('get', `/accounts/${id}/ledger?limit=abc`), 'query.limit');
      expectError(await call('get', `/accounts/${randomUUID()}/ledger`), 404, 'not_found');
    });
  });

  describe('request validation', () => {
    let accountId: string;

    beforeAll(async () => {
      accountId = (await createAccount({ name: 'Validation target', credits: 5 })).id;
    });

    const accounts = () => '/accounts';
    const account = () => `/accounts/${accountId}`;
    const keys = () => `/accounts/${accountId}/api-keys`;
    const credits = () => `/accounts/${accountId}/credits`;

    it.each<[string, Method, () => string, unknown, string]>([
      ['account without name', 'post', accounts, {}, 'name'],
      ['account with empty name', 'post', accounts, { name: '' }, 'name'],
      ['account name of 201 chars', 'post', accounts, { name: 'n'.repeat(201) }, 'name'],
      ['account name not a string', 'post', accounts, { name: 42 }, 'name'],
      ['negative credits', 'post', accounts, { name: 'x', credits: -1 }, 'credits'],
      ['non-integer credits', 'post', accounts, { name: 'x', credits: 1.5 }, 'credits'],
      ['credits as a string', 'post', accounts, { name: 'x', credits: '10' }, 'credits'],
      ['api_access as a string', 'post', accounts, { name: 'x', api_access: 'true' }, 'api_access'],
      ['unknown field on create', 'post', accounts, { name: 'x', plan: 'pro' }, 'plan'],
      ['a body that is an array', 'post', accounts, [{ name: 'x' }], 'body'],
      ['restricted_until not a date', 'patch', account, { restricted_until: 'tomorrow' }, 'restricted_until'],
      ['restricted_until a number', 'patch', account, { restricted_until: 1893456000 }, 'restricted_until'],
      ['patched api_access as a string', 'patch', account, { api_access: 'false' }, 'api_access'],
      ['patched api_access null', 'patch', account, { api_access: null }, 'api_access'],
      ['unknown field on patch', 'patch', account, { paid_credits: 1000 }, 'paid_credits'],
      ['review_threshold above 1', 'patch', account, { review_threshold: 1.5 }, 'review_threshold'],
      ['review_threshold null', 'patch', account, { review_threshold: null }, 'review_threshold'],
      ['key without environment', 'post', keys, {}, 'environment'],
      ['key environment not live/sandbox', 'post', keys, { environment: 'test' }, 'environment'],
      ['key name of 101 chars', 'post', keys, { environment: 'live', name: 'k'.repeat(101) }, 'name'],
      ['unknown field on key', 'post', keys, { environment: 'live', scopes: ['all'] }, 'scopes'],
      ['amount 0', 'post', credits, { amount: 0, reason: 'nothing' }, 'amount'],
      ['amount not an integer', 'post', credits, { amount: 2.5, reason: 'half' }, 'amount'],
      ['amount as a string', 'post', credits, { amount: '5', reason: 'text' }, 'amount'],
      ['amount missing', 'post', credits, { reason: 'none' }, 'amount'],
      ['reason missing', 'post', credits, { amount: 5 }, 'reason'],
      ['reason empty', 'post', credits, { amount: 5, reason: '' }, 'reason'],
      ['unknown field on credits', 'post', credits, { amount: 5, reason: 'x', kind: 'grant' }, 'kind'],
    ])('%s: 400 invalid_request naming the path, nothing changed', async (_label, method, path, body, errorPath) => {
      const before = await snapshot();
      expectInvalid(await call(method, path()).send(body as object), errorPath);
      expect(await snapshot()).toEqual(before);
    });

    // PostgreSQL text cannot hold U+0000; such input must be refused, not reach the database.
    it.each<[string, () => string, Record<string, unknown>, string]>([
      ['account name', accounts, { name: 'a\u0000b' }, 'name'],
      ['key name', keys, { environment: 'live', name: 'a\u0000b' }, 'name'],
      ['credit reason', credits, { amount: 1, reason: 'a\u0000b' }, 'reason'],
    ])('refuses a NUL character in the %s with 400, not 500', async (_label, path, body, errorPath) => {
      const before = await snapshot();
      expectInvalid(await call('post', path()).send(body), errorPath);
      expect(await snapshot()).toEqual(before);
    });

    it(
      'keeps the name limit in step with the database: 200 ' + 'letters plus a variation selector is stored, not a 500',
      async () => {
        const name = `${'a'.repeat(200)}\uFE0F`;
        const res = await call('post', '/accounts').send({ name });
        expect(res.status).toBe(201);
        expect(res.body.account.name).toBe(name);
      },
    );
  });

  describe('authentication', () => {
    // Every row has three entries: with fewer, jest would pass its `done` callback as `body`.
    it.each<[Method, string, object | null]>([
      ['post', '/accounts', { name: 'x' }],
      ['get', '/accounts/{id}', null],
      ['patch', '/accounts/{id}', { api_access: false }],
      ['post', '/accounts/{id}/api-keys', { environment: 'live' }],
      ['delete', '/api-keys/{id}', null],
      ['post', '/accounts/{id}/credits', { amount: 1, reason: 'x' }],
      ['get', '/accounts/{id}/ledger', null],
    ])('%s %s refuses a missing, wrong or non-admin credential with 401 unauthorized', async (method, route, body) => {
      const { accountId, liveKey, liveKeyId } = await seedAccount(t);
      const path = route.replace('{id}', method === 'delete' ? liveKeyId : accountId);
      const credentials: Array<Record<string, string>> = [
        {},
        bearer('wrong-admin-token-0123456789'),
        bearer(`${TEST_ADMIN_TOKEN}x`),
        bearer(liveKey),
        { Authorization: TEST_ADMIN_TOKEN },
        { Authorization: `Token ${TEST_ADMIN_TOKEN}` },
      ];
      const before = await snapshot();
      for (const headers of credentials) {
        const req = call(method, path, headers);
        expectError(await (body ? req.send(body) : req), 401, 'unauthorized');
      }
      expect(await snapshot()).toEqual(before);
    });

    it('authenticates before validating or looking anything up', async () => {
      const wrong = bearer('wrong-admin-token-0123456789');
      expectError(await call('post', '/accounts', wrong).send({ name: 42 }), 401, 'unauthorized');
      expectError(await call('get', '/accounts/not-a-uuid', wrong), 401, 'unauthorized');
      expectError(await call('get', `/accounts/${randomUUID()}`, wrong), 401, 'unauthorized');
    });
  });

  describe('failed admin-token limit per client IP', () => {
    const METRICS_TOKEN = TEST_METRICS_TOKEN;
    let limited: TestApp;

    beforeAll(async () => {
      limited = await createTestApp(OPERATOR_TOKEN_LIMIT_SETTINGS);
    });
    afterAll(() => limited.close());

    const fromIp = (ip: string, headers: Record<string, string>) =>
      limited.http().get(`/admin/v1/accounts/${randomUUID()}`).set(headers).set('X-Forwarded-For', ip);

    it(
      'answers 429 rate_limit_exceeded with Retry-After once an IP has tried too many wrong tokens, ' +
        'while the right token still passes from it and other IPs are not affected',
      async () => {
        for (let i = 0; i < 3; i++) {
          expectError(await fromIp('203.0.113.80', bearer(`wrong-admin-token-${i}-0123456789`)), 401, 'unauthorized');
        }
        const refused = await fromIp('203.0.113.80', bearer('wrong-admin-token-x-0123456789'));
        expectError(refused, 429, 'rate_limit_exceeded');
        expect(refused.body.error.details).toMatchObject({ scope: 'ip', limit: 3 });
        expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);

        // The operator's token still works from that address (the account simply does not exist).
        expectError(await fromIp('203.0.113.80', admin), 404, 'not_found');
        await limited
          .http()
          .post('/admin/v1/accounts')
          .set(admin)
          .set('X-Forwarded-For', '203.0.113.80')
          .send({ name: 'Still allowed' })
          .expect(201);
        expectError(await fromIp('203.0.113.81', bearer('wrong-admin-token-y-0123456789')), 401, 'unauthorized');
      },
    );

    it('does not count a request without a token, which a browser sends before it prompts', async () => {
      for (let i = 0; i < 5; i++) expectError(await fromIp('203.0.113.82', {}), 401, 'unauthorized');
      expectError(await fromIp('203.0.113.82', bearer('wrong-admin-token-z-0123456789')), 401, 'unauthorized');
    });

    it('refuses METRICS_TOKEN on the admin API as a wrong token', async () => {
      for (let i = 0; i < 3; i++) expectError(await fromIp('203.0.113.83', bearer(METRICS_TOKEN)), 401, 'unauthorized');
      expectError(await fromIp('203.0.113.83', bearer(METRICS_TOKEN)), 429, 'rate_limit_exceeded');
    });

    it("counts an IP's wrong tokens on the admin API, Bull Board and /metrics together", async () => {
      const ip = '203.0.113.84';
      const wrong = bearer('wrong-admin-token-w-0123456789');
      expectError(await fromIp(ip, wrong), 401, 'unauthorized');
      expectError(await limited.http().get('/admin/queues').set(wrong).set('X-Forwarded-For', ip), 401, 'unauthorized');
      expectError(await limited.http().get('/metrics').set(wrong).set('X-Forwarded-For', ip), 401, 'unauthorized');
      expectError(await fromIp(ip, wrong), 429, 'rate_limit_exceeded');
    });
  });

  describe('when ADMIN_TOKEN is not configured', () => {
    let off: TestApp;

    beforeAll(async () => {
      off = await createTestApp({ ADMIN_TOKEN: '' });
    });
    afterAll(() => off.close());

    it('answers every admin route with 404 not_found, like an unknown route, whatever the credential', async () => {
      const { accountId, liveKeyId } = await seedAccount(off);
      const unknownRoute = await off.http().get('/admin/v1/no-such-route');
      expectError(unknownRoute, 404, 'not_found');

      const routes: Array<[Method, string, object?]> = [
        ['post', '/accounts', { name: 'x' }],
        ['get', `/accounts/${accountId}`],
        ['patch', `/accounts/${accountId}`, { api_access: false }],
        ['post', `/accounts/${accountId}/api-keys`, { environment: 'live' }],
        ['delete', `/api-keys/${liveKeyId}`],
        ['post', `/accounts/${accountId}/credits`, { amount: 1, reason: 'x' }],
        ['get', `/accounts/${accountId}/ledger`],
      ];
      for (const [method, path, body] of routes) {
        for (const headers of [{}, admin]) {
          const req = off.http()[method](`/admin/v1${path}`).set(headers);
          const res = await (body ? req.send(body) : req);
          expectError(res, 404, 'not_found');
          expect(res.body.error).toEqual(unknownRoute.body.error);
        }
      }
      const [{ count }] = await off.dataSource.query(`SELECT count(*)::int AS count FROM accounts`);
      expect(count).toBe(1);
    });
  });
});
