import { createHash, randomInt } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { REDIS_SUBSCRIBER } from '../../src/core/redis/redis.module';
import { ApiKey } from '../../src/modules/auth/api-key.entity';
import { AccessGuard } from '../../src/modules/auth/access.guard';
import { expectError } from '../support/http-errors';
import { EventStream, listeningPort } from '../support/event-stream';
import { createSecondInstance } from '../support/second-instance';
import { TcpProxy } from '../support/tcp-proxy';
import { bearer, createTestApp, seedAccount, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app';
import { testServices } from '../support/test-services';
import { readUntil, until } from '../support/waiting';

const ACCOUNT = '/api/v1/account';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (length: number) => Array.from({ length }, () => BASE62[randomInt(BASE62.length)]).join('');
const admin = bearer(TEST_ADMIN_TOKEN);

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

    it.each(['live', 'sandbox'])(
      'when a well-formed %s key is unknown, also on repeat (cached miss)',
      async (environment) => {
        const key = `sk_${environment}_${base62(40)}`;
        expectError(await getAccount(bearer(key)), 401, 'unauthorized');
        expectError(await getAccount(bearer(key)), 401, 'unauthorized');
      },
    );

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

  it(
    'refuses a restricted account with 403 account_restricted ' + 'and details.restricted_until, until lifted',
    async () => {
      const { accountId, liveKey } = await seedAccount(t);
      await getAccount(bearer(liveKey)).expect(200);
      const restrictedUntil = new Date(Date.now() + 3600_000).toISOString();

      await patchAccount(accountId, { restricted_until: restrictedUntil });
      const res = await getAccount(bearer(liveKey));
      expectError(res, 403, 'account_restricted');
      expect(res.body.error.details).toEqual({ restricted_until: restrictedUntil });

      await patchAccount(accountId, { restricted_until: null });
      await getAccount(bearer(liveKey)).expect(200);
    },
  );

  it('lets the key through when the restriction lies in the past', async () => {
    const { accountId, liveKey } = await seedAccount(t);
    await patchAccount(accountId, { restricted_until: new Date(Date.now() - 60_000).toISOString() });
    await getAccount(bearer(liveKey)).expect(200);
  });

  it('lets the key through once a restriction expires, without any operator action', async () => {
    const { accountId, liveKey } = await seedAccount(t);
    const restrictedUntil = new Date(Date.now() + 3600_000);
    await patchAccount(accountId, { restricted_until: restrictedUntil.toISOString() });
    expectError(await getAccount(bearer(liveKey)), 403, 'account_restricted');

    // The service's clock moves past the restriction, and nothing else changes.
    const realNow = Date.now;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 3600_000 + 1000);
    try {
      await getAccount(bearer(liveKey)).expect(200);
    } finally {
      clock.mockRestore();
    }
  });

  it('accepts live and sandbox keys and reports which one called', async () => {
    const seeded = await seedAccount(t, { credits: 42, name: 'Both keys' });
    const live = await getAccount(bearer(seeded.liveKey)).expect(200);
    const sandbox = await getAccount(bearer(seeded.sandboxKey)).expect(200);

    const account = { id: seeded.accountId, name: 'Both keys', paid_credits: 42, review_threshold: 0.539 };
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

describe('failed authentication limit per client IP', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      LIMIT_FAILED_AUTH_PER_HOUR_IP: '3',
      // One load balancer in front: the last X-Forwarded-For entry, the one it appends, is the client.
      TRUST_PROXY: '1',
      RATE_LIMIT_WINDOW_SECONDS: '60',
    });
  });
  afterAll(() => t.close());

  /** A request as the load balancer passes it on: `forwardedFor` ends with the client address it saw. */
  const fromIp = (forwardedFor: string, key: string) =>
    t.http().get(ACCOUNT).set(bearer(key)).set('X-Forwarded-For', forwardedFor);
  const randomKey = () => `sk_live_${base62(40)}`;
  const failThrice = async (forwardedFor: string) => {
    for (let i = 0; i < 3; i++) expectError(await fromIp(forwardedFor, randomKey()), 401, 'unauthorized');
  };

  it(
    'answers 429 rate_limit_exceeded with Retry-After once an IP has failed too often, ' +
      'looking a new guess up once by its hash and a repeated or malformed one not at all',
    async () => {
      const repeated = randomKey();
      expectError(await fromIp('203.0.113.10', repeated), 401, 'unauthorized');
      for (let i = 0; i < 2; i++) expectError(await fromIp('203.0.113.10', randomKey()), 401, 'unauthorized');

      const lookups = jest.spyOn(t.dataSource.getRepository(ApiKey), 'findOne');
      try {
        for (const key of [repeated, 'sk_live_malformed', randomKey()]) {
          const refused = await fromIp('203.0.113.10', key);
          expectError(refused, 429, 'rate_limit_exceeded');
          expect(refused.body.error.details).toMatchObject({ scope: 'ip', limit: 3 });
          expect(refused.headers['retry-after']).toMatch(/^\d+$/);
          expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
          expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
        }
        // Only the new well-formed guess reached the database.
        expect(lookups).toHaveBeenCalledTimes(1);
      } finally {
        lookups.mockRestore();
      }
      // Other IPs are not affected.
      expectError(await fromIp('203.0.113.11', randomKey()), 401, 'unauthorized');
    },
  );

  it(
    'lets a valid key through from an IP that has used up its failures, ' + 'although no lookup of it was cached',
    async () => {
      await failThrice('203.0.113.60');
      expectError(await fromIp('203.0.113.60', randomKey()), 429, 'rate_limit_exceeded');

      // Behind a proxy that hides client addresses every client shares one IP: another client's key must still work.
      const { liveKey, sandboxKey } = await seedAccount(t);
      await fromIp('203.0.113.60', liveKey).expect(200);
      await fromIp('203.0.113.60', sandboxKey).expect(200);
      expectError(await fromIp('203.0.113.60', randomKey()), 429, 'rate_limit_exceeded');
    },
  );

  it('counts concurrent guesses exactly: as many as the limit get 401, the others 429', async () => {
    const guesses = Array.from({ length: 10 }, () => fromIp('203.0.113.30', randomKey()));
    const statuses = (await Promise.all(guesses)).map((res) => res.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(7);
  });

  it("never refuses valid keys for other keys' failures in flight: valid keys do not count", async () => {
    const keys = await Promise.all(Array.from({ length: 6 }, () => seedAccount(t).then((seeded) => seeded.liveKey)));
    const guesses = Array.from({ length: 6 }, () => fromIp('203.0.113.50', randomKey()));
    const answers = await Promise.all([...keys.map((key) => fromIp('203.0.113.50', key)), ...guesses]);
    expect(answers.slice(0, keys.length).map((res) => res.status)).toEqual(keys.map(() => 200));
  });

  it('does not count a valid key looked up from the database', async () => {
    const { liveKey } = await seedAccount(t);
    await fromIp('203.0.113.40', liveKey).expect(200);
    await failThrice('203.0.113.40');
    expectError(await fromIp('203.0.113.40', randomKey()), 429, 'rate_limit_exceeded');
  });

  it(
    'counts malformed and revoked keys as failures too, ' + 'and answers a revoked key 429 once over the limit',
    async () => {
      const { liveKey, liveKeyId } = await seedAccount(t);
      await t.http().delete(`/admin/v1/api-keys/${liveKeyId}`).set(admin).expect(204);
      expectError(await fromIp('203.0.113.20', liveKey), 401, 'unauthorized');
      expectError(await fromIp('203.0.113.20', 'sk_live_short'), 401, 'unauthorized');
      expectError(await fromIp('203.0.113.20', randomKey()), 401, 'unauthorized');
      expectError(await fromIp('203.0.113.20', liveKey), 429, 'rate_limit_exceeded');
    },
  );

  describe('behind one trusted proxy (TRUST_PROXY=1), with X-Forwarded-For written by the client', () => {
    it('keeps counting the address the proxy saw however the client changes the entries before it', async () => {
      const attacker = '198.51.100.7';
      for (let i = 0; i < 3; i++) {
        expectError(await fromIp(`10.9.${i}.1, 192.0.2.${i}, ${attacker}`, randomKey()), 401, 'unauthorized');
      }
      for (const spoofed of ['10.9.9.9', '192.0.2.200, 192.0.2.201', '2001:db8::1', 'unknown']) {
        expectError(await fromIp(`${spoofed}, ${attacker}`, randomKey()), 429, 'rate_limit_exceeded');
      }
    });

    it('does not lock out a victim whose address an attacker writes into X-Forwarded-For', async () => {
      const victim = '203.0.113.99';
      const attacker = '198.51.100.8';
      await failThrice(`${victim}, ${attacker}`);
      expectError(await fromIp(`${victim}, ${attacker}`, randomKey()), 429, 'rate_limit_exceeded');

      // The victim's own requests, as the proxy passes them on: a mistyped key is still only a 401.
      expectError(await fromIp(victim, randomKey()), 401, 'unauthorized');
      const { liveKey } = await seedAccount(t);
      await fromIp(victim, liveKey).expect(200);
    });
  });
});

