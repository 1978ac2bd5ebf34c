import { ImageJobsApiError, ImageJobsClient } from '../../packages/client/src';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { OUTBOUND_TLS } from '../../src/core/outbound/outbound.module';
import { listeningPort } from '../support/event-stream';
import { idempotencyKey, imageInputs, waitForJob, withFakeProvider } from '../support/jobs';
import { GENEROUS_CREATE_LIMITS } from '../support/limits';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';
import { readUntil } from '../support/waiting';
import { testCertificate, WebhookReceiver } from '../support/webhook-receiver';

/** The poll limit per key: room for every read of a test, and reachable in the rate-limit test. */
const POLLS_PER_KEY = 60;

const SETTINGS = {
  ...GENEROUS_CREATE_LIMITS,
  LIMIT_CREATES_PER_HOUR_IP: '1000',
  LIMIT_POLLS_PER_HOUR_KEY: String(POLLS_PER_KEY),
  LIMIT_POLLS_PER_HOUR_ACCOUNT: '1000',
  LIMIT_POLLS_PER_HOUR_IP: '10000',
  LIMIT_ACTIVE_JOBS_PER_KEY: '50',
  LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '50',
  OUTBOUND_ALLOWLIST: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1,1,1,1',
};

interface LedgerEntry {
  id: string;
  kind: string;
  amount: number;
  credits: number;
  job_id: string | null;
  reason: string | null;
  balance_after: number;
  created_at: string;
}

interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  job_id: string;
  status: string;
  attempts: number;
  attempt_log: Array<{ number: number; outcome: string; status_code: number | null; started_at: string }>;
}

const today = () => new Date().toISOString().slice(0, 10);

