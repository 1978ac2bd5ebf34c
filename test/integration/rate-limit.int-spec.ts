import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Response } from 'supertest';
import { RateLimitService } from '../../src/modules/rate-limit/rate-limit.service';
import { RateLimitKind } from '../../src/modules/rate-limit/rate-limit.types';
import { REDIS } from '../../src/core/redis/redis.module';
import { expectError } from '../support/http-errors';
import { PrivateRedis } from '../support/private-redis';
import { idempotencyKey, imageInputs, withFakeProvider } from '../support/jobs';
import { bearer, createTestApp, seedAccount, type TestApp } from '../support/test-app';

/** What Redis Cluster hashes a key by: the first non-empty `{...}`, else the whole key. */
function hashedPartOf(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

/** The 429 envelope of contract section 2 with the headers of section 10. */
function expectRateLimited(res: Response, limit: number): void {
  expect(expectError(res, 429, 'rate_limit_exceeded')).toMatchObject({ details: { limit } });
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-remaining']).toBe('0');
}

const WINDOW_SECONDS = 3600;

describe(RateLimitService.name, () => {
  let t: TestApp;
  let limits: RateLimitService;

  beforeAll(async () => {
    t = await createTestApp({
      // Longer than the tests take, whatever the machine's load: the slide is made by aging entries.
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
      LIMIT_CREATES_PER_HOUR_KEY: '5',
      LIMIT_CREATES_PER_HOUR_ACCOUNT: '8',
      LIMIT_CREATES_PER_HOUR_IP: '10',
    });
    limits = t.app.get(RateLimitService);
  });
  afterAll(() => t.close());

  const subject = (keyId: string, accountId = `account-${keyId}`, ip = `ip-${keyId}`) => ({ keyId, accountId, ip });

  it('admits exactly the limit among 50 concurrent requests and nothing more', async () => {
    const decisions = await Promise.all(
      Array.from({ length: 50 }, () => limits.consume(RateLimitKind.Create, subject('burst'))),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused.every((d) => d.scope === 'key' && d.retryAfterSeconds !== null && d.retryAfterSeconds >= 1)).toBe(
      true,
    );
    expect(
      decisions
        .filter((d) => d.allowed)
        .map((d) => d.remaining)
        .sort(),
    ).toEqual([0, 1, 2, 3, 4]);
  });

  it('slides: a slot comes back when the oldest request leaves the window', async () => {
    for (let i = 0; i < 5; i++)
      expect((await limits.consume(RateLimitKind.Create, subject('slide'))).allowed).toBe(true);
    expect((await limits.consume(RateLimitKind.Create, subject('slide'))).allowed).toBe(false);
    // The window slides past the oldest request: its entry in each scope is moved a window back.
    const redis = t.app.get<Redis>(REDIS);
    const keys = await redis.keys(`${t.config.REDIS_KEY_PREFIX}:rl:{${RateLimitKind.Create}}:*slide`);
    expect(keys).toHaveLength(3);
    for (const key of keys) {
      const [oldest, at] = await redis.zrange(key, '0', '0', 'WITHSCORES');
      await redis.zadd(key, 'XX', String(Number(at) - WINDOW_SECONDS * 1000), oldest);
    }
    expect((await limits.consume(RateLimitKind.Create, subject('slide'))).allowed).toBe(true);
  });

  it('counts an account across its keys and an IP across accounts, all-or-nothing', async () => {
    for (let i = 0; i < 4; i++) await limits.consume(RateLimitKind.Create, subject('a1', 'shared-account', 'ip-a'));
    for (let i = 0; i < 4; i++) await limits.consume(RateLimitKind.Create, subject('a2', 'shared-account', 'ip-a'));
    const byAccount = await limits.consume(RateLimitKind.Create, subject('a3', 'shared-account', 'ip-a'));
    expect(byAccount).toMatchObject({ allowed: false, scope: 'account', limit: 8 });
    // The refusal consumed nothing anywhere: the IP still has 2 of its 10.
    const otherAccount = await limits.consume(RateLimitKind.Create, subject('b1', 'other-account', 'ip-a'));
    expect(otherAccount).toMatchObject({ allowed: true, remaining: 1 });
    await limits.consume(RateLimitKind.Create, subject('b1', 'other-account', 'ip-a'));
    expect(await limits.consume(RateLimitKind.Create, subject('b2', 'third-account', 'ip-a'))).toMatchObject({
      allowed: false,
      scope: 'ip',
    });
  });

  it('reports the room left after a refund', async () => {
    const first = await limits.consume(RateLimitKind.Create, subject('refund-room'));
    expect(first.remaining).toBe(4);
    expect(await limits.refund(RateLimitKind.Create, subject('refund-room'), first.token as string)).toMatchObject({
      limit: 5,
      remaining: 5,
      scope: 'key',
    });
  });

  it('keeps the keys of one call in one Redis Cluster slot, so the script never fails with CROSSSLOT', async () => {
    const redis = t.app.get<Redis>(REDIS);
    for (const kind of [RateLimitKind.Create, RateLimitKind.Poll]) {
      const call = subject(
        `slot-${kind}`,
        `slot-account-${kind}`,
        `198.51.100.${kind === RateLimitKind.Create ? 1 : 2}`,
      );
      const decision = await limits.consume(kind, call);
      const keys = await redis.keys(`${t.config.REDIS_KEY_PREFIX}:rl:*${call.keyId}`);
      keys.push(...(await redis.keys(`${t.config.REDIS_KEY_PREFIX}:rl:*${call.accountId}`)));
      keys.push(...(await redis.keys(`${t.config.REDIS_KEY_PREFIX}:rl:*${call.ip}`)));
      expect(keys).toHaveLength(3);
      expect(new Set(keys.map(hashedPartOf)).size).toBe(1);
      await limits.refund(kind, call, decision.token as string);
    }
  });

  it('answers the first checks of a new connection to a new Redis, batched with another command', async () => {
    // A Redis of its own, whose script cache is empty: the first checks fall back from EVALSHA to EVAL.
    const server = await PrivateRedis.start();
    // Like the API's shared connection: the commands of one event-loop turn go out as one batch.
    const connection = new Redis(server.url, { enableAutoPipelining: true });
    try {
      const onNewConnection = new RateLimitService(connection, t.config);
      // A readiness probe's PING opens the turn's batch before the connection's first limit check.
      const [pong, ...decisions] = await Promise.all([
        connection.ping(),
        ...Array.from({ length: 3 }, () => onNewConnection.consume(RateLimitKind.Create, subject('new-connection'))),
      ]);
      expect(pong).toBe('PONG');
      expect(decisions.map((decision) => decision.remaining).sort()).toEqual([2, 3, 4]);
    } finally {
      connection.disconnect();
      await server.kill();
    }
  });

  it('gives a refunded slot back in every scope', async () => {
    const first = await limits.consume(RateLimitKind.Create, subject('refund'));
    for (let i = 0; i < 4; i++) await limits.consume(RateLimitKind.Create, subject('refund'));
    expect((await limits.consume(RateLimitKind.Create, subject('refund'))).allowed).toBe(false);
    await limits.refund(RateLimitKind.Create, subject('refund'), first.token as string);
    expect((await limits.consume(RateLimitKind.Create, subject('refund'))).allowed).toBe(true);
  });
});

describe('per-IP limits behind a proxy (TRUST_PROXY)', () => {
  const poll = (t: TestApp, key: string, forwardedFor: string) =>
    t.http().get('/api/v1/jobs').set(bearer(key)).set('X-Forwarded-For', forwardedFor);

  it('counts clients by X-Forwarded-For when the proxy is trusted, and by the socket when not', async () => {
    for (const [trust, expectations] of [
      ['1', [200, 429, 200]],
      ['loopback', [200, 429, 200]],
      ['false', [200, 429, 429]],
    ] as const) {
      const t = await createTestApp({ TRUST_PROXY: trust, LIMIT_POLLS_PER_HOUR_IP: '1' });
      try {
        const account = await seedAccount(t);
        const statuses = [
          (await poll(t, account.sandboxKey, '203.0.113.1')).status,
          (await poll(t, account.sandboxKey, '203.0.113.1')).status,
          (await poll(t, account.sandboxKey, '203.0.113.2')).status,
        ];
        expect(statuses).toEqual(expectations);
      } finally {
        await t.close();
      }
    }
  });
});

describe('rate limits of the job endpoints', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(
      {
        LIMIT_CREATES_PER_HOUR_KEY: '3',
        LIMIT_CREATES_PER_HOUR_ACCOUNT: '100',
        LIMIT_CREATES_PER_HOUR_IP: '100',
        LIMIT_POLLS_PER_HOUR_KEY: '3',
        LIMIT_POLLS_PER_HOUR_ACCOUNT: '100',
        LIMIT_POLLS_PER_HOUR_IP: '100',
        LIMIT_ACTIVE_JOBS_PER_KEY: '10',
        LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '10',
        RATE_LIMIT_WINDOW_SECONDS: '60',
      },
      { override: withFakeProvider() },
    );
  });
  afterAll(() => t.close());

  const create = (key: string) =>
    t
      .http()
      .post('/api/v1/image/edit')
      .set(bearer(key))
      .set('Idempotency-Key', idempotencyKey())
      .send({ input: imageInputs(1) });

  it('counts GET /product-image-enhancements/{id} against the polling limit, with GET /jobs', async () => {
    const { sandboxKey } = await seedAccount(t);
    const enhancement = () =>
      t.http().get(`/api/v1/product-image-enhancements/${randomUUID()}`).set(bearer(sandboxKey));
    const first = await enhancement();
    expect(first.status).toBe(404);
    expect(first.headers).toMatchObject({ 'ratelimit-limit': '3', 'ratelimit-remaining': '2' });
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    expect((await t.http().get('/api/v1/jobs').set(bearer(sandboxKey))).headers['ratelimit-remaining']).toBe('1');
    expect((await enhancement()).headers['ratelimit-remaining']).toBe('0');
    const refused = await enhancement();
    expectRateLimited(refused, 3);
    expect(refused.body.error.details).toMatchObject({ scope: 'key' });
  });

  it(
    'counts POST /jobs/{id}/cancel against the create ' + 'limit, giving the slot back when the cancel is refused',
    async () => {
      const { sandboxKey } = await seedAccount(t);
      const created = await create(sandboxKey);
      expect(created.status).toBe(202);
      expect(created.headers['ratelimit-remaining']).toBe('2');
      const cancel = (id: string) => t.http().post(`/api/v1/jobs/${id}/cancel`).set(bearer(sandboxKey));

      const cancelled = await cancel(created.body.job.id);
      expect(cancelled.status).toBe(200);
      expect(cancelled.headers).toMatchObject({ 'ratelimit-limit': '3', 'ratelimit-remaining': '1' });

      const unknown = await cancel(randomUUID());
      expect(unknown.status).toBe(404);
      expect(unknown.headers['ratelimit-remaining']).toBe('1');

      expect((await cancel(created.body.job.id)).headers['ratelimit-remaining']).toBe('0');
      const refused = await cancel(created.body.job.id);
      expectRateLimited(refused, 3);
      // Cancels spend the create budget, not the polling one.
      expect((await t.http().get('/api/v1/jobs').set(bearer(sandboxKey))).headers['ratelimit-remaining']).toBe('2');
    },
  );

  it("reports the slot a refused create gave back in that response's RateLimit-Remaining", async () => {
    const { liveKey } = await seedAccount(t, { credits: 0 });
    for (let i = 0; i < 2; i++) {
      const refused = await create(liveKey);
      expect(refused.status).toBe(402);
      expect(refused.body.error.code).toBe('insufficient_credits');
      expect(refused.headers).toMatchObject({ 'ratelimit-limit': '3', 'ratelimit-remaining': '3' });
    }
  });
});
