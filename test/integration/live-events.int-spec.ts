import { ImageJobsApiError, ImageJobsClient, type LiveEvent } from '../../packages/client/src';
import { ProcessRole } from '../../src/core/bootstrap/role';
import type { Redis } from 'ioredis';
import { HealthService } from '../../src/core/health/health.service';
import { REDIS_SUBSCRIBER } from '../../src/core/redis/redis.module';
import { EventStream, listeningPort, type StreamEvent } from '../support/event-stream';
import { idempotencyKey, imageInputs, waitForJob, withFakeProvider } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { createSecondInstance } from '../support/second-instance';
import {
  bearer,
  createTestApp,
  seedAccount,
  TEST_ADMIN_TOKEN,
  type SeededAccount,
  type TestApp,
} from '../support/test-app';
import { sleep, until } from '../support/waiting';

const STREAMS_PER_KEY = 2;
const SETTINGS = {
  ...GENEROUS_LIMITS,
  LIMIT_CREATES_PER_HOUR_IP: '1000',
  LIMIT_POLLS_PER_HOUR_KEY: '100',
  LIVE_EVENTS_MAX_STREAMS_PER_KEY: String(STREAMS_PER_KEY),
  LIVE_EVENTS_HEARTBEAT_SECONDS: '1',
  SANDBOX_SLOW_SECONDS: '3',
};

const createJob = (t: TestApp, key: string, input = imageInputs(2)) =>
  t
    .http()
    .post('/api/v1/image/edit')
    .set(bearer(key))
    .set('Idempotency-Key', idempotencyKey())
    .send({ input })
    .expect(202)
    .then((res) => res.body.job.id as string);

const resultIdsOf = async (t: TestApp, jobId: string): Promise<string[]> =>
  (await t.dataSource.query(`SELECT id FROM job_results WHERE job_id = $1 ORDER BY index`, [jobId])).map(
    (row: { id: string }) => row.id,
  );

/** The statuses a stream announced for the job (`job` events) and for each result id. */
function statusesOf(events: StreamEvent[], jobId: string) {
  const mine = events.filter((event) => event.data.job_id === jobId);
  const results = new Map<string, string[]>();
  for (const event of mine.filter((e) => e.event === 'result')) {
    const id = String(event.data.result_id);
    results.set(id, [...(results.get(id) ?? []), String(event.data.status)]);
  }
  return { job: mine.filter((e) => e.event === 'job').map((e) => e.data.status), results };
}

const isJobEnd = (jobId: string, status: string) => (event: StreamEvent) =>
  event.event === 'job' && event.data.job_id === jobId && event.data.status === status;

