import { ProcessRole } from '../../src/core/bootstrap/role';
import { idempotencyKey, imageInputs, waitForJob } from '../support/jobs';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';

const GENEROUS_LIMITS = {
  LIMIT_CREATES_PER_HOUR_KEY: '1000',
  LIMIT_CREATES_PER_HOUR_ACCOUNT: '1000',
  LIMIT_CREATES_PER_HOUR_IP: '1000',
  LIMIT_POLLS_PER_HOUR_KEY: '1000',
  LIMIT_POLLS_PER_HOUR_ACCOUNT: '1000',
  LIMIT_POLLS_PER_HOUR_IP: '1000',
  LIMIT_ACTIVE_JOBS_PER_KEY: '100',
  LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '100',
};

interface Summary {
  id: string;
  api: string;
  status: string;
  created_at: string;
}

describe('reading jobs', () => {
  let t: TestApp;
  let account: SeededAccount;
  let other: SeededAccount;
  const created: Array<{ id: string; api: string }> = [];

  const create = (key: string, path: string, body: object) =>
    t.http().post(path).set(bearer(key)).set('Idempotency-Key', idempotencyKey()).send(body).expect(202);

  beforeAll(async () => {
    t = await createTestApp(GENEROUS_LIMITS, { role: ProcessRole.All });
    account = await seedAccount(t);
    other = await seedAccount(t);
    for (let i = 0; i < 7; i++) {
      const edit = await create(account.sandboxKey, '/api/v1/image/edit', { input: imageInputs(1) });
      created.push({ id: edit.body.job.id, api: 'image_editing' });
    }
    for (let i = 0; i < 3; i++) {
      const cutout = await create(account.sandboxKey, '/api/v1/remove-background', {
        input: imageInputs(1, () => `sandbox_fail_${i}`),
      });
      created.push({ id: cutout.body.job.id, api: 'remove_background' });
    }
    for (const job of created) await waitForJob(t, job.id);
  });
  afterAll(() => t.close());

  const list = (query: string, key = account.sandboxKey) => t.http().get(`/api/v1/jobs${query}`).set(bearer(key));

  it('pages through more jobs than a page holds, newest first, each exactly once', async () => {
    const seen: Summary[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { jobs: Summary[]; next_cursor: string | null } = (
        await list(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).expect(200)
      ).body;
      expect(page.jobs.length).toBeLessThanOrEqual(3);
      seen.push(...page.jobs);
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(seen.map((job) => job.id).sort()).toEqual(created.map((job) => job.id).sort());
    const order = seen.map((job) => `${job.created_at} ${job.id}`);
    expect(order).toEqual([...order].sort().reverse());
  });

  it('filters by status and by api, and combines the filters with pagination', async () => {
    const failed = await list('?status=failed').expect(200);
    expect(failed.body.jobs.map((job: Summary) => job.api)).toEqual(['remove_background', 'remove_background', 'remove_background']);
    const edits = await list('?api=image_editing&limit=5').expect(200);
    expect(edits.body.jobs).toHaveLength(5);
    expect(edits.body.jobs.every((job: Summary) => job.api === 'image_editing' && job.status === 'completed')).toBe(true);
    const rest = await list(`?api=image_editing&limit=5&cursor=${encodeURIComponent(edits.body.next_cursor)}`).expect(200);
    expect(rest.body.jobs).toHaveLength(2);
    expect(rest.body.next_cursor).toBeNull();
    expect((await list('?status=cancelled').expect(200)).body).toMatchObject({ jobs: [], next_cursor: null });
  });

  it('refuses bad limits, cursors and filters with 400 and the query path', async () => {
    for (const [query, path] of [
      ['?limit=0', 'query.limit'],
      ['?limit=101', 'query.limit'],
      ['?limit=abc', 'query.limit'],
      ['?status=done', 'query.status'],
      ['?api=photoshop', 'query.api'],
      ['?cursor=not-a-cursor', 'query.cursor'],
      ['?unknown=1', 'query.unknown'],
    ]) {
      const res = await list(query).expect(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
  });

  it('shows each key only its own account and environment', async () => {
    expect((await list('', other.sandboxKey).expect(200)).body.jobs).toEqual([]);
    expect((await list('', account.liveKey).expect(200)).body.jobs).toEqual([]);
    const [job] = created;
    await t.http().get(`/api/v1/jobs/${job.id}`).set(bearer(account.sandboxKey)).expect(200);
    for (const key of [other.sandboxKey, other.liveKey, account.liveKey]) {
      const res = await t.http().get(`/api/v1/jobs/${job.id}`).set(bearer(key)).expect(404);
      expect(res.body.error.code).toBe('not_found');
    }
    await t.http().get('/api/v1/jobs/5b0d7a52-5f63-4f0e-9d53-2d1c1f0e9a11').set(bearer(account.sandboxKey)).expect(404);
    await t.http().get('/api/v1/jobs/not-a-uuid').set(bearer(account.sandboxKey)).expect(400);
  });

  it('reads a product photo job at the enhancement endpoint and at GET /jobs/{id}', async () => {
    const images = [
      { source_url: 'https://images.example.com/a.jpg', external_id: 'sku-a' },
      { source_url: 'https://images.example.com/b.jpg', external_id: 'sandbox_fail_b' },
    ];
    const res = await create(account.sandboxKey, '/api/v1/product-photo-jobs', { images, preset: 'amazon_main_image' });
    expect(res.body).toMatchObject({ job: { total_items: 2, credits_reserved: 0, sandbox: true }, remaining_paid_credits: 100 });
    const id: string = res.body.job.id;
    await waitForJob(t, id);
    const enhancement = await t.http().get(`/api/v1/product-image-enhancements/${id}`).set(bearer(account.sandboxKey)).expect(200);
    const body = enhancement.body.enhancement;
    expect(body).toMatchObject({
      id,
      total_items: 2,
      completed_items: 1,
      failed_items: 1,
      credits_reserved: 0,
      credits_used: 0,
      sandbox: true,
      created_at: expect.any(String),
      completed_at: expect.any(String),
    });
    const items = body.items as Array<Record<string, unknown>>;
    expect(items.find((item) => item.external_id === 'sku-a')).toMatchObject({
      result_url: expect.stringContaining('/api/v1/files/'),
      thumbnail_url: expect.stringContaining('/api/v1/files/'),
      error_code: null,
    });
    expect(items.find((item) => item.external_id === 'sandbox_fail_b')).toMatchObject({
      result_url: null,
      error_code: 'sandbox_simulated_failure',
    });
    const job = await t.http().get(`/api/v1/jobs/${id}`).set(bearer(account.sandboxKey)).expect(200);
    expect(job.body.job).toMatchObject({ id, status: 'partially_completed' });
    expect(job.body.results).toHaveLength(2);
    await t.http().get(`/api/v1/product-image-enhancements/${id}`).set(bearer(other.sandboxKey)).expect(404);
    await t.http().get(`/api/v1/product-image-enhancements/${id}`).set(bearer(account.liveKey)).expect(404);
  });
});

describe('the poll rate limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ LIMIT_POLLS_PER_HOUR_KEY: '3', LIMIT_POLLS_PER_HOUR_ACCOUNT: '100', LIMIT_POLLS_PER_HOUR_IP: '100' });
  });
  afterAll(() => t.close());

  it('answers 429 rate_limit_exceeded with Retry-After and RateLimit headers once a key has polled its limit', async () => {
    const account = await seedAccount(t);
    const poll = () => t.http().get('/api/v1/jobs').set(bearer(account.sandboxKey));
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await poll().expect(200);
      expect(res.headers['ratelimit-limit']).toBe('3');
      remaining.push(res.headers['ratelimit-remaining']);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = await poll().expect(429);
    expect(refused.body.error.code).toBe('rate_limit_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.body.error.message).toMatch(/\d+ s|second|minute/);
    // Another key of another account is not affected.
    const other = await seedAccount(t);
    await t.http().get('/api/v1/jobs').set(bearer(other.sandboxKey)).expect(200);
  });
});
