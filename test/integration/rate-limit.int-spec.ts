import { RateLimitService } from '../../src/modules/rate-limit/rate-limit.service';
import { RateLimitKind } from '../../src/modules/rate-limit/rate-limit.types';
import { bearer, createTestApp, seedAccount, type TestApp } from '../support/test-app';

describe(RateLimitService.name, () => {
  let t: TestApp;
  let limits: RateLimitService;

  beforeAll(async () => {
    t = await createTestApp({
      RATE_LIMIT_WINDOW_SECONDS: '2',
      LIMIT_CREATES_PER_HOUR_KEY: '5',
      LIMIT_CREATES_PER_HOUR_ACCOUNT: '8',
      LIMIT_CREATES_PER_HOUR_IP: '10',
    });
    limits = t.app.get(RateLimitService);
  });
  afterAll(() => t.close());

  const subject = (keyId: string, accountId = `account-${keyId}`, ip = `ip-${keyId}`) => ({ keyId, accountId, ip });

  it('admits exactly the limit among 50 concurrent requests and nothing more', async () => {
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limits.consume(RateLimitKind.Create, subject('burst'))));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused.every((d) => d.scope === 'key' && d.retryAfterSeconds !== null && d.retryAfterSeconds >= 1)).toBe(true);
    expect(decisions.filter((d) => d.allowed).map((d) => d.remaining).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('slides: a slot comes back when the oldest request leaves the window', async () => {
    for (let i = 0; i < 5; i++) expect((await limits.consume(RateLimitKind.Create, subject('slide'))).allowed).toBe(true);
    expect((await limits.consume(RateLimitKind.Create, subject('slide'))).allowed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 2100));
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
      ['true', [200, 429, 200]],
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
