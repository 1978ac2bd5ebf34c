import type { Response } from 'supertest';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { MASK_POST_PROCESSING_VERSION } from '../../src/engine/mask/post-processing-version';
import { JobsController } from '../../src/modules/jobs/jobs.controller';
import { expectError } from '../support/http-errors';
import { creditTotals, idempotencyKey, imageInputs, unsigned, waitForJob, withFakeProvider } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { bearer, createTestApp, seedAccount, type SeededAccount, type TestApp } from '../support/test-app';
import { readUntil } from '../support/waiting';

const LIMITS = { ...GENEROUS_LIMITS, LIMIT_CREATES_PER_HOUR_IP: '1000', LIMIT_POLLS_PER_HOUR_IP: '1000' };

/** Fields of contract section 7: the job summary of spec 2.1 plus `credits_used` and `pricing_version`. */
const JOB_FIELDS = [
  'api',
  'completed_at',
  'completed_results',
  'created_at',
  'credits_reserved',
  'credits_used',
  'failed_results',
  'id',
  'pricing_version',
  'sandbox',
  'status',
  'total_results',
  'updated_at',
];
const RESULT_FIELDS = [
  'completed_at',
  'created_at',
  'credits_reserved',
  'credits_used',
  'error_code',
  'error_message',
  'external_id',
  'id',
  'index',
  'needs_review',
  'result_url',
  'review',
  'segmentation',
  'source_image_url',
  'source_preview_url',
  'status',
  'subject_hints',
  'thumbnail_url',
  'uncertainty',
];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UNKNOWN_JOB_ID = '6f1c1c4e-5b8a-4f0e-9a43-2f4b7f0d9a11';

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

/** Client helpers over one test app, so each suite reads like the HTTP calls it makes. */
function jobsClient(t: TestApp) {
  const create = (key: string, body: object, path = '/api/v1/image/edit') =>
    t.http().post(path).set(bearer(key)).set('Idempotency-Key', idempotencyKey()).send(body);

  const createJob = async (key: string, body: object, path?: string): Promise<string> => {
    const res = await create(key, body, path);
    expect(res.status).toBe(202);
    return res.body.job.id;
  };

  const list = (key: string, query: Record<string, string | number> = {}) =>
    t.http().get('/api/v1/jobs').query(query).set(bearer(key));

  /** Follows `next_cursor` to the end; the guard stops a cursor that never ends. */
  const listAll = async (key: string, query: Record<string, string | number> = {}) => {
    const ids: string[] = [];
    const pageSizes: number[] = [];
    let cursor: string | null = null;
    do {
      const res: Response = await list(key, cursor ? { ...query, cursor } : query).expect(200);
      ids.push(...res.body.jobs.map((job: { id: string }) => job.id));
      pageSizes.push(res.body.jobs.length);
      cursor = res.body.next_cursor;
    } while (cursor !== null && pageSizes.length < 50);
    return { ids, pageSizes };
  };

  return { create, createJob, list, listAll };
}