describe('key revocation across API instances', () => {
  // The longest lookup cache the configuration allows: only the invalidation can explain a refusal within the test.
  const CACHE_TTL_SECONDS = 300;
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    first = await createTestApp({ AUTH_CACHE_TTL_SECONDS: String(CACHE_TTL_SECONDS) });
    second = await createSecondInstance(first);
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it(
    'refuses a key on the second instance as soon as the ' + 'first revokes it, although the second had it cached',
    async () => {
      const { liveKey, liveKeyId, sandboxKey } = await seedAccount(first);
      await first.http().get(ACCOUNT).set(bearer(liveKey)).expect(200);
      await second.http().get(ACCOUNT).set(bearer(liveKey)).expect(200);
      await second.http().get(ACCOUNT).set(bearer(sandboxKey)).expect(200);

      // The second instance answers from its cache now: no database lookup for the key.
      const lookups = jest.spyOn(second.dataSource.getRepository(ApiKey), 'findOne');
      try {
        await second.http().get(ACCOUNT).set(bearer(liveKey)).expect(200);
        expect(lookups).not.toHaveBeenCalled();
      } finally {
        lookups.mockRestore();
      }

      await first.http().delete(`/admin/v1/api-keys/${liveKeyId}`).set(admin).expect(204);

      // The cache's TTL (300 s) outlasts the test, so only the invalidation, published through
      // Redis, can make the second instance refuse the key it holds.
      const refused = await readUntil(
        () => second.http().get(ACCOUNT).set(bearer(liveKey)),
        (res) => res.status !== 200,
        'the second instance to refuse the revoked key',
        { intervalMs: 20 },
      );
      expectError(refused, 401, 'unauthorized');
      expectError(await first.http().get(ACCOUNT).set(bearer(liveKey)), 401, 'unauthorized');
      // Only that key: the account's other key, cached on the second instance too, keeps working there.
      await second.http().get(ACCOUNT).set(bearer(sandboxKey)).expect(200);
    },
  );

  it("applies an account change made on the first instance to the second instance's cached keys", async () => {
    const { accountId, liveKey } = await seedAccount(first);
    await second.http().get(ACCOUNT).set(bearer(liveKey)).expect(200);

    await first.http().patch(`/admin/v1/accounts/${accountId}`).set(admin).send({ api_access: false }).expect(200);

    // As above, within the cache's TTL: the change reached the second instance's cache.
    await until(
      async () => (await second.http().get(ACCOUNT).set(bearer(liveKey))).status !== 200,
      'the second instance to see the change',
      { intervalMs: 20 },
    );
    expectError(await second.http().get(ACCOUNT).set(bearer(liveKey)), 403, 'api_access_disabled');
  });
});