describe('live events (GET /api/v1/events), API and worker in one process', () => {
  let t: TestApp;
  let port: number;
  let account: SeededAccount;
  let other: SeededAccount;
  const open: EventStream[] = [];
  const stream = async (key: string) => {
    const opened = await EventStream.ready(port, key);
    open.push(opened);
    return opened;
  };

  beforeAll(async () => {
    t = await createTestApp(SETTINGS, { role: ProcessRole.All, override: withFakeProvider() });
    port = await listeningPort(t);
    account = await seedAccount(t);
    other = await seedAccount(t, { name: 'Another account' });
  });
  afterEach(() => {
    for (const opened of open.splice(0)) opened.close();
  });
  afterAll(() => t.close());

  it('shows a key the status changes of its own jobs and results, and nothing of others', async () => {
    const sandbox = await stream(account.sandboxKey);
    const live = await stream(account.liveKey);
    const foreign = await stream(other.sandboxKey);
    expect(sandbox.status).toBe(200);
    expect(sandbox.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(sandbox.headers['cache-control']).toBe('no-cache, no-transform');

    const sandboxJob = await createJob(t, account.sandboxKey);
    await sandbox.waitFor(isJobEnd(sandboxJob, 'completed'), 'the sandbox job’s end');
    const [first, second] = await resultIdsOf(t, sandboxJob);
    const seen = statusesOf(sandbox.events, sandboxJob);
    expect(seen.results).toEqual(
      new Map([
        [first, ['processing', 'completed']],
        [second, ['processing', 'completed']],
      ]),
    );
    expect(seen.job[0]).toBe('queued');
    expect(seen.job).toContain('processing');
    expect(seen.job[seen.job.length - 1]).toBe('completed');
    const lastResult = sandbox.events.map((e) => e.event).lastIndexOf('result');
    expect(sandbox.events.findIndex(isJobEnd(sandboxJob, 'completed'))).toBeGreaterThan(lastResult);

    const liveJob = await createJob(t, account.liveKey, imageInputs(1));
    await live.waitFor(isJobEnd(liveJob, 'completed'), 'the live job’s end');
    await waitForJob(t, liveJob);
    await sleep(200);
    // Each key hears its own environment only; another account hears nothing.
    expect(live.events.filter((e) => e.data.job_id === sandboxJob)).toEqual([]);
    expect(sandbox.events.filter((e) => e.data.job_id === liveJob)).toEqual([]);
    expect(foreign.events.map((e) => e.event)).toEqual(['ready']);
  });

  it('sends a heartbeat comment and leaves the polling budget untouched', async () => {
    const before = await t.http().get('/api/v1/jobs').set(bearer(account.liveKey)).expect(200);
    const remaining = Number(before.headers['ratelimit-remaining']);
    const opened = await stream(account.liveKey);
    expect(opened.headers['ratelimit-limit']).toBeUndefined();
    await until(() => opened.comments.includes('heartbeat'), 'a heartbeat', { timeoutMs: 5000, intervalMs: 50 });
    const after = await t.http().get('/api/v1/jobs').set(bearer(account.liveKey)).expect(200);
    expect(Number(after.headers['ratelimit-remaining'])).toBe(remaining - 1);
  });

  it('announces a cancelled job', async () => {
    const opened = await stream(account.sandboxKey);
    const jobId = await createJob(
      t,
      account.sandboxKey,
      imageInputs(1, () => 'sandbox_slow_1'),
    );
    await t.http().post(`/api/v1/jobs/${jobId}/cancel`).set(bearer(account.sandboxKey)).expect(200);
    await opened.waitFor(isJobEnd(jobId, 'cancelled'), 'the cancellation');
  });

  it(`holds ${STREAMS_PER_KEY} open streams per key and refuses one more with a 429`, async () => {
    const first = await stream(account.liveKey);
    await stream(account.liveKey);
    const refused = await EventStream.open(port, account.liveKey);
    await until(() => refused.ended, 'the refusal’s end', { timeoutMs: 5000, intervalMs: 20 });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error).toMatchObject({
      code: 'rate_limit_exceeded',
      details: { scope: 'key', limit: STREAMS_PER_KEY },
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another key of the account is not held back by this one's streams.
    await stream(account.sandboxKey);
    // A stream the client closed frees its place.
    first.close();
    let reopened: EventStream | undefined;
    await until(
      async () => {
        const attempt = await EventStream.open(port, account.liveKey);
        if (attempt.status === 200) reopened = attempt;
        else attempt.close();
        return attempt.status === 200;
      },
      'a place freed by the closed stream',
      { timeoutMs: 5000, intervalMs: 50 },
    );
    open.push(reopened!);
  });

  it('yields the events through the typed client, and its refusals as API errors', async () => {
    const client = new ImageJobsClient({ apiKey: account.sandboxKey, baseUrl: `http://127.0.0.1:${port}` });
    const abort = new AbortController();
    const seen: LiveEvent[] = [];
    let ready: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (ready = resolve));
    const reading = (async () => {
      for await (const event of client.events({ signal: abort.signal })) {
        seen.push(event);
        if (event.event === 'ready') ready();
        if (event.event === 'job' && event.data.status === 'completed') return;
      }
    })();
    await opened;
    const jobId = await createJob(t, account.sandboxKey, imageInputs(1));
    await reading;
    abort.abort();
    expect(seen.filter((e) => e.event === 'job').map((e) => e.data)).toEqual([
      { job_id: jobId, status: 'queued' },
      { job_id: jobId, status: 'processing' },
      { job_id: jobId, status: 'completed' },
    ]);
    const bad = new ImageJobsClient({ apiKey: 'sk_sandbox_nope', baseUrl: `http://127.0.0.1:${port}` });
    const refused = await bad
      .events()
      .next()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ImageJobsApiError);
    expect((refused as ImageJobsApiError).status).toBe(401);
  });

  it('ends the streams of a revoked key, and of an account whose access is switched off', async () => {
    const admin = bearer(TEST_ADMIN_TOKEN);
    const owner = await seedAccount(t, { name: 'Revoked' });
    const issued = await t
      .http()
      .post(`/admin/v1/accounts/${owner.accountId}/api-keys`)
      .set(admin)
      .send({ environment: 'live' })
      .expect(201);
    const revoked = await stream(issued.body.secret);
    const sibling = await stream(owner.liveKey);
    await t.http().delete(`/admin/v1/api-keys/${issued.body.api_key.id}`).set(admin).expect(204);
    await revoked.waitForEnd();
    expect(revoked.events.map((e) => e.event)).toEqual(['ready', 'closing']);
    expect(revoked.events[1].data).toEqual({ reason: 'credentials_changed' });
    const refused = await EventStream.open(port, issued.body.secret);
    await refused.waitForEnd();
    expect(refused.status).toBe(401);
    // The account's other key keeps its stream, until the account's access is switched off.
    expect(sibling.ended).toBe(false);
    await t.http().patch(`/admin/v1/accounts/${owner.accountId}`).set(admin).send({ api_access: false }).expect(200);
    await sibling.waitForEnd();
    const disabled = await EventStream.open(port, owner.liveKey);
    await disabled.waitForEnd();
    expect(disabled.status).toBe(403);
  });

  it('tells its streams to re-read after losing Redis, and carries on once back', async () => {
    const opened = await stream(account.sandboxKey);
    t.app.get<symbol, Redis>(REDIS_SUBSCRIBER).disconnect(true);
    await opened.waitFor((event) => event.event === 'resync', 'the resync');
    const jobId = await createJob(t, account.sandboxKey, imageInputs(1));
    await opened.waitFor(isJobEnd(jobId, 'completed'), 'the job’s end after the reconnection');
  });

  it('refuses a stream without a valid key', async () => {
    const refused = await EventStream.open(port, 'sk_live_not_a_key');
    await until(() => refused.ended, 'the refusal’s end', { timeoutMs: 5000, intervalMs: 20 });
    expect(refused.status).toBe(401);
  });
});