describe(JobsController.name, () => {
  describe('with API and worker in one process', () => {
    let t: TestApp;
    let client: ReturnType<typeof jobsClient>;

    beforeAll(async () => {
      t = await createTestApp(
        {
          ...LIMITS,
          // One sandbox result at a time, each sandbox_slow one running 2 s: a job can be
          // caught with one result running and the others still queued.
          WORKER_CONCURRENCY_SANDBOX: '1',
          SANDBOX_SLOW_SECONDS: '2',
        },
        { role: ProcessRole.All, override: withFakeProvider() },
      );
      client = jobsClient(t);
    });
    afterAll(() => t.close());

    describe('GET /api/v1/jobs', () => {
      let account: SeededAccount;
      /** Oldest first, as created. */
      const created: string[] = [];

      beforeAll(async () => {
        account = await seedAccount(t);
        for (let i = 0; i < 25; i++)
          created.push(await client.createJob(account.sandboxKey, { input: imageInputs(1) }));
      });

      it('returns every job exactly once across pages, newest first', async () => {
        const { ids, pageSizes } = await client.listAll(account.sandboxKey, { limit: 10 });
        expect(pageSizes).toEqual([10, 10, 5]);
        expect(ids).toEqual([...created].reverse());
      });

      it('ends a listing whose size is a multiple of the page with a null cursor, not an empty page', async () => {
        const { ids, pageSizes } = await client.listAll(account.sandboxKey, { limit: 5 });
        expect(pageSizes).toEqual([5, 5, 5, 5, 5]);
        expect(ids).toEqual([...created].reverse());

        const whole = await client.list(account.sandboxKey, { limit: 100 }).expect(200);
        expect(whole.body.jobs).toHaveLength(25);
        expect(whole.body.next_cursor).toBeNull();
      });

      it('pages 20 jobs by default, in the job summary shape', async () => {
        const res = await client.list(account.sandboxKey).expect(200);
        expect(res.body.jobs).toHaveLength(20);
        expect(res.body.next_cursor).toEqual(expect.any(String));
        expect(res.body.request_id).toBe(res.headers['x-request-id']);
        for (const job of res.body.jobs) {
          expect(Object.keys(job).sort()).toEqual(JOB_FIELDS);
          expect(job).toMatchObject({ api: 'image_editing', sandbox: true, total_results: 1, credits_reserved: 0 });
          expect(job.created_at).toMatch(ISO_UTC);
        }
      });

      it('keeps jobs created in the same millisecond apart by id across page boundaries', async () => {
        const tied = await seedAccount(t);
        const ids: string[] = [];
        for (let i = 0; i < 7; i++) ids.push(await client.createJob(tied.sandboxKey, { input: imageInputs(1) }));
        await t.dataSource.query(`UPDATE jobs SET created_at = '2026-07-01T12:00:00.123Z' WHERE account_id = $1`, [
          tied.accountId,
        ]);

        const listed = await client.listAll(tied.sandboxKey, { limit: 3 });
        expect(listed.pageSizes).toEqual([3, 3, 1]);
        expect(listed.ids).toEqual([...ids].sort().reverse());
      });

      it('refuses a limit outside 1..100, or not an integer, with 400 invalid_request', async () => {
        for (const limit of ['0', '101', '-1', '1.5', 'ten', '']) {
          const res = await client.list(account.sandboxKey, { limit });
          expectError(res, 400, 'invalid_request');
          expect(new Set(res.body.error.details.errors.map((e: { path: string }) => e.path))).toEqual(
            new Set(['query.limit']),
          );
        }
        await client.list(account.sandboxKey, { limit: 1 }).expect(200);
      });

      it('refuses a cursor it did not issue with 400 invalid_request', async () => {
        const real: string = (await client.list(account.sandboxKey, { limit: 1 }).expect(200)).body.next_cursor;
        const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
        const forged = [
          'not-a-cursor',
          real.slice(0, -4),
          encode([0, UNKNOWN_JOB_ID]),
          // Dates JavaScript accepts and PostgreSQL cannot hold must not become a 500.
          encode(['-100000-01-01T00:00:00.000Z', UNKNOWN_JOB_ID]),
          encode(['+275760-09-13T00:00:00.000Z', UNKNOWN_JOB_ID]),
          encode({ created_at: '2026-01-01T00:00:00Z' }),
          encode(['2026-01-01T00:00:00Z', 'not-a-uuid']),
          encode(['yesterday', UNKNOWN_JOB_ID]),
          encode(null),
          'a'.repeat(201),
        ];
        for (const cursor of forged) {
          const res = await client.list(account.sandboxKey, { cursor });
          expectError(res, 400, 'invalid_request');
          expect(res.body.error.details.errors[0].path).toBe('query.cursor');
        }
      });

      it('refuses repeated or unknown query parameters with 400, not a server error', async () => {
        for (const query of ['limit=5&limit=6', 'status=queued&status=completed', 'cursor=a&cursor=b', 'page=2']) {
          const res = await t.http().get(`/api/v1/jobs?${query}`).set(bearer(account.sandboxKey));
          expectError(res, 400, 'invalid_request');
        }
      });
    });

    describe('GET /api/v1/jobs filters', () => {
      let account: SeededAccount;
      const jobs: Record<string, string> = {};

      beforeAll(async () => {
        account = await seedAccount(t);
        const key = account.sandboxKey;
        jobs.editCompleted = await client.createJob(key, { input: imageInputs(1) });
        jobs.editFailed = await client.createJob(key, { input: imageInputs(1, () => 'sandbox_fail_0') });
        jobs.editPartial = await client.createJob(key, {
          input: imageInputs(2, (i) => (i === 0 ? 'sandbox_fail_0' : 'ok-1')),
        });
        const cutout = '/api/v1/remove-background';
        jobs.cutoutCompleted = await client.createJob(key, { input: imageInputs(1) }, cutout);
        jobs.cutoutFailed = await client.createJob(key, { input: imageInputs(1, () => 'sandbox_fail_0') }, cutout);
        jobs.editCompletedLater = await client.createJob(key, { input: imageInputs(1) });
        for (const id of Object.values(jobs)) await waitForJob(t, id);
      });

      const listIds = async (query: Record<string, string | number>) =>
        (await client.listAll(account.sandboxKey, query)).ids;

      it('filters by status', async () => {
        expect(await listIds({ status: 'completed' })).toEqual([
          jobs.editCompletedLater,
          jobs.cutoutCompleted,
          jobs.editCompleted,
        ]);
        expect(await listIds({ status: 'failed' })).toEqual([jobs.cutoutFailed, jobs.editFailed]);
        expect(await listIds({ status: 'partially_completed' })).toEqual([jobs.editPartial]);
        expect(await listIds({ status: 'queued' })).toEqual([]);
        expect(await listIds({ status: 'cancelled' })).toEqual([]);
      });

      it('filters by api, and by status and api together, across pages', async () => {
        expect(await listIds({ api: 'remove_background' })).toEqual([jobs.cutoutFailed, jobs.cutoutCompleted]);
        expect(await listIds({ api: 'image_editing', limit: 1 })).toEqual([
          jobs.editCompletedLater,
          jobs.editPartial,
          jobs.editFailed,
          jobs.editCompleted,
        ]);
        expect(await listIds({ api: 'image_editing', status: 'completed', limit: 1 })).toEqual([
          jobs.editCompletedLater,
          jobs.editCompleted,
        ]);
        expect(await listIds({ api: 'ad_creative' })).toEqual([]);
        const filtered = await client.list(account.sandboxKey, { status: 'failed' }).expect(200);
        expect(filtered.body.jobs.every((job: { status: string }) => job.status === 'failed')).toBe(true);
      });

      it('refuses unknown status and api values with 400 invalid_request', async () => {
        for (const [query, path] of [
          [{ status: 'done' }, 'query.status'],
          [{ status: 'COMPLETED' }, 'query.status'],
          [{ api: 'photoshop' }, 'query.api'],
          [{ api: 'removeBackground' }, 'query.api'],
        ] as const) {
          const res = await client.list(account.sandboxKey, query);
          expectError(res, 400, 'invalid_request');
          expect(res.body.error.details.errors.map((e: { path: string }) => e.path)).toEqual([path]);
        }
      });

      it('lists only the jobs of the key’s account and environment', async () => {
        expect(await listIds({})).toHaveLength(6);
        expect((await client.listAll(account.liveKey)).ids).toEqual([]);
        const live = await client.createJob(account.liveKey, { input: imageInputs(1) });
        expect((await client.listAll(account.liveKey)).ids).toEqual([live]);
        expect(await listIds({})).not.toContain(live);
        const other = await seedAccount(t);
        expect((await client.listAll(other.sandboxKey)).ids).toEqual([]);
        expect((await client.listAll(other.liveKey)).ids).toEqual([]);
        await waitForJob(t, live);
      });
    });

    describe('GET /api/v1/jobs/{jobId}', () => {
      let account: SeededAccount;

      beforeAll(async () => {
        account = await seedAccount(t, { credits: 100 });
      });

      it('returns a finished job and every result in the contract’s shape', async () => {
        const id = await client.createJob(account.liveKey, {
          input: imageInputs(2, (i) => (i === 1 ? 'fail-1' : 'ok-0')),
          output: { number_of_images: 2 },
        });
        await waitForJob(t, id);

        const res = await t.http().get(`/api/v1/jobs/${id}`).set(bearer(account.liveKey)).expect(200);
        expect(Object.keys(res.body).sort()).toEqual(['job', 'request_id', 'results']);
        expect(res.body.request_id).toBe(res.headers['x-request-id']);
        const { job, results } = res.body;
        expect(Object.keys(job).sort()).toEqual(JOB_FIELDS);
        expect(job).toMatchObject({
          id,
          api: 'image_editing',
          status: 'partially_completed',
          sandbox: false,
          total_results: 4,
          completed_results: 2,
          failed_results: 2,
          credits_reserved: 4,
          credits_used: 2,
          pricing_version: 1,
        });
        for (const field of ['created_at', 'updated_at', 'completed_at']) expect(job[field]).toMatch(ISO_UTC);
        expect(Date.parse(job.completed_at)).toBeGreaterThanOrEqual(Date.parse(job.created_at));

        expect(results).toHaveLength(4);
        expect(results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3]);
        for (const result of results) {
          expect(Object.keys(result).sort()).toEqual(RESULT_FIELDS);
          expect(result.created_at).toMatch(ISO_UTC);
          expect(result.completed_at).toMatch(ISO_UTC);
          expect(result.credits_reserved).toBe(1);
        }
        const [first, second, third, fourth] = results;
        for (const done of [first, second]) {
          expect(done).toMatchObject({
            external_id: 'ok-0',
            source_image_url: 'https://images.example.com/p/0.jpg',
            status: 'completed',
            credits_used: 1,
            error_code: null,
            error_message: null,
            subject_hints: null,
            uncertainty: null,
            segmentation: null,
          });
          expect(done.result_url).toEqual(expect.any(String));
          expect(done.thumbnail_url).toEqual(expect.any(String));
        }
        for (const failed of [third, fourth]) {
          expect(failed).toMatchObject({
            external_id: 'fail-1',
            source_image_url: 'https://images.example.com/p/1.jpg',
            status: 'failed',
            credits_used: 0,
            result_url: null,
            thumbnail_url: null,
            error_code: 'provider_error',
            subject_hints: null,
            uncertainty: null,
            segmentation: null,
          });
          expect(failed.error_message).toEqual(expect.any(String));
        }
        expect(new Set(results.map((r: { id: string }) => r.id)).size).toBe(4);
      });

      it('reports an input sent without external_id with external_id null', async () => {
        const id = await client.createJob(account.sandboxKey, {
          input: [{ image_url: 'https://images.example.com/p/x.jpg' }],
        });
        await waitForJob(t, id);
        const read = await t.http().get(`/api/v1/jobs/${id}`).set(bearer(account.sandboxKey)).expect(200);
        expect(read.body.results).toEqual([
          expect.objectContaining({
            status: 'completed',
            external_id: null,
            source_image_url: 'https://images.example.com/p/x.jpg',
            credits_reserved: 0,
            credits_used: 0,
          }),
        ]);
      });

      it('accepts the id in upper case', async () => {
        const id = await client.createJob(account.sandboxKey, { input: imageInputs(1) });
        const res = await t.http().get(`/api/v1/jobs/${id.toUpperCase()}`).set(bearer(account.sandboxKey)).expect(200);
        expect(res.body.job.id).toBe(id);
        await waitForJob(t, id);
      });

      it('answers 404 not_found for a sandbox job read with a live key, and for an unknown id', async () => {
        const id = await client.createJob(account.sandboxKey, { input: imageInputs(1) });
        await t.http().get(`/api/v1/jobs/${id}`).set(bearer(account.sandboxKey)).expect(200);
        expectError(await t.http().get(`/api/v1/jobs/${id}`).set(bearer(account.liveKey)), 404, 'not_found');
        const other = await seedAccount(t);
        expectError(await t.http().get(`/api/v1/jobs/${id}`).set(bearer(other.sandboxKey)), 404, 'not_found');
        const unknown = await t.http().get(`/api/v1/jobs/${UNKNOWN_JOB_ID}`).set(bearer(account.sandboxKey));
        expectError(unknown, 404, 'not_found');
        // Another account's job and a job that does not exist are told apart by nothing.
        const foreign = await t.http().get(`/api/v1/jobs/${id}`).set(bearer(other.sandboxKey));
        expect(foreign.body.error.message).toBe(unknown.body.error.message);
        await waitForJob(t, id);
      });

      it('answers 400 invalid_request for an id that is not a UUID', async () => {
        for (const jobId of ['123', 'not-a-uuid', `${UNKNOWN_JOB_ID}x`]) {
          const res = await t.http().get(`/api/v1/jobs/${jobId}`).set(bearer(account.sandboxKey));
          expectError(res, 400, 'invalid_request');
          expect(res.body.error.details.errors[0].path).toBe('path.jobId');
        }
      });
    });

    describe('POST /api/v1/jobs/{jobId}/cancel', () => {
      let account: SeededAccount;

      beforeAll(async () => {
        account = await seedAccount(t);
      });

      it(
        'cancels a processing job: queued results are cancelled, ' +
          'the running one finishes, the job stays cancelled',
        async () => {
          const id = await client.createJob(
            account.sandboxKey,
            { input: imageInputs(3, (i) => `sandbox_slow_${i}`) },
            '/api/v1/remove-background',
          );
          await waitForJob(t, id, (job) => job.status === 'processing', 5_000);

          const cancelled = await t
            .http()
            .post(`/api/v1/jobs/${id}/cancel`)
            .set(bearer(account.sandboxKey))
            .expect(200);
          expect(Object.keys(cancelled.body.job).sort()).toEqual(JOB_FIELDS);
          expect(cancelled.body.job).toMatchObject({ id, status: 'cancelled' });
          expect(cancelled.body.job.completed_at).toMatch(ISO_UTC);
          const statuses = cancelled.body.results.map((r: { status: string }) => r.status);
          expect(statuses.filter((s: string) => s === 'processing')).toHaveLength(1);
          expect(statuses.filter((s: string) => s === 'cancelled')).toHaveLength(2);
          const running = cancelled.body.results.find((r: { status: string }) => r.status === 'processing');

          const runningStatus = async (): Promise<string> =>
            (await t.dataSource.query(`SELECT status FROM job_results WHERE id = $1`, [running.id]))[0].status;
          await readUntil(runningStatus, (status) => status !== 'processing', 'the running result to settle', {
            timeoutMs: 10_000,
            intervalMs: 50,
          });
          const read = await t.http().get(`/api/v1/jobs/${id}`).set(bearer(account.sandboxKey)).expect(200);
          expect(read.body.job).toMatchObject({ status: 'cancelled', completed_results: 1, failed_results: 0 });
          expect(read.body.job.completed_at).toBe(cancelled.body.job.completed_at);
          const finished = read.body.results.find((r: { id: string }) => r.id === running.id);
          expect(finished.status).toBe('completed');
          expect(finished.result_url).toEqual(expect.any(String));
          expect(read.body.results.filter((r: { status: string }) => r.status === 'cancelled')).toHaveLength(2);
        },
      );

      it('leaves a finished job as it is and returns it with 200', async () => {
        const id = await client.createJob(account.sandboxKey, { input: imageInputs(1) });
        await waitForJob(t, id);
        const before = await t.http().get(`/api/v1/jobs/${id}`).set(bearer(account.sandboxKey)).expect(200);
        const res = await t.http().post(`/api/v1/jobs/${id}/cancel`).set(bearer(account.sandboxKey)).expect(200);
        expect(res.body.job).toEqual(before.body.job);
        expect(unsigned(res.body.results)).toEqual(unsigned(before.body.results));
      });

      it('answers 404 not_found for an unknown or another environment’s job, and 400 for a non-UUID id', async () => {
        const unknown = await t.http().post(`/api/v1/jobs/${UNKNOWN_JOB_ID}/cancel`).set(bearer(account.sandboxKey));
        expectError(unknown, 404, 'not_found');
        const id = await client.createJob(account.sandboxKey, { input: imageInputs(1) });
        await waitForJob(t, id);
        expectError(await t.http().post(`/api/v1/jobs/${id}/cancel`).set(bearer(account.liveKey)), 404, 'not_found');
        const res = await t.http().post('/api/v1/jobs/not-a-uuid/cancel').set(bearer(account.sandboxKey));
        expectError(res, 400, 'invalid_request');
        expect(res.body.error.details.errors[0].path).toBe('path.jobId');
      });
    });

    describe('product photo jobs and GET /api/v1/product-image-enhancements/{id}', () => {
      let account: SeededAccount;

      beforeAll(async () => {
        account = await seedAccount(t, { credits: 50 });
      });

      const enhancement = (key: string, id: string) =>
        t.http().get(`/api/v1/product-image-enhancements/${id}`).set(bearer(key));

      it('creates a sandbox product photo job and reports it item by item once the worker is done', async () => {
        const res = await client.create(
          account.sandboxKey,
          {
            images: [
              { source_url: 'https://images.example.com/p/shoe.jpg', external_id: 'shoe-1' },
              { source_url: 'https://images.example.com/p/bag.jpg', external_id: 'sandbox_fail_bag-2' },
            ],
            preset: 'amazon_main_image',
          },
          '/api/v1/product-photo-jobs',
        );
        expect(res.status).toBe(202);
        expect(Object.keys(res.body).sort()).toEqual(['job', 'remaining_paid_credits', 'request_id']);
        expect(Object.keys(res.body.job).sort()).toEqual(['credits_reserved', 'id', 'sandbox', 'total_items']);
        expect(res.body.job).toMatchObject({ total_items: 2, credits_reserved: 0, sandbox: true });
        expect(res.body.remaining_paid_credits).toBe(50);
        const id: string = res.body.job.id;
        await waitForJob(t, id);

        const read = await enhancement(account.sandboxKey, id).set('X-Request-Id', 'poll-enhancement-1').expect(200);
        expect(read.headers['x-request-id']).toBe('poll-enhancement-1');
        expect(read.body.request_id).toBe('poll-enhancement-1');
        expect(Object.keys(read.body).sort()).toEqual(['enhancement', 'request_id']);
        const shown = read.body.enhancement;
        expect(Object.keys(shown).sort()).toEqual([
          'completed_at',
          'completed_items',
          'created_at',
          'credits_reserved',
          'credits_used',
          'failed_items',
          'id',
          'items',
          'sandbox',
          'total_items',
        ]);
        expect(shown).toMatchObject({
          id,
          total_items: 2,
          completed_items: 1,
          failed_items: 1,
          credits_reserved: 0,
          credits_used: 0,
          sandbox: true,
        });
        expect(shown.created_at).toMatch(ISO_UTC);
        expect(shown.completed_at).toMatch(ISO_UTC);
        for (const item of shown.items) {
          expect(Object.keys(item).sort()).toEqual([
            'credits_reserved',
            'credits_used',
            'error_code',
            'error_message',
            'external_id',
            'id',
            'result_url',
            'segmentation',
            'source_preview_url',
            'subject_hints',
            'thumbnail_url',
            'uncertainty',
          ]);
        }
        const [shoe, bag] = shown.items;
        // A sandbox cut-out (marketplace_clean) reports a sure uncertainty and the sandbox's segmentation; a failed
        // result neither.
        expect(shoe).toMatchObject({
          external_id: 'shoe-1',
          error_code: null,
          error_message: null,
          subject_hints: null,
          uncertainty: 0.05,
          segmentation: { model: 'sandbox', version: '1', post_processing_version: MASK_POST_PROCESSING_VERSION },
        });
        expect(bag).toMatchObject({
          external_id: 'sandbox_fail_bag-2',
          result_url: null,
          thumbnail_url: null,
          error_code: 'sandbox_simulated_failure',
          uncertainty: null,
          segmentation: null,
        });
        expect(bag.error_message).toEqual(expect.any(String));
        const image = await t.http().get(pathOf(shoe.result_url)).expect(200);
        expect(image.headers['content-type']).toBe('image/jpeg');
        await t.http().get(pathOf(shoe.thumbnail_url)).expect(200);
        expect((await t.http().get(pathOf(shoe.source_preview_url)).expect(200)).headers['content-type']).toBe(
          'image/webp',
        );
        expect(bag.source_preview_url).toBeNull();

        // The same job, seen as a job (contract section 7).
        const asJob = await t.http().get(`/api/v1/jobs/${id}`).set(bearer(account.sandboxKey)).expect(200);
        expect(asJob.body.job).toMatchObject({
          id,
          api: 'image_editing',
          status: 'partially_completed',
          total_results: 2,
        });
        expect(asJob.body.results.map((r: { id: string }) => r.id)).toEqual(
          shown.items.map((i: { id: string }) => i.id),
        );
      });

      it('reserves and captures a live product photo job’s credits item by item', async () => {
        const before = await creditTotals(t, account.accountId);
        const res = await client.create(
          account.liveKey,
          {
            images: [
              { source_url: 'https://images.example.com/p/mug.jpg', external_id: 'mug-1' },
              { source_url: 'https://images.example.com/p/cup.jpg', external_id: 'fail-cup-2' },
            ],
          },
          '/api/v1/product-photo-jobs',
        );
        expect(res.status).toBe(202);
        expect(res.body.job).toMatchObject({ total_items: 2, credits_reserved: 4, sandbox: false });
        expect(res.body.remaining_paid_credits).toBe(before.balance - 4);
        await waitForJob(t, res.body.job.id);

        const read = await enhancement(account.liveKey, res.body.job.id).expect(200);
        expect(read.body.enhancement).toMatchObject({
          sandbox: false,
          completed_items: 1,
          failed_items: 1,
          credits_reserved: 4,
          credits_used: 2,
        });
        expect(read.body.enhancement.items).toEqual([
          expect.objectContaining({ external_id: 'mug-1', credits_reserved: 2, credits_used: 2, error_code: null }),
          expect.objectContaining({
            external_id: 'fail-cup-2',
            credits_reserved: 2,
            credits_used: 0,
            error_code: 'provider_error',
          }),
        ]);
        expect((await creditTotals(t, account.accountId)).balance).toBe(before.balance - 2);
      });

      it(
        'answers 404 across accounts and environments, for ' + 'standard jobs and unknown ids, 400 for a non-UUID',
        async () => {
          const created = await client.create(
            account.sandboxKey,
            { images: [{ source_url: 'https://images.example.com/p/hat.jpg', external_id: 'hat-1' }] },
            '/api/v1/product-photo-jobs',
          );
          expect(created.status).toBe(202);
          const id: string = created.body.job.id;
          await enhancement(account.sandboxKey, id).expect(200);

          const other = await seedAccount(t);
          for (const key of [other.sandboxKey, other.liveKey, account.liveKey]) {
            expectError(await enhancement(key, id), 404, 'not_found');
          }
          const standard = await client.createJob(account.sandboxKey, { input: imageInputs(1) });
          expectError(await enhancement(account.sandboxKey, standard), 404, 'not_found');
          expectError(await enhancement(account.sandboxKey, UNKNOWN_JOB_ID), 404, 'not_found');
          const invalid = await enhancement(account.sandboxKey, 'not-a-uuid');
          expectError(invalid, 400, 'invalid_request');
          expect(invalid.body.error.details.errors[0].path).toBe('path.enhancementId');
          await waitForJob(t, id);
          await waitForJob(t, standard);
        },
      );
    });
  });

  describe('with no worker consuming and a small polling limit', () => {
    let t: TestApp;
    let client: ReturnType<typeof jobsClient>;

    beforeAll(async () => {
      t = await createTestApp(
        {
          ...LIMITS,
          LIMIT_POLLS_PER_HOUR_KEY: '3',
          LIMIT_POLLS_PER_HOUR_ACCOUNT: '5',
          RATE_LIMIT_WINDOW_SECONDS: '60',
        },
        { role: ProcessRole.Api, override: withFakeProvider() },
      );
      client = jobsClient(t);
    });
    afterAll(() => t.close());

    it('cancels a queued product photo job: every item cancelled, its credits released', async () => {
      const account = await seedAccount(t, { credits: 20 });
      const created = await client.create(
        account.liveKey,
        {
          images: [
            { source_url: 'https://images.example.com/p/lamp.jpg', external_id: 'lamp-1' },
            { source_url: 'https://images.example.com/p/sofa.jpg', external_id: 'sofa-2' },
          ],
          operation: 'studio_packshot',
        },
        '/api/v1/product-photo-jobs',
      );
      expect(created.status).toBe(202);
      expect(created.body.remaining_paid_credits).toBe(16);
      const id: string = created.body.job.id;

      const cancelled = await t.http().post(`/api/v1/jobs/${id}/cancel`).set(bearer(account.liveKey)).expect(200);
      expect(Object.keys(cancelled.body).sort()).toEqual(['job', 'request_id', 'results']);
      expect(cancelled.body.job).toMatchObject({ id, status: 'cancelled', credits_reserved: 4, credits_used: 0 });
      expect(cancelled.body.results.map((r: { status: string }) => r.status)).toEqual(['cancelled', 'cancelled']);
      for (const result of cancelled.body.results) {
        expect(Object.keys(result).sort()).toEqual(RESULT_FIELDS);
        expect(result.completed_at).toMatch(ISO_UTC);
      }
      expect(await creditTotals(t, account.accountId)).toEqual({ balance: 20, ledgerSum: 20 });

      const read = await t
        .http()
        .get(`/api/v1/product-image-enhancements/${id}`)
        .set(bearer(account.liveKey))
        .expect(200);
      expect(read.body.enhancement).toMatchObject({ completed_items: 0, failed_items: 0, credits_used: 0 });
      expect(read.body.enhancement.completed_at).toBe(cancelled.body.job.completed_at);
      expect(read.body.enhancement.items.every((item: { result_url: unknown }) => item.result_url === null)).toBe(true);
    });

    it('counts polls answered with an error, and not cancels, against the polling limit', async () => {
      const account = await seedAccount(t);
      const id = await client.createJob(account.sandboxKey, { input: imageInputs(1) });
      for (let i = 0; i < 5; i++) {
        await t.http().post(`/api/v1/jobs/${id}/cancel`).set(bearer(account.sandboxKey)).expect(200);
      }
      const res = await t.http().get(`/api/v1/jobs/${id}`).set(bearer(account.sandboxKey)).expect(200);
      expect(res.headers['ratelimit-remaining']).toBe('2');
      // A poll answered with an error still counts, and still says so.
      const missing = await t.http().get(`/api/v1/jobs/${UNKNOWN_JOB_ID}`).set(bearer(account.sandboxKey));
      expectError(missing, 404, 'not_found');
      expect(missing.headers['ratelimit-remaining']).toBe('1');
    });

    it(
      'ends polls in 429 rate_limit_exceeded, GET /jobs and ' +
        'GET /jobs/{id} counted together, per key then per account',
      async () => {
        const account = await seedAccount(t);
        const other = await seedAccount(t);
        const id = await client.createJob(account.liveKey, { input: imageInputs(1) });
        const polls = [
          () => client.list(account.liveKey),
          () => t.http().get(`/api/v1/jobs/${id}`).set(bearer(account.liveKey)),
          () => client.list(account.liveKey, { limit: 1 }),
        ];
        const remaining: string[] = [];
        for (const poll of polls) {
          const res = await poll().expect(200);
          expect(res.headers['ratelimit-limit']).toBe('3');
          expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
          remaining.push(res.headers['ratelimit-remaining']);
        }
        expect(remaining).toEqual(['2', '1', '0']);

        for (const poll of [polls[0], polls[1]]) {
          const refused = await poll();
          expectError(refused, 429, 'rate_limit_exceeded');
          expect(refused.body.error.details).toMatchObject({ scope: 'key', limit: 3 });
          const retryAfter = refused.headers['retry-after'];
          expect(retryAfter).toMatch(/^\d+$/);
          expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
          expect(Number(retryAfter)).toBeLessThanOrEqual(60);
          expect(refused.headers['ratelimit-limit']).toBe('3');
          expect(refused.headers['ratelimit-remaining']).toBe('0');
          expect(Number(refused.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
          expect(refused.body.error.message).toMatch(/retry in \d+ seconds/i);
        }

        // The account's other key has its own 3, but the account only 5 in all: 2 more, then 429.
        const sandboxPolls = [];
        for (let i = 0; i < 3; i++) sandboxPolls.push(await client.list(account.sandboxKey));
        expect(sandboxPolls.map((res) => res.status)).toEqual([200, 200, 429]);
        expect(sandboxPolls.map((res) => res.headers['ratelimit-limit'])).toEqual(['5', '5', '5']);
        expect(sandboxPolls.map((res) => res.headers['ratelimit-remaining'])).toEqual(['1', '0', '0']);
        expect(sandboxPolls[2].body.error).toMatchObject({
          code: 'rate_limit_exceeded',
          details: { scope: 'account', limit: 5 },
        });
        expect(Number(sandboxPolls[2].headers['retry-after'])).toBeGreaterThanOrEqual(1);

        // Another account polls on.
        await client.list(other.liveKey).expect(200);
      },
    );
  });
});