describe('key revocation published while an instance had lost its Redis subscription', () => {
  // The longest lookup cache the configuration allows: only the service's recovery can explain
  // a refusal within the test.
  const CACHE_TTL_SECONDS = 300;
  let first: TestApp;
  let second: TestApp;
  let partition: TcpProxy;
  let secondPort: number;

  beforeAll(async () => {
    first = await createTestApp({
      AUTH_CACHE_TTL_SECONDS: String(CACHE_TTL_SECONDS),
      LIVE_EVENTS_HEARTBEAT_SECONDS: '1',
    });
    // The second instance reaches Redis through a relay the test can cut, as a network fault
    // between it and Redis would.
    const { redisUrl } = testServices();
    partition = await TcpProxy.start(redisUrl);
    second = await createSecondInstance(first, ProcessRole.Api, undefined, partition.urlFor(redisUrl));
    secondPort = await listeningPort(second);
  });
  afterAll(async () => {
    partition?.heal();
    await second?.close();
    await partition?.close();
    await first?.close();
  });

  it(
    'refuses the key on that instance once its subscription is back, ' +
      "and ends the key's event streams there while other keys' streams stay open",
    async () => {
      const { liveKey, liveKeyId, sandboxKey } = await seedAccount(first);
      await second.http().get(ACCOUNT).set(bearer(liveKey)).expect(200);
      const revokedStream = await EventStream.ready(secondPort, liveKey);
      const siblingStream = await EventStream.ready(secondPort, sandboxKey);
      const subscriber = second.app.get<symbol, Redis>(REDIS_SUBSCRIBER);
      try {
        partition.cut();
        await until(() => subscriber.status !== 'ready', 'the second instance to lose its subscription', {
          intervalMs: 20,
        });

        // Published to Redis while the second instance is not subscribed: that message never reaches it.
        await first.http().delete(`/admin/v1/api-keys/${liveKeyId}`).set(admin).expect(204);
        // Nor does its cache vouch for the key meanwhile (Redis being away, the refusal may be a 503).
        expect((await second.http().get(ACCOUNT).set(bearer(liveKey))).status).not.toBe(200);

        partition.heal();
        const refused = await readUntil(
          () => second.http().get(ACCOUNT).set(bearer(liveKey)),
          (res) => res.status === 401,
          (last) => `the second instance to refuse the revoked key (last: ${last.status})`,
          { timeoutMs: 15_000, intervalMs: 50 },
        );
        expectError(refused, 401, 'unauthorized');
        await revokedStream.waitForEnd();
        expect(revokedStream.events).toContainEqual({ event: 'closing', data: { reason: 'credentials_changed' } });

        // The account's other key keeps working there, and its stream stays open, told to re-read.
        await second.http().get(ACCOUNT).set(bearer(sandboxKey)).expect(200);
        await siblingStream.waitFor((event) => event.event === 'resync', 'the resync of the open stream');
        const heartbeats = siblingStream.comments.length;
        await until(
          () => siblingStream.comments.length > heartbeats,
          'a heartbeat on the open stream after the resync',
        );
        expect(siblingStream.ended).toBe(false);
        expect(siblingStream.events.map((event) => event.event)).not.toContain('closing');
      } finally {
        revokedStream.close();
        siblingStream.close();
      }
    },
  );
});
