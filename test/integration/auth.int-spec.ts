import { createHash, randomInt } from 'node:crypto';
import type { Response } from 'supertest';
import { AccessGuard } from '../../src/modules/auth/access.guard';
import { bearer, createTestApp, seedAccount, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app';

const ACCOUNT = '/api/v1/account';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (length: number) => Array.from({ length }, () => BASE62[randomInt(BASE62.length)]).join('');
const admin = bearer(TEST_ADMIN_TOKEN);

/** The error envelope of contract section 2, tied to the response's request id, with no stack trace. */
function expectError(res: Response, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.request_id).toEqual(expect.any(String));
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
  const raw = JSON.stringify(res.body);
  expect(raw).not.toMatch(/stack|\n\s+at |\.ts:\d+|node_modules/);
}

describe(AccessGuard.name, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const getAccount = (headers: Record<string, string> = {}) => t.http().get(ACCOUNT).set(headers);
  const patchAccount = (accountId: string, body: Record<string, unknown>) =>
    t.http().patch(`/admin/v1/accounts/${accountId}`).set(admin).send(body).expect(200);

  describe('refuses requests without a usable key with 401 unauthorized', () => {
    it('when the Authorization header is missing', async () => {
      expectError(await getAccount(), 401, 'unauthorized');
    });

    it.each([
      ['Basic', (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`],
      ['Token', (key: string) => `Token ${key}`],
      ['no scheme', (key: string) => key],
      ['Bearer without a token', () => 'Bearer '],
      ['Bearer glued to the key', (key: string) => `Bearer${key}`],
    ])('when the scheme is wrong (%s), even with a valid key', async (_label, header) => {
      const { liveKey } = await seedAccount(t);
      expectError(await getAccount({ Authorization: header(liveKey) }), 401, 'unauthorized');
    });

    it.each([
      ['not a key at all', 'hello'],
      ['too short', `sk_live_${base62(31)}`],
      ['unknown environment', `sk_test_${base62(40)}`],
      ['characters outside base62', `sk_live_${base62(39)}-`],
      ['two tokens', `sk_live_${base62(40)} sk_live_${base62(40)}`],
    ])('when the key is malformed (%s)', async (_label, key) => {
      expectError(await getAccount(bearer(key)), 401, 'unauthorized');
    });

    it.each(['live', 'sandbox'])('when a well-formed %s key is unknown, also on repeat (cached miss)', async (environment) => {
      const key = `sk_${environment}_${base62(40)}`;
      expectError(await getAccount(bearer(key)), 401, 'unauthorized');
      expectError(await getAccount(bearer(key)), 401, 'unauthorized');
    });

    it('when a key was revoked, from the very next request although its lookup was cached', async () => {
      const { liveKey, liveKeyId, sandboxKey } = await seedAccount(t);
      await getAccount(bearer(liveKey)).expect(200);
      await getAccount(bearer(liveKey)).expect(200);

      await t.http().delete(`/admin/v1/api-keys/${liveKeyId}`).set(admin).expect(204);

      expectError(await getAccount(bearer(liveKey)), 401, 'unauthorized');
      // Only that key: the account's other key keeps working.
      await getAccount(bearer(sandboxKey)).expect(200);
    });
  });

  it('accepts the Bearer scheme case-insensitively (RFC 9110)', async () => {
    const { liveKey } = await seedAccount(t);
    await getAccount({ Authorization: `bearer ${liveKey}` }).expect(200);
  });

  it('refuses an account without API access with 403 api_access_disabled', async () => {
    const { liveKey, sandboxKey } = await seedAccount(t, { apiAccess: false });
    expectError(await getAccount(bearer(liveKey)), 403, 'api_access_disabled');
    expectError(await getAccount(bearer(sandboxKey)), 403, 'api_access_disabled');
  });

  it('disabling and re-enabling API access takes effect on the next request', async () => {
    const { accountId, liveKey } = await seedAccount(t);
    await getAccount(bearer(liveKey)).expect(200);

    await patchAccount(accountId, { api_access: false });
    expectError(await getAccount(bearer(liveKey)), 403, 'api_access_disabled');

    await patchAccount(accountId, { api_access: true });
    await getAccount(bearer(liveKey)).expect(200);
  });

  it('refuses a restricted account with 403 account_restricted and details.restricted_until, until lifted', async () => {
    const { accountId, liveKey } = await seedAccount(t);
    await getAccount(bearer(liveKey)).expect(200);
    const until = new Date(Date.now() + 3600_000).toISOString();

    await patchAccount(accountId, { restricted_until: until });
    const res = await getAccount(bearer(liveKey));
    expectError(res, 403, 'account_restricted');
    expect(res.body.error.details).toEqual({ restricted_until: until });

    await patchAccount(accountId, { restricted_until: null });
    await getAccount(bearer(liveKey)).expect(200);
  });

  it('lets the key through when the restriction lies in the past', async () => {
    const { accountId, liveKey } = await seedAccount(t);
    await patchAccount(accountId, { restricted_until: new Date(Date.now() - 60_000).toISOString() });
    await getAccount(bearer(liveKey)).expect(200);
  });

  it('lets the key through once a restriction expires, without any operator action', async () => {
    const { accountId, liveKey } = await seedAccount(t);
    const until = new Date(Date.now() + 1500);
    await patchAccount(accountId, { restricted_until: until.toISOString() });
    expectError(await getAccount(bearer(liveKey)), 403, 'account_restricted');

    await new Promise((resolve) => setTimeout(resolve, until.getTime() - Date.now() + 100));
    await getAccount(bearer(liveKey)).expect(200);
  });

  it('accepts live and sandbox keys and reports which one called', async () => {
    const seeded = await seedAccount(t, { credits: 42, name: 'Both keys' });
    const live = await getAccount(bearer(seeded.liveKey)).expect(200);
    const sandbox = await getAccount(bearer(seeded.sandboxKey)).expect(200);

    const account = { id: seeded.accountId, name: 'Both keys', paid_credits: 42 };
    expect(live.body).toEqual({
      account,
      api_key: { id: seeded.liveKeyId, environment: 'live' },
      request_id: live.headers['x-request-id'],
    });
    expect(sandbox.body).toEqual({
      account,
      api_key: { id: seeded.sandboxKeyId, environment: 'sandbox' },
      request_id: sandbox.headers['x-request-id'],
    });
  });

  it('stores only the SHA-256 hex hash and a short display prefix of a key, never the secret', async () => {
    const seeded = await seedAccount(t);
    const rows: Array<{ id: string; secret_hash: string; prefix: string; as_text: string }> = await t.dataSource.query(
      `SELECT id, secret_hash, prefix, row_to_json(k)::text AS as_text FROM api_keys k WHERE account_id = $1`,
      [seeded.accountId],
    );
    expect(rows).toHaveLength(2);
    for (const [id, secret] of [
      [seeded.liveKeyId, seeded.liveKey],
      [seeded.sandboxKeyId, seeded.sandboxKey],
    ]) {
      const row = rows.find((r) => r.id === id);
      expect(row?.secret_hash).toBe(createHash('sha256').update(secret).digest('hex'));
      expect(secret.startsWith(row?.prefix ?? '!')).toBe(true);
      // A display prefix: the environment tag plus a few characters, far from the whole secret.
      expect(row?.prefix.length).toBeLessThanOrEqual(secret.indexOf('_', 3) + 1 + 8);
      expect(row?.as_text).not.toContain(secret.slice(-32));
    }
  });
});
