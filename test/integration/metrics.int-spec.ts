import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TestingModuleBuilder } from '@nestjs/testing';
import { parse as parseYaml } from 'yaml';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { startWorkerHealthServer } from '../../src/core/bootstrap/worker-health-server';
import { HealthService } from '../../src/core/health/health.service';
import { MetricsScraper } from '../../src/core/metrics/metrics-scraper';
import { OUTBOUND_TLS } from '../../src/core/outbound/outbound.module';
import { CreditsService } from '../../src/modules/credits/credits.service';
import { expectError } from '../support/http-errors';
import { idempotencyKey, imageInputs, waitForJob, withFakeProvider } from '../support/jobs';
import { GENEROUS_CREATE_LIMITS } from '../support/limits';
import { metricNamesIn, parseSamples, seriesNames, sumOf, valueOf, type Sample } from '../support/prometheus-text';
import { createSecondInstance } from '../support/second-instance';
import { bearer, createTestApp, seedAccount, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app';
import { until } from '../support/waiting';
import { testCertificate, WebhookReceiver } from '../support/webhook-receiver';

const SETTINGS = {
  ...GENEROUS_CREATE_LIMITS,
  // Three creates per key and hour: the fourth sandbox create is refused with rate_limit_exceeded.
  LIMIT_CREATES_PER_HOUR_KEY: '3',
  LIMIT_CREATES_PER_HOUR_IP: '1000',
  LIMIT_ACTIVE_JOBS_PER_KEY: '1000',
  LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '1000',
  OUTBOUND_ALLOWLIST: '127.0.0.1',
};

const DASHBOARD = join(__dirname, '../../deploy/grafana/image-job-service.json');
const ALERT_RULES = join(__dirname, '../../deploy/prometheus/alerts.yml');

const EDIT_ROUTE = '/api/v1/image/edit';
const HTTP_COUNT = 'imgjobs_http_request_duration_seconds_count';

/** Every `expr` in a Grafana dashboard or a Prometheus rules file, wherever it is nested. */
function expressionsIn(document: unknown): string[] {
  if (Array.isArray(document)) return document.flatMap(expressionsIn);
  if (document === null || typeof document !== 'object') return [];
  return Object.entries(document).flatMap(([key, value]) =>
    key === 'expr' && typeof value === 'string' ? [value] : expressionsIn(value),
  );
}

describe('Prometheus metrics', () => {
  let api: TestApp;
  let worker: TestApp;
  let healthServer: Server;
  let receiver: WebhookReceiver;

  /** The live tool's provider and the webhook receiver's certificate: the edges of the world. */
  const edges = (builder: TestingModuleBuilder) =>
    withFakeProvider()(builder)
      .overrideProvider(OUTBOUND_TLS)
      .useValue({ ca: [testCertificate().cert] });

  const scrapeApi = async (): Promise<Sample[]> =>
    parseSamples((await api.http().get('/metrics').set(bearer(TEST_ADMIN_TOKEN)).expect(200)).text);

  const workerMetricsUrl = () => `http://127.0.0.1:${(healthServer.address() as AddressInfo).port}/metrics`;
  const scrapeWorker = async (): Promise<Sample[]> => {
    const res = await fetch(workerMetricsUrl());
    expect(res.status).toBe(200);
    return parseSamples(await res.text());
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // An API process and a worker process of one deployment, each with its own registry, as in production.
    api = await createTestApp(SETTINGS, { role: ProcessRole.Api, override: edges });
    worker = await createSecondInstance(api, ProcessRole.Worker, edges);
    healthServer = await startWorkerHealthServer(
      0,
      worker.app.get(HealthService),
      worker.app.get(MetricsScraper),
      worker.config,
    );
  });

  afterAll(async () => {
    await new Promise((resolve) => healthServer?.close(resolve));
    await worker?.close();
    await api?.close();
    await receiver?.stop();
  });

  describe('after a known sequence of requests and jobs', () => {
    let apiBefore: Sample[];
    let workerBefore: Sample[];
    let apiAfter: Sample[];
    let workerAfter: Sample[];
    let jobIds: string[];
    let accountId: string;

    const apiDelta = (name: string, labels: Record<string, string> = {}) =>
      valueOf(apiAfter, name, labels) - valueOf(apiBefore, name, labels);
    const workerDelta = (name: string, labels: Record<string, string> = {}) =>
      valueOf(workerAfter, name, labels) - valueOf(workerBefore, name, labels);
    const settledResults = async () =>
      sumOf(await scrapeWorker(), 'imgjobs_results_total') - sumOf(workerBefore, 'imgjobs_results_total');
    const finishedDeliveries = async () =>
      sumOf(await scrapeWorker(), 'imgjobs_webhook_deliveries_total') -
      sumOf(workerBefore, 'imgjobs_webhook_deliveries_total');

    beforeAll(async () => {
      const account = await seedAccount(api, { credits: 4 });
      accountId = account.accountId;
      [apiBefore, workerBefore] = await Promise.all([scrapeApi(), scrapeWorker()]);
      const create = (key: string, body: object) =>
        api.http().post(EDIT_ROUTE).set(bearer(key)).set('Idempotency-Key', idempotencyKey()).send(body);

      // Three sandbox jobs of two results each, then a fourth over the per-key create limit.
      const sandboxJobs: string[] = [];
      for (let i = 0; i < 3; i++)
        sandboxJobs.push((await create(account.sandboxKey, { input: imageInputs(2) }).expect(202)).body.job.id);
      expect((await create(account.sandboxKey, { input: imageInputs(1) }).expect(429)).body.error.code).toBe(
        'rate_limit_exceeded',
      );

      // One live job of two results (one fails at the provider) with a webhook: 2 credits reserved,
      // 1 captured, 1 released, three events delivered. Then one of four results, which the
      // remaining credits cannot pay (2, or 3 once the failed result's credit is released).
      const live = await create(account.liveKey, {
        input: [
          { image_url: 'https://images.example.com/p/ok.jpg', external_id: 'ok-0' },
          { image_url: 'https://images.example.com/p/fail.jpg', external_id: 'fail-1' },
        ],
        webhook_url: receiver.url,
      }).expect(202);
      expect((await create(account.liveKey, { input: imageInputs(4) }).expect(402)).body.error.code).toBe(
        'insufficient_credits',
      );
      await create(account.liveKey, { input: [] }).expect(400);

      await api.http().get(`/api/v1/jobs/${live.body.job.id}`).set(bearer(account.liveKey)).expect(200);
      await api.http().get(`/api/v1/jobs/${live.body.job.id}`).set(bearer(account.liveKey)).expect(200);
      await api.http().get('/api/v1/no-such-route').expect(404);
      await api.http().get('/admin/queues/api/queues?activeQueue=sandbox').set(bearer(TEST_ADMIN_TOKEN)).expect(200);

      jobIds = [...sandboxJobs, live.body.job.id];
      for (const jobId of jobIds) await waitForJob(api, jobId);
      await receiver.waitFor(3);
      // Counters move just after their transaction commits and their attempt is recorded: wait for the last of them.
      await until(async () => (await settledResults()) >= 8, 'eight settled results in the worker metrics');
      await until(
        async () => (await finishedDeliveries()) >= 3,
        'three finished webhook deliveries in the worker metrics',
      );
      [apiAfter, workerAfter] = await Promise.all([scrapeApi(), scrapeWorker()]);
    });

    it('counts HTTP requests by route template, method and status', () => {
      expect(apiDelta(HTTP_COUNT, { route: EDIT_ROUTE, method: 'POST', status: '202' })).toBe(4);
      expect(apiDelta(HTTP_COUNT, { route: EDIT_ROUTE, method: 'POST', status: '429' })).toBe(1);
      expect(apiDelta(HTTP_COUNT, { route: EDIT_ROUTE, method: 'POST', status: '402' })).toBe(1);
      expect(apiDelta(HTTP_COUNT, { route: EDIT_ROUTE, method: 'POST', status: '400' })).toBe(1);
      expect(
        sumOf(apiAfter, HTTP_COUNT, { route: EDIT_ROUTE }) - sumOf(apiBefore, HTTP_COUNT, { route: EDIT_ROUTE }),
      ).toBe(7);
      expect(apiDelta(HTTP_COUNT, { route: '/api/v1/jobs/:jobId', method: 'GET', status: '200' })).toBe(2);
      expect(apiDelta(HTTP_COUNT, { route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
      // Bull Board's own router: its route template under its mount point, never the query or a queue's name.
      expect(apiDelta(HTTP_COUNT, { route: '/admin/queues/api/queues', method: 'GET', status: '200' })).toBe(1);
      // The histogram's +Inf bucket is its count.
      expect(
        apiDelta('imgjobs_http_request_duration_seconds_bucket', {
          route: EDIT_ROUTE,
          method: 'POST',
          status: '202',
          le: '+Inf',
        }),
      ).toBe(4);
      expect(
        apiDelta('imgjobs_http_request_duration_seconds_sum', { route: EDIT_ROUTE, method: 'POST', status: '202' }),
      ).toBeGreaterThan(0);
    });

    it('counts jobs created and creates refused by reason', () => {
      expect(apiDelta('imgjobs_jobs_created_total', { tool: 'image_editing', environment: 'sandbox' })).toBe(3);
      expect(apiDelta('imgjobs_jobs_created_total', { tool: 'image_editing', environment: 'live' })).toBe(1);
      expect(
        apiDelta('imgjobs_job_admissions_refused_total', { tool: 'image_editing', reason: 'rate_limit_exceeded' }),
      ).toBe(1);
      expect(
        apiDelta('imgjobs_job_admissions_refused_total', { tool: 'image_editing', reason: 'insufficient_credits' }),
      ).toBe(1);
      expect(
        sumOf(apiAfter, 'imgjobs_job_admissions_refused_total') -
          sumOf(apiBefore, 'imgjobs_job_admissions_refused_total'),
      ).toBe(2);
    });

    it('counts credits where they moved: reserved by the API, captured and released by the worker', () => {
      expect(apiDelta('imgjobs_credits_reserved_total')).toBe(2);
      expect(workerDelta('imgjobs_credits_captured_total')).toBe(1);
      expect(workerDelta('imgjobs_credits_released_total')).toBe(1);
      expect(workerDelta('imgjobs_credits_reserved_total')).toBe(0);
      expect(apiDelta('imgjobs_credits_captured_total') + apiDelta('imgjobs_credits_released_total')).toBe(0);
    });

    it('counts results by tool, environment, final status and error code', () => {
      const results = (labels: Record<string, string>) =>
        workerDelta('imgjobs_results_total', { tool: 'image_editing', ...labels });
      expect(results({ environment: 'sandbox', status: 'completed' })).toBe(6);
      expect(results({ environment: 'live', status: 'completed' })).toBe(1);
      expect(results({ environment: 'live', status: 'failed', error_code: 'provider_error' })).toBe(1);
      expect(sumOf(workerAfter, 'imgjobs_results_total') - sumOf(workerBefore, 'imgjobs_results_total')).toBe(8);
    });

    it('times every result once in its queue and once per attempt, by queue and tool', () => {
      for (const name of ['imgjobs_result_wait_seconds_count', 'imgjobs_result_processing_seconds_count']) {
        expect(workerDelta(name, { queue: 'sandbox', tool: 'image_editing' })).toBe(6);
        expect(workerDelta(name, { queue: 'processing', tool: 'image_editing' })).toBe(2);
      }
    });

    it('counts webhook attempts and finished deliveries by outcome', () => {
      expect(workerDelta('imgjobs_webhook_attempt_duration_seconds_count', { outcome: 'delivered' })).toBe(3);
      expect(workerDelta('imgjobs_webhook_deliveries_total', { outcome: 'delivered' })).toBe(3);
      expect(
        sumOf(workerAfter, 'imgjobs_webhook_attempt_duration_seconds_count') -
          sumOf(workerBefore, 'imgjobs_webhook_attempt_duration_seconds_count'),
      ).toBe(3);
    });

    it('reads queue depths at scrape time for every queue, and labels nothing with an id', () => {
      for (const samples of [apiAfter, workerAfter]) {
        for (const queue of ['background-removal', 'processing', 'sandbox', 'webhook-delivery', 'maintenance']) {
          for (const state of ['waiting', 'active', 'delayed']) {
            expect(
              samples.some(
                (s) => s.name === 'imgjobs_queue_jobs' && s.labels.queue === queue && s.labels.state === state,
              ),
            ).toBe(true);
          }
        }
        expect(valueOf(samples, 'imgjobs_queue_jobs', { queue: 'sandbox', state: 'waiting' })).toBe(0);
        const labelValues = samples.flatMap((s) => Object.values(s.labels));
        for (const id of [...jobIds, accountId]) expect(labelValues.filter((value) => value.includes(id))).toEqual([]);
      }
    });

    it('names in the dashboard and the alert rules only series the API and the worker export', async () => {
      const exported = new Set([...seriesNames(apiAfter), ...seriesNames(workerAfter)]);
      const dashboard = expressionsIn(JSON.parse(await readFile(DASHBOARD, 'utf8')));
      const alerts = expressionsIn(parseYaml(await readFile(ALERT_RULES, 'utf8')));
      expect(dashboard.length).toBeGreaterThan(20);
      expect(alerts.length).toBeGreaterThan(10);
      const unknown = [...dashboard, ...alerts].flatMap((expression) => {
        const names = metricNamesIn(expression);
        expect(names.length).toBeGreaterThan(0);
        return names.filter((name) => !exported.has(name)).map((name) => `${name} in ${expression}`);
      });
      expect(unknown).toEqual([]);
    });
  });

  describe('credits', () => {
    it('moves a credit counter only once its transaction commits, never for one rolled back', async () => {
      const credits = api.app.get(CreditsService);
      const account = await seedAccount(api, { credits: 10 });
      const reserved = async () => valueOf(await scrapeApi(), 'imgjobs_credits_reserved_total');
      const before = await reserved();

      await expect(
        api.dataSource.transaction(async (manager) => {
          await credits.reserve(manager, account.accountId, randomUUID(), 3);
          expect(await reserved()).toBe(before);
          throw new Error('rolled back after the reservation');
        }),
      ).rejects.toThrow('rolled back after the reservation');
      expect(await reserved()).toBe(before);

      await api.dataSource.transaction((manager) => credits.reserve(manager, account.accountId, randomUUID(), 3));
      expect(await reserved()).toBe(before + 3);
    });
  });

  describe('endpoints', () => {
    it('serves the API metrics at /metrics in the Prometheus text format with the admin token', async () => {
      const res = await api.http().get('/metrics').set(bearer(TEST_ADMIN_TOKEN)).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
      const names = seriesNames(parseSamples(res.text));
      for (const name of [
        'process_cpu_user_seconds_total',
        'nodejs_heap_size_used_bytes',
        'imgjobs_event_loop_delay_seconds',
        'imgjobs_queue_jobs',
        'imgjobs_segmentation_inference_seconds_count',
      ]) {
        expect(names.has(name)).toBe(true);
      }

      const anonymous = await api.http().get('/metrics').expect(401);
      expect(anonymous.body).toEqual({
        error: expect.objectContaining({ code: 'unauthorized' }),
        request_id: expect.any(String),
      });
      const wrongToken = await api.http().get('/metrics').set(bearer('not-the-admin-token-at-all')).expect(401);
      expect(wrongToken.body.error.code).toBe('unauthorized');
    });

    it(
      'answers 404 not_found for the API metrics while ' + 'neither an admin nor a metrics token is configured',
      async () => {
        const off = await createTestApp({ ADMIN_TOKEN: '' });
        try {
          const res = await off.http().get('/metrics').set(bearer(TEST_ADMIN_TOKEN)).expect(404);
          expect(res.body.error.code).toBe('not_found');
        } finally {
          await off.close();
        }
      },
    );

    it("serves the worker's metrics on its health port without a token while METRICS_TOKEN is unset", async () => {
      const res = await fetch(workerMetricsUrl());
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain;.*version=0\.0\.4/);
      const names = seriesNames(parseSamples(await res.text()));
      for (const name of [
        'process_cpu_user_seconds_total',
        'nodejs_eventloop_lag_p99_seconds',
        'imgjobs_event_loop_delay_seconds',
        'imgjobs_queue_jobs',
        'imgjobs_credits_captured_total',
        // At 0 from start for the queues the worker consumes, so alert rules see them before the first.
        'imgjobs_queue_lock_renewal_failures_total',
        'imgjobs_queue_stalled_total',
        'imgjobs_queue_finish_lock_errors_total',
        'imgjobs_result_attempts_repeated_total',
      ]) {
        expect(names.has(name)).toBe(true);
      }
    });

    it('leaves /metrics out of the OpenAPI document', async () => {
      const doc = (await api.http().get('/api/v1/openapi.json').expect(200)).body as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths)).not.toContain('/metrics');
    });
  });
});