describe('live events with the API and the worker in separate processes', () => {
  let api: TestApp;
  let worker: TestApp;
  let port: number;
  let account: SeededAccount;

  beforeAll(async () => {
    api = await createTestApp(SETTINGS, { role: ProcessRole.Api });
    worker = await createSecondInstance(api, ProcessRole.Worker);
    port = await listeningPort(api);
    account = await seedAccount(api);
  });
  afterAll(async () => {
    await worker.close();
    await api.close();
  });

  it('shows a stream on the API the changes the worker makes', async () => {
    const opened = await EventStream.ready(port, account.sandboxKey);
    try {
      const jobId = await createJob(api, account.sandboxKey);
      await opened.waitFor(isJobEnd(jobId, 'completed'), 'the job’s end, made by the worker');
      const [first, second] = await resultIdsOf(api, jobId);
      const seen = statusesOf(opened.events, jobId);
      expect(seen.results.get(first)).toEqual(['processing', 'completed']);
      expect(seen.results.get(second)).toEqual(['processing', 'completed']);
    } finally {
      opened.close();
    }
  });

  it('ends every stream when the API starts draining, and refuses new ones', async () => {
    const opened = await EventStream.ready(port, account.liveKey);
    api.app.get(HealthService).startDraining();
    await opened.waitForEnd();
    expect(opened.events.map((e) => e.event)).toEqual(['ready', 'closing']);
    const refused = await EventStream.open(port, account.liveKey);
    await until(() => refused.ended, 'the refusal’s end', { timeoutMs: 5000, intervalMs: 20 });
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).error.code).toBe('service_unavailable');
  });
});