describe('account activity: ledger, usage and webhook deliveries of the key’s own account', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let account: SeededAccount;
  let other: SeededAccount;
  let liveJobId: string;
  let sandboxJobId: string;

  const get = (path: string, key: string) => t.http().get(`/api/v1${path}`).set(bearer(key));

  /** Every entry of the key's ledger, page by page (`limit` a page). */
  const wholeLedger = async (key: string, limit: number): Promise<LedgerEntry[][]> => {
    const pages: LedgerEntry[][] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=${limit}&cursor=${cursor}` : `?limit=${limit}`;
      const res = await get(`/account/ledger${query}`, key).expect(200);
      pages.push(res.body.entries);
      cursor = res.body.next_cursor;
    } while (cursor);
    return pages;
  };

  beforeAll(async () => {
    const { cert } = testCertificate();
    t = await createTestApp(SETTINGS, {
      role: ProcessRole.All,
      override: (builder) => withFakeProvider()(builder.overrideProvider(OUTBOUND_TLS).useValue({ ca: [cert] })),
    });
    receiver = await WebhookReceiver.start();
    account = await seedAccount(t, { credits: 100 });
    other = await seedAccount(t, { credits: 50, name: 'Another account' });
    // Live: 3 results at 1 credit each, one refused by the provider. Sandbox: 2 results, one simulated failure.
    const live = await t
      .http()
      .post('/api/v1/image/edit')
      .set(bearer(account.liveKey))
      .set('Idempotency-Key', idempotencyKey())
      .send({ input: imageInputs(3, (i) => (i === 1 ? 'fail-1' : `ok-${i}`)), webhook_url: receiver.url })
      .expect(202);
    liveJobId = live.body.job.id;
    const sandbox = await t
      .http()
      .post('/api/v1/image/edit')
      .set(bearer(account.sandboxKey))
      .set('Idempotency-Key', idempotencyKey())
      .send({ input: imageInputs(2, (i) => (i === 0 ? 'sandbox_fail_0' : `ok-${i}`)), webhook_url: receiver.url })
      .expect(202);
    sandboxJobId = sandbox.body.job.id;
    await waitForJob(t, liveJobId);
    await waitForJob(t, sandboxJobId);
    // One event per result and one per job, each delivered once: 4 live, 3 sandbox.
    await receiver.waitFor(7);
  });
  afterAll(async () => {
    await receiver.stop();
    await t.close();
  });

  describe('GET /account/ledger', () => {
    it('lists a live key’s ledger newest first with exact amounts and balances, as the balance shows', async () => {
      const res = await get('/account/ledger?limit=100', account.liveKey).expect(200);
      const entries: LedgerEntry[] = res.body.entries;
      expect(res.body.next_cursor).toBeNull();
      expect(entries).toHaveLength(5);
      const [settledA, settledB, settledC, reserve, grant] = entries;
      expect(grant).toMatchObject({ kind: 'grant', amount: 100, credits: 100, job_id: null, balance_after: 100 });
      expect(grant.reason).toBe('opening balance');
      expect(reserve).toMatchObject({ kind: 'reserve', amount: -3, credits: 3, job_id: liveJobId, balance_after: 97 });
      // The three settlements, in whatever order the results finished: two captures and one release.
      const settlements = [settledA, settledB, settledC];
      expect(settlements.map((e) => `${e.kind}:${e.amount}:${e.credits}`).sort()).toEqual([
        'capture:0:1',
        'capture:0:1',
        'release:1:1',
      ]);
      for (const entry of settlements) expect(entry.job_id).toBe(liveJobId);
      expect(settledA.balance_after).toBe(98);
      const account_ = (await get('/account', account.liveKey).expect(200)).body.account;
      expect(account_.paid_credits).toBe(98);
      const times = entries.map((e) => Date.parse(e.created_at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      expect(res.headers['ratelimit-limit']).toBe(String(POLLS_PER_KEY));
    });

    it('pages with the cursor: every entry once, in the same order as one page', async () => {
      const whole = (await get('/account/ledger?limit=100', account.liveKey).expect(200)).body.entries;
      const pages = await wholeLedger(account.liveKey, 2);
      expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
      expect(pages.flat()).toEqual(whole);
    });

    it('shows a sandbox key the grants and corrections only: sandbox jobs move no credits', async () => {
      const entries: LedgerEntry[] = (await get('/account/ledger', account.sandboxKey).expect(200)).body.entries;
      expect(entries).toEqual([expect.objectContaining({ kind: 'grant', amount: 100, balance_after: 100 })]);
    });

    it('shows another account its own ledger only', async () => {
      const entries: LedgerEntry[] = (await get('/account/ledger', other.liveKey).expect(200)).body.entries;
      expect(entries).toEqual([expect.objectContaining({ kind: 'grant', amount: 50, balance_after: 50 })]);
    });

    it.each([
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['limit=two', 'query.limit'],
      ['cursor=not-a-cursor', 'query.cursor'],
      [`cursor=${Buffer.from('["2026-01-01"]').toString('base64url')}`, 'query.cursor'],
      ['colour=red', 'query.colour'],
    ])('refuses %s with a 400 at %s', async (query, path) => {
      const res = await get(`/account/ledger?${query}`, account.liveKey).expect(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.errors.map((e: { path: string }) => e.path)).toContain(path);
    });

    it('refuses a request without a key', async () => {
      await t.http().get('/api/v1/account/ledger').expect(401);
    });
  });

  describe('GET /account/usage', () => {
    const figures = (credits: number, completed: number, failed: number) => ({
      credits_used: credits,
      results_completed: completed,
      results_failed: failed,
    });

    it('counts a live key’s credits and results by day and by tool, over the default 30 days', async () => {
      const usage = (await get('/account/usage', account.liveKey).expect(200)).body.usage;
      expect(usage.to).toBe(today());
      expect(usage.by_day).toHaveLength(30);
      expect(usage.by_day[0].date).toBe(usage.from);
      expect(usage.totals).toEqual(figures(2, 2, 1));
      expect(usage.by_day[29]).toEqual({ date: today(), ...figures(2, 2, 1) });
      expect(usage.by_day.slice(0, 29).every((day: Record<string, number>) => day.results_completed === 0)).toBe(true);
      expect(usage.by_tool).toEqual([{ tool: 'image_editing', ...figures(2, 2, 1) }]);
    });

    it('counts a sandbox key’s results without credits, over the range asked', async () => {
      const usage = (await get(`/account/usage?from=${today()}&to=${today()}`, account.sandboxKey).expect(200)).body
        .usage;
      expect(usage).toEqual({
        from: today(),
        to: today(),
        totals: figures(0, 1, 1),
        by_day: [{ date: today(), ...figures(0, 1, 1) }],
        by_tool: [{ tool: 'image_editing', ...figures(0, 1, 1) }],
      });
    });

    it('shows another account nothing of this one', async () => {
      const usage = (await get('/account/usage', other.liveKey).expect(200)).body.usage;
      expect(usage.totals).toEqual(figures(0, 0, 0));
      expect(usage.by_tool).toEqual([]);
    });

    it('takes a range that ends before today, and a whole leap year', async () => {
      const past = (await get('/account/usage?from=2024-01-01&to=2024-12-31', account.liveKey).expect(200)).body.usage;
      expect(past.by_day).toHaveLength(366);
      expect(past.totals).toEqual(figures(0, 0, 0));
    });

    it.each([
      ['from=2026-02-30', 'query.from'],
      ['from=2026-13-01', 'query.from'],
      ['from=27-11-2026', 'query.from'],
      ['to=yesterday', 'query.to'],
      ['from=2026-11-02&to=2026-11-01', 'query.from'],
      ['from=2025-01-01&to=2026-01-02', 'query.to'],
      ['days=7', 'query.days'],
    ])('refuses %s with a 400 at %s', async (query, path) => {
      const res = await get(`/account/usage?${query}`, account.liveKey).expect(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.errors.map((e: { path: string }) => e.path)).toEqual([path]);
    });
  });

  describe('GET /webhook-deliveries and POST /webhook-events/{eventId}/redeliver', () => {
    const deliveriesOf = async (key: string, query = '?limit=100'): Promise<Delivery[]> =>
      (await get(`/webhook-deliveries${query}`, key).expect(200)).body.deliveries;

    it('lists the deliveries of the key’s environment, each with its attempt', async () => {
      const live = await deliveriesOf(account.liveKey);
      expect(live).toHaveLength(4);
      expect(new Set(live.map((d) => d.job_id))).toEqual(new Set([liveJobId]));
      expect(live.map((d) => d.event_type).sort()).toEqual([
        'image_api.job.partially_completed',
        'image_api.result.completed',
        'image_api.result.completed',
        'image_api.result.failed',
      ]);
      for (const delivery of live) {
        expect(delivery).toMatchObject({ status: 'delivered', attempts: 1 });
        expect(delivery.attempt_log).toEqual([
          expect.objectContaining({ number: 1, outcome: 'delivered', status_code: 200, error: null }),
        ]);
      }
      const sandbox = await deliveriesOf(account.sandboxKey);
      expect(sandbox).toHaveLength(3);
      expect(new Set(sandbox.map((d) => d.job_id))).toEqual(new Set([sandboxJobId]));
      expect(await deliveriesOf(other.liveKey)).toEqual([]);
    });

    it('pages with the cursor', async () => {
      const whole = await deliveriesOf(account.liveKey);
      const first = (await get('/webhook-deliveries?limit=3', account.liveKey).expect(200)).body;
      expect(first.deliveries).toHaveLength(3);
      const second = (await get(`/webhook-deliveries?limit=3&cursor=${first.next_cursor}`, account.liveKey).expect(200))
        .body;
      expect(second.next_cursor).toBeNull();
      expect([...first.deliveries, ...second.deliveries].map((d: Delivery) => d.id)).toEqual(whole.map((d) => d.id));
      const bad = await get('/webhook-deliveries?cursor=abc', account.liveKey).expect(400);
      expect(bad.body.error.details.errors[0].path).toBe('query.cursor');
    });

    it('redelivers an event as a new delivery with a new attempt, seen in the list', async () => {
      const [original] = await deliveriesOf(account.liveKey);
      const before = receiver.received.length;
      const res = await t
        .http()
        .post(`/api/v1/webhook-events/${original.event_id}/redeliver`)
        .set(bearer(account.liveKey))
        .expect(202);
      expect(res.body.delivery).toMatchObject({ event_id: original.event_id, job_id: liveJobId });
      expect(res.body.delivery.id).not.toBe(original.id);
      const received = await receiver.waitFor(before + 1);
      expect(received[before].headers['x-service-event-id']).toBe(original.event_id);
      const listed = await readUntil(
        () => deliveriesOf(account.liveKey),
        (deliveries) => deliveries[0]?.attempts === 1,
        'the redelivery’s attempt in the list',
        { timeoutMs: 10_000, intervalMs: 200 },
      );
      expect(listed).toHaveLength(5);
      expect(listed[0]).toMatchObject({ id: res.body.delivery.id, event_id: original.event_id, status: 'delivered' });
      expect(listed[0].attempt_log).toEqual([expect.objectContaining({ number: 1, status_code: 200 })]);
    });

    it('answers 404 for another account’s event and for the other environment’s, 400 for a bad id', async () => {
      const [liveDelivery] = await deliveriesOf(account.liveKey);
      const post = (eventId: string, key: string) =>
        t.http().post(`/api/v1/webhook-events/${eventId}/redeliver`).set(bearer(key));
      const foreign = await post(liveDelivery.event_id, other.liveKey).expect(404);
      expect(foreign.body.error.code).toBe('not_found');
      await post(liveDelivery.event_id, account.sandboxKey).expect(404);
      await post('7d1c3a8e-4f4f-4d55-9a43-0a1d1f1e2b3c', account.liveKey).expect(404);
      const bad = await post('not-a-uuid', account.liveKey).expect(400);
      expect(bad.body.error.details.errors[0].path).toBe('path.eventId');
      // Nothing was queued by the refusals.
      expect(await deliveriesOf(account.liveKey)).toHaveLength(5);
    });
  });

  it('is safe to repeat: a redelivery still waiting for its attempt answers a repeat, queuing no more', async () => {
    const [latest] = (await get('/webhook-deliveries?limit=1', account.liveKey).expect(200)).body.deliveries;
    const redeliver = () =>
      t.http().post(`/api/v1/webhook-events/${latest.event_id}/redeliver`).set(bearer(account.liveKey)).expect(202);
    const before = (await get('/webhook-deliveries?limit=100', account.liveKey).expect(200)).body.deliveries.length;
    // The receiver holds its answer, so the redelivery's first attempt is still under way when the repeat comes.
    receiver.answer(() => ({ status: 200, delayMs: 1500 }));
    try {
      const first = (await redeliver()).body.delivery;
      const repeat = (await redeliver()).body.delivery;
      expect(repeat.id).toBe(first.id);
      await readUntil(
        async () => (await get('/webhook-deliveries?limit=1', account.liveKey).expect(200)).body.deliveries[0],
        (delivery) => delivery.id === first.id && delivery.attempts === 1,
        'the redelivery’s attempt',
        { timeoutMs: 10_000, intervalMs: 200 },
      );
      // Once attempted, a redelivery is a new delivery again.
      const after = (await redeliver()).body.delivery;
      expect(after.id).not.toBe(first.id);
      const listed = (await get('/webhook-deliveries?limit=100', account.liveKey).expect(200)).body.deliveries;
      expect(listed).toHaveLength(before + 2);
    } finally {
      receiver.answer(() => 200);
    }
  });

  it('reads the same through the typed client, and its redelivery', async () => {
    const client = new ImageJobsClient({
      apiKey: account.liveKey,
      baseUrl: `http://127.0.0.1:${await listeningPort(t)}`,
      maxRetries: 0,
    });
    const page = await client.ledger({ limit: 2 });
    expect(page.entries).toHaveLength(2);
    const next = await client.ledger({ limit: 2, cursor: page.next_cursor ?? undefined });
    expect(next.entries[0].id).not.toBe(page.entries[1].id);
    const { usage } = await client.usage({ from: today(), to: today() });
    expect(usage.totals).toEqual({ credits_used: 2, results_completed: 2, results_failed: 1 });
    const { deliveries } = await client.listWebhookDeliveries({ limit: 1 });
    const { delivery } = await client.redeliverWebhookEvent(deliveries[0].event_id);
    expect(delivery.event_id).toBe(deliveries[0].event_id);
    const refused = await client.usage({ from: '2026-02-30' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ImageJobsApiError);
    expect((refused as ImageJobsApiError).details).toEqual({
      errors: [{ path: 'query.from', message: 'is not a calendar date' }],
    });
  });

  it('counts the ledger, usage and deliveries against the key’s polling limit, shared with GET /jobs', async () => {
    const fresh = await seedAccount(t, { name: 'Polling account' });
    const paths = ['/account/ledger', '/account/usage', '/webhook-deliveries', '/jobs'];
    for (let i = 0; i < POLLS_PER_KEY; i++) {
      const res = await get(paths[i % paths.length], fresh.liveKey).expect(200);
      expect(res.headers['ratelimit-remaining']).toBe(String(POLLS_PER_KEY - i - 1));
    }
    for (const path of paths) {
      const refused = await get(path, fresh.liveKey).expect(429);
      expect(refused.body.error.code).toBe('rate_limit_exceeded');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });
});