describe('/metrics with METRICS_TOKEN', () => {
  const METRICS_TOKEN = 'test-metrics-token-0123456789';
  let t: TestApp;
  let healthServer: Server;

  beforeAll(async () => {
    t = await createTestApp({
      METRICS_TOKEN,
      LIMIT_FAILED_ADMIN_AUTH_PER_HOUR_IP: '3',
      RATE_LIMIT_WINDOW_SECONDS: '60',
      TRUST_PROXY: '1',
    });
    // The health port as a worker started with these settings serves it (the port's checks need no worker module).
    healthServer = await startWorkerHealthServer(0, t.app.get(HealthService), t.app.get(MetricsScraper), t.config);
  });
  afterAll(async () => {
    await new Promise((resolve) => healthServer?.close(resolve));
    await t?.close();
  });

  const healthPort = (path: string, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${(healthServer.address() as AddressInfo).port}${path}`, { headers });

  it(
    "reads the API's /metrics with METRICS_TOKEN, " + 'and with the admin token too, so older scrapers keep working',
    async () => {
      for (const token of [METRICS_TOKEN, TEST_ADMIN_TOKEN]) {
        const res = await t.http().get('/metrics').set(bearer(token)).expect(200);
        expect(res.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
        expect(seriesNames(parseSamples(res.text)).has('imgjobs_queue_jobs')).toBe(true);
      }
      expectError(await t.http().get('/metrics'), 401, 'unauthorized');
    },
  );

  it('opens nothing else: the admin API and Bull Board refuse METRICS_TOKEN with 401', async () => {
    const basic = { Authorization: `Basic ${Buffer.from(`metrics:${METRICS_TOKEN}`).toString('base64')}` };
    const attempts = [
      t.http().get(`/admin/v1/accounts/${randomUUID()}`).set(bearer(METRICS_TOKEN)),
      t.http().post('/admin/v1/accounts').set(bearer(METRICS_TOKEN)).send({ name: 'x' }),
      ...['/admin/queues', '/admin/queues/api/queues'].flatMap((path) => [
        t.http().get(path).set(bearer(METRICS_TOKEN)),
        t.http().get(path).set(basic),
      ]),
    ];
    // Each from an address of its own, so none is refused for the others' failures.
    for (const [i, attempt] of attempts.entries()) {
      expectError(await attempt.set('X-Forwarded-For', `198.51.100.${10 + i}`), 401, 'unauthorized');
    }
  });

  it(
    "asks for METRICS_TOKEN (or the admin token) on a worker's health port /metrics, " + 'never on its probes',
    async () => {
      expect((await healthPort('/metrics')).status).toBe(401);
      expect((await healthPort('/metrics', bearer('not-the-metrics-token-at-all'))).status).toBe(401);
      for (const token of [METRICS_TOKEN, TEST_ADMIN_TOKEN]) {
        const res = await healthPort('/metrics', bearer(token));
        expect(res.status).toBe(200);
        expect(seriesNames(parseSamples(await res.text())).has('imgjobs_queue_jobs')).toBe(true);
      }
      expect((await healthPort('/health/live')).status).toBe(200);
      expect((await healthPort('/health/ready')).status).toBe(200);
      expect(await (await healthPort('/health')).json()).toEqual({ status: 'ok', node: process.version });
    },
  );

  it('answers 429 with Retry-After once an IP has tried too many wrong tokens; the right one still reads', async () => {
    const fromIp = (ip: string, token: string) =>
      t.http().get('/metrics').set(bearer(token)).set('X-Forwarded-For', ip);
    for (let i = 0; i < 3; i++)
      expectError(await fromIp('203.0.113.70', `wrong-metrics-token-${i}-0123456789`), 401, 'unauthorized');
    const refused = await fromIp('203.0.113.70', 'wrong-metrics-token-x-0123456789');
    expectError(refused, 429, 'rate_limit_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await fromIp('203.0.113.70', METRICS_TOKEN).expect(200);
    expectError(await fromIp('203.0.113.71', 'wrong-metrics-token-y-0123456789'), 401, 'unauthorized');
  });

  it(
    'serves /metrics with METRICS_TOKEN alone, ' + 'while the admin API and Bull Board stay off without ADMIN_TOKEN',
    async () => {
      const metricsOnly = await createTestApp({ ADMIN_TOKEN: '', METRICS_TOKEN });
      try {
        await metricsOnly.http().get('/metrics').set(bearer(METRICS_TOKEN)).expect(200);
        expectError(
          await metricsOnly.http().get('/admin/v1/no-such-route').set(bearer(METRICS_TOKEN)),
          404,
          'not_found',
        );
        expectError(
          await metricsOnly.http().post('/admin/v1/accounts').set(bearer(METRICS_TOKEN)).send({ name: 'x' }),
          404,
          'not_found',
        );
        expectError(await metricsOnly.http().get('/admin/queues').set(bearer(METRICS_TOKEN)), 404, 'not_found');
      } finally {
        await metricsOnly.close();
      }
    },
  );
});
