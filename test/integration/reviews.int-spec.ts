import { Webhook } from 'standardwebhooks';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { runMigrations } from '../../src/core/database/migrate';
import { ResultReviews1764000000013 } from '../../src/core/database/migrations/1764000000013-result-reviews';
import { DEFAULT_REVIEW_THRESHOLD } from '../../src/modules/reviews/review-state';
import { OUTBOUND_TLS } from '../../src/core/outbound/outbound.module';
import { EventStream, listeningPort } from '../support/event-stream';
import { expectError } from '../support/http-errors';
import { FakeSegmentationService } from '../support/fake-segmentation-service';
import { fromFixture, paint } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import {
  creditTotals,
  idempotencyKey,
  jobsClient,
  waitForJob,
  writtenRows,
  type ResultBody,
  type ShownReview,
} from '../support/jobs';
import { liveCutoutApp } from '../support/live-cutouts';
import { GENEROUS_LIMITS } from '../support/limits';
import {
  bearer,
  createTestApp,
  seedAccount,
  TEST_ADMIN_TOKEN,
  type SeededAccount,
  type TestApp,
} from '../support/test-app';
import { sleep } from '../support/waiting';
import { testServices } from '../support/test-services';
import { standardHeaders, testCertificate, WebhookReceiver } from '../support/webhook-receiver';

/** Sandbox cut-outs report 0.05, or 0.9 for an `external_id` starting with `sandbox_unsure`. */
const SURE = 0.05;
const UNSURE = 0.9;

interface ReviewItem {
  result_id: string;
  job_id: string;
  tool: string;
  index: number;
  external_id: string | null;
  uncertainty: number;
  needs_review: boolean;
  review: ShownReview;
  completed_at: string;
}

interface EventBody {
  type: string;
  job: { id: string };
  result: ResultBody & { result_url: string | null };
}

describe('reviews of cut-outs, through the API and a worker', () => {
  let t: TestApp;
  let account: SeededAccount;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    const { cert } = testCertificate();
    t = await createTestApp(
      { ...GENEROUS_LIMITS, OUTBOUND_ALLOWLIST: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '0,1,1' },
      {
        role: ProcessRole.All,
        override: (builder) => builder.overrideProvider(OUTBOUND_TLS).useValue({ ca: [cert] }),
      },
    );
    account = await seedAccount(t);
    receiver = await WebhookReceiver.start();
  }, 60_000);
  afterAll(async () => {
    await receiver?.stop();
    await t?.close();
  });

  const key = (who: SeededAccount = account) => bearer(who.sandboxKey);

  const setThreshold = (threshold: unknown, who: SeededAccount = account) =>
    t.http().patch('/api/v1/account').set(key(who)).send({ review_threshold: threshold });

  /** A settled remove-background job of `externalIds`, one result each (index order). */
  async function cutouts(
    externalIds: string[],
    { who = account, webhook = false }: { who?: SeededAccount; webhook?: boolean } = {},
  ): Promise<{ jobId: string; results: ResultBody[] }> {
    const jobs = jobsClient(t, () => who.sandboxKey);
    const res = await jobs
      .create('/remove-background', {
        input: externalIds.map((id, i) => ({ image_url: `https://images.example.com/p/${i}.jpg`, external_id: id })),
        ...(webhook ? { webhook_url: receiver.url } : {}),
      })
      .expect(202);
    const jobId: string = res.body.job.id;
    return { jobId, results: await jobs.results(jobId) };
  }

  const readResults = async (jobId: string, who: SeededAccount = account): Promise<ResultBody[]> =>
    (await jobsClient(t, () => who.sandboxKey).read(jobId)).results;

  const list = (query: Record<string, string | number>, who: SeededAccount = account) =>
    t.http().get('/api/v1/reviews').query(query).set(key(who));

  const decide = (resultId: string, body: object, who: SeededAccount = account) =>
    t.http().post(`/api/v1/reviews/${resultId}/decision`).set(key(who)).send(body);

  const reviewEvents = async (resultId: string): Promise<number> => {
    const [row] = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM webhook_events WHERE result_id = $1 AND type = 'image_api.result.reviewed'`,
      [resultId],
    );
    return row.n;
  };

  const resultRow = async (resultId: string) =>
    (
      await t.dataSource.query(
        `SELECT flagged, review_state, decided_by, decided_at, review_note, replaces_result_id, replaced_by_result_id
           FROM job_results WHERE id = $1`,
        [resultId],
      )
    )[0];

  describe('the account setting', () => {
    it('shows the default threshold, changes it, and refuses bad values without changing it', async () => {
      const other = await seedAccount(t);
      const before = await t.http().get('/api/v1/account').set(key(other)).expect(200);
      expect(before.body.account.review_threshold).toBe(0.539);

      const changed = await setThreshold(0.35, other).expect(200);
      expect(changed.body).toEqual({
        account: { ...before.body.account, review_threshold: 0.35 },
        api_key: before.body.api_key,
        request_id: changed.headers['x-request-id'],
      });
      // One setting for the account: its live key sees it too.
      expect((await t.http().get('/api/v1/account').set(bearer(other.liveKey)).expect(200)).body.account).toMatchObject(
        { review_threshold: 0.35 },
      );

      for (const body of [
        { review_threshold: 1.01 },
        { review_threshold: -0.1 },
        { review_threshold: '0.5' },
        { review_threshold: null },
        {},
        { review_threshold: 0.5, name: 'x' },
      ]) {
        const refused = await t.http().patch('/api/v1/account').set(key(other)).send(body);
        expectError(refused, 400, 'invalid_request');
      }
      expect((await t.http().get('/api/v1/account').set(key(other)).expect(200)).body.account.review_threshold).toBe(
        0.35,
      );
    });

    it('flags cut-outs at or above the threshold on completion (job, webhook); later changes move none', async () => {
      const who = await seedAccount(t);
      await setThreshold(UNSURE, who).expect(200);
      const { jobId, results } = await cutouts(['sandbox_unsure-1', 'sure-2'], { who, webhook: true });
      const [unsure, sure] = results;
      expect(unsure).toMatchObject({ uncertainty: UNSURE, needs_review: true });
      expect(unsure.review).toEqual({
        state: 'pending',
        decided_by: null,
        decided_at: null,
        note: null,
        replaces_result_id: null,
        replaced_by_result_id: null,
      });
      expect(sure).toMatchObject({ uncertainty: SURE, needs_review: false, review: { state: 'pending' } });

      await receiver.waitFor(1);
      const events = await (async () => {
        for (;;) {
          const mine = receiver.received
            .map((delivery) => JSON.parse(delivery.body) as EventBody)
            .filter((event) => event.job.id === jobId && event.type === 'image_api.result.completed');
          if (mine.length === 2) return mine;
          await sleep(50);
        }
      })();
      const byId = new Map(events.map((event) => [event.result.id, event.result]));
      expect(byId.get(unsure.id)).toMatchObject({ needs_review: true, review: { state: 'pending' } });
      expect(byId.get(sure.id)).toMatchObject({ needs_review: false, review: { state: 'pending' } });

      // Raised above both: the flags already recorded stay; a new unsure cut-out is not flagged.
      await setThreshold(0.95, who).expect(200);
      const [again, againSure] = await readResults(jobId, who);
      expect([again.needs_review, againSure.needs_review]).toEqual([true, false]);
      const later = await cutouts(['sandbox_unsure-3'], { who });
      expect(later.results[0]).toMatchObject({ uncertainty: UNSURE, needs_review: false });
      // Lowered to the sure score: a sure cut-out completing now is flagged, the earlier sure one is not.
      await setThreshold(SURE, who).expect(200);
      const lowered = await cutouts(['sure-4'], { who });
      expect(lowered.results[0].needs_review).toBe(true);
      expect((await readResults(jobId, who))[1].needs_review).toBe(false);
    });

    it('gives a result that is not a cut-out no review', async () => {
      const res = await t
        .http()
        .post('/api/v1/image/edit')
        .set(key())
        .set('Idempotency-Key', idempotencyKey())
        .send({
          input: [{ image_url: 'https://images.example.com/p/x.jpg' }],
          operations: { resizing: { width: 100 } },
        })
        .expect(202);
      await waitForJob(t, res.body.job.id);
      const [result] = await readResults(res.body.job.id);
      expect(result).toMatchObject({ status: 'completed', uncertainty: null, needs_review: false, review: null });
    });
  });

  describe('GET /reviews', () => {
    let who: SeededAccount;
    let newestFirst: string[];
    beforeAll(async () => {
      who = await seedAccount(t);
      await setThreshold(SURE, who).expect(200);
      await cutouts(['sandbox_unsure-a', 'sure-b', 'sandbox_unsure-c', 'sure-d'], { who });
      await cutouts(['sandbox_unsure-e', 'sure-f', 'sure-g'], { who });
      const edit = await t
        .http()
        .post('/api/v1/image/edit')
        .set(key(who))
        .set('Idempotency-Key', idempotencyKey())
        .send({
          input: [{ image_url: 'https://images.example.com/p/e.jpg', external_id: 'edit-h' }],
          operations: { background: { type: 'white' } },
        })
        .expect(202);
      await waitForJob(t, edit.body.job.id);
      // Another account's flagged cut-outs, never listed for `who`.
      const stranger = await seedAccount(t);
      await setThreshold(0, stranger).expect(200);
      await cutouts(['sandbox_unsure-x', 'sure-y'], { who: stranger });
      const rows: Array<{ id: string }> = await t.dataSource.query(
        `SELECT id FROM job_results WHERE account_id = $1 ORDER BY completed_at DESC, id DESC`,
        [who.accountId],
      );
      newestFirst = rows.map((row) => row.id);
      expect(newestFirst).toHaveLength(8);
    }, 60_000);

    it('pages through every flagged result once, newest completed first', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: Record<string, string | number> = cursor
          ? { state: 'all', limit: 3, cursor }
          : { state: 'all', limit: 3 };
        const res = await list(query, who).expect(200);
        expect(Object.keys(res.body).sort()).toEqual(['next_cursor', 'request_id', 'results']);
        expect(res.body.results.length).toBeLessThanOrEqual(3);
        seen.push(...(res.body.results as ReviewItem[]).map((item) => item.result_id));
        cursor = res.body.next_cursor;
        pages += 1;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual(newestFirst);
    });

    it('shows each item as agreed', async () => {
      const res = await list({ limit: 1, tool: 'remove_background', min_uncertainty: 0.5 }, who).expect(200);
      const [item] = res.body.results as Array<ReviewItem & Record<string, unknown>>;
      expect(Object.keys(item).sort()).toEqual([
        'completed_at',
        'external_id',
        'index',
        'job_id',
        'needs_review',
        'result_id',
        'result_url',
        'review',
        'source_image_url',
        'source_preview_url',
        'thumbnail_url',
        'tool',
        'uncertainty',
      ]);
      expect(item).toMatchObject({
        tool: 'remove_background',
        external_id: 'sandbox_unsure-e',
        uncertainty: UNSURE,
        needs_review: true,
        review: { state: 'pending', decided_by: null },
        result_url: expect.stringContaining('/api/v1/files/'),
        thumbnail_url: expect.stringContaining('/api/v1/files/'),
      });
    });

    it('filters by state, tool, completion time and uncertainty', async () => {
      const ids = async (query: Record<string, string | number>) =>
        ((await list({ limit: 100, ...query }, who).expect(200)).body.results as ReviewItem[]).map(
          (item) => item.external_id,
        );
      expect(await ids({})).toHaveLength(8);
      expect(await ids({ tool: 'image_editing' })).toEqual(['edit-h']);
      expect((await ids({ tool: 'remove_background' })).sort()).toEqual(
        ['sandbox_unsure-a', 'sure-b', 'sandbox_unsure-c', 'sure-d', 'sandbox_unsure-e', 'sure-f', 'sure-g'].sort(),
      );
      expect((await ids({ min_uncertainty: 0.5 })).sort()).toEqual(
        ['sandbox_unsure-a', 'sandbox_unsure-c', 'sandbox_unsure-e'].sort(),
      );
      expect(await ids({ max_uncertainty: 0.5, tool: 'remove_background' })).toHaveLength(4);
      expect(await ids({ state: 'accepted' })).toEqual([]);

      // Two results moved back in time: the date range finds them, and only them.
      const [oldest, older] = newestFirst.slice(-2);
      await t.dataSource.query(`UPDATE job_results SET completed_at = '2026-01-01T10:00:00Z' WHERE id = $1`, [oldest]);
      await t.dataSource.query(`UPDATE job_results SET completed_at = '2026-01-02T10:00:00Z' WHERE id = $1`, [older]);
      const inRange = async (query: Record<string, string>) =>
        ((await list({ state: 'all', ...query }, who).expect(200)).body.results as ReviewItem[]).map(
          (item) => item.result_id,
        );
      expect(await inRange({ completed_from: '2026-01-01T00:00:00Z', completed_to: '2026-01-03T00:00:00Z' })).toEqual([
        older,
        oldest,
      ]);
      expect(
        await inRange({ completed_from: '2026-01-01T12:00:00+01:00', completed_to: '2026-01-02T10:00:00Z' }),
      ).toEqual([]);
      expect(await inRange({ completed_to: '2026-01-02T10:00:00.001Z' })).toEqual([older, oldest]);
    });

    it('lists nothing of another account, and the summary counts only the caller’s', async () => {
      const stranger = await seedAccount(t);
      expect((await list({ state: 'all' }, stranger).expect(200)).body).toMatchObject({
        results: [],
        next_cursor: null,
      });
      const summary = await t.http().get('/api/v1/reviews/summary').set(key(who)).expect(200);
      expect(summary.body).toEqual({ pending: 8, review_threshold: SURE, request_id: summary.headers['x-request-id'] });
      // A live key sees the live environment's: none here.
      expect((await t.http().get('/api/v1/reviews/summary').set(bearer(who.liveKey)).expect(200)).body.pending).toBe(0);
      expect((await list({ state: 'all' }, { ...who, sandboxKey: who.liveKey }).expect(200)).body.results).toEqual([]);
    });

    it.each([
      ['state', { state: 'done' }],
      ['tool', { tool: 'paint' }],
      ['limit', { limit: 0 }],
      ['limit', { limit: 101 }],
      ['min_uncertainty', { min_uncertainty: 'high' }],
      ['max_uncertainty', { max_uncertainty: 1.5 }],
      ['completed_from', { completed_from: 'yesterday' }],
      ['completed_to', { completed_to: '2026-01-01T00:00:00' }],
      ['max_uncertainty', { min_uncertainty: 0.6, max_uncertainty: 0.5 }],
      ['completed_to', { completed_from: '2026-01-02T00:00:00Z', completed_to: '2026-01-01T00:00:00Z' }],
      ['cursor', { cursor: 'bm90IGEgY3Vyc29y' }],
      ['colour', { colour: 'red' }],
    ])('refuses a bad %s with 400', async (field, query) => {
      const error = expectError(await list(query, who), 400, 'invalid_request');
      expect(JSON.stringify(error.details)).toContain(field);
    });

    it('reads its page on the list index, among thousands of results of its own and of other accounts', async () => {
      const big = await seedAccount(t);
      const strangers = await Promise.all([seedAccount(t), seedAccount(t)]);
      for (const owner of [big, ...strangers]) {
        await setThreshold(0, owner).expect(200);
        const { jobId } = await cutouts(['sandbox_unsure-1'], { who: owner });
        // Flagged and not, in every state, completed a second apart.
        await t.dataSource.query(
          `INSERT INTO job_results (id, job_id, account_id, sandbox, capacity_group, index, status, credits_reserved,
                                    uncertainty, flagged, review_state, completed_at)
           SELECT gen_random_uuid(), r.job_id, r.account_id, r.sandbox, r.capacity_group, 100 + g, 'completed', 0,
                  r.uncertainty, g % 4 <> 0, (ARRAY['pending', 'accepted', 'rejected', 'recut'])[1 + (g / 4) % 4],
                  now() - g * interval '1 second'
             FROM job_results r, generate_series(1, 3000) g WHERE r.job_id = $1`,
          [jobId],
        );
      }
      await t.dataSource.query('ANALYZE job_results');
      await t.dataSource.query('ANALYZE jobs');
      const planOf = async (query: Record<string, string>) => {
        const spy = jest.spyOn(t.dataSource, 'query');
        try {
          await list({ limit: 20, ...query }, big).expect(200);
          const call = spy.mock.calls.find(([sql]) => sql.includes('FROM job_results r JOIN jobs j'));
          if (!call) throw new Error('the list query was not seen');
          const [sql, params] = call;
          const [row] = await t.dataSource.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
          return JSON.stringify(row);
        } finally {
          spy.mockRestore();
        }
      };
      const scansOf = (plan: string) =>
        [...plan.matchAll(/"Node Type":"([^"]+)"[^{}]*?"Relation Name":"([^"]+)"/g)].map(([, node, table]) => ({
          node,
          table,
        }));
      const pending = await planOf({});
      const all = await planOf({ state: 'all' });
      expect(pending).toContain('"Index Name":"job_results_review_list_idx"');
      expect(all).toContain('"Index Name":"job_results_review_list_all_idx"');
      for (const plan of [pending, all]) {
        // Read in the index's order: no sort of the account's results, no scan of the table.
        expect(plan).not.toContain('"Node Type":"Sort"');
        expect(scansOf(plan)).toContainEqual({ node: 'Index Scan', table: 'job_results' });
        expect(scansOf(plan).filter((scan) => scan.table === 'job_results')).toEqual([
          { node: 'Index Scan', table: 'job_results' },
        ]);
      }
    }, 60_000);
  });

  describe('POST /reviews/{result_id}/decision', () => {
    let unsure: ResultBody;
    let sure: ResultBody;
    let jobId: string;
    beforeAll(async () => {
      ({
        jobId,
        results: [unsure, sure],
      } = await cutouts(['sandbox_unsure-1', 'sure-2'], { webhook: true }));
    });

    it('records a decision once, and a different one as a new decision', async () => {
      const first = await decide(unsure.id, { decision: 'rejected', note: 'halo on the left' }).expect(200);
      expect(first.body.result).toMatchObject({
        result_id: unsure.id,
        job_id: jobId,
        needs_review: false,
        review: { state: 'rejected', decided_by: account.sandboxKeyId, note: 'halo on the left' },
      });
      expect(first.body.result.review.decided_at).toEqual(expect.any(String));
      expect(await reviewEvents(unsure.id)).toBe(1);

      const again = await decide(unsure.id, { decision: 'rejected', note: 'halo on the left' }).expect(200);
      expect(again.body.result.review).toEqual(first.body.result.review);
      expect(await reviewEvents(unsure.id)).toBe(1);

      const changed = await decide(unsure.id, { decision: 'accepted' }).expect(200);
      expect(changed.body.result.review).toMatchObject({ state: 'accepted', note: null });
      expect(await reviewEvents(unsure.id)).toBe(2);
      const [shown] = await readResults(jobId);
      expect(shown).toMatchObject({ needs_review: false, review: changed.body.result.review });

      // A key with a name decides under its name.
      const named = await t
        .http()
        .post(`/admin/v1/accounts/${account.accountId}/api-keys`)
        .set({ Authorization: `Bearer ${TEST_ADMIN_TOKEN}` })
        .send({ environment: 'sandbox', name: 'Team lead' })
        .expect(201);
      const byName = await t
        .http()
        .post(`/api/v1/reviews/${unsure.id}/decision`)
        .set(bearer(named.body.secret))
        .send({ decision: 'accepted', note: 'by name' })
        .expect(200);
      expect(byName.body.result.review).toMatchObject({ state: 'accepted', decided_by: 'Team lead', note: 'by name' });
      expect(await reviewEvents(unsure.id)).toBe(3);

      // A result that was not flagged can be decided too.
      const decidedSure = await decide(sure.id, { decision: 'accepted' }).expect(200);
      expect(decidedSure.body.result).toMatchObject({ needs_review: false, review: { state: 'accepted' } });
    });

    it('sends image_api.result.reviewed, signed, to the job’s webhook_url', async () => {
      const secret = (
        await t
          .http()
          .get(`/admin/v1/accounts/${account.accountId}/webhook-secret`)
          .set({ Authorization: `Bearer ${TEST_ADMIN_TOKEN}` })
          .expect(200)
      ).body.secret as string;
      const verifier = new Webhook(secret);
      const reviewed = async () => {
        for (;;) {
          const found = receiver.received
            .map((delivery) => ({ delivery, event: JSON.parse(delivery.body) as EventBody }))
            .filter(({ event }) => event.type === 'image_api.result.reviewed' && event.result.id === unsure.id);
          if (found.length >= 3) return found;
          await sleep(50);
        }
      };
      const found = await reviewed();
      const events = found.map(
        ({ delivery }) => verifier.verify(delivery.body, standardHeaders(delivery.headers)) as EventBody,
      );
      expect(events.map((event) => event.result.review?.state)).toEqual(['rejected', 'accepted', 'accepted']);
      expect(events[0]).toMatchObject({
        job: { id: jobId },
        result: { status: 'completed', uncertainty: UNSURE, needs_review: false, result_url: expect.any(String) },
      });
    });

    it('tells the account’s open event streams of the change, as a result event of the result’s job', async () => {
      const port = await listeningPort(t);
      const stream = await EventStream.ready(port, account.sandboxKey);
      try {
        await decide(sure.id, { decision: 'rejected', note: 'seen in the stream' }).expect(200);
        const event = await stream.waitFor(
          (seen) => seen.event === 'result' && seen.data.result_id === sure.id,
          'the decision’s live event',
        );
        expect(event.data).toEqual({ job_id: jobId, result_id: sure.id, status: 'completed' });
      } finally {
        stream.close();
      }
    });

    it('refuses what it cannot decide with 404, 409 or 400, changing nothing', async () => {
      const stranger = await seedAccount(t);
      const { results: theirs } = await cutouts(['sandbox_unsure-9'], { who: stranger });
      const failed = await cutouts(['sandbox_fail_1']);
      const before = await resultRow(sure.id);
      const theirsBefore = await resultRow(theirs[0].id);
      const eventsBefore = await t.dataSource.query(`SELECT count(*)::int AS n FROM webhook_events`);

      expectError(await decide(theirs[0].id, { decision: 'accepted' }), 404, 'not_found');
      expectError(await decide('5a0d1c52-1f0e-4a49-9b8b-2f0f3e2b1a11', { decision: 'accepted' }), 404, 'not_found');
      // The live key of the same account: another environment.
      expectError(
        await t
          .http()
          .post(`/api/v1/reviews/${sure.id}/decision`)
          .set(bearer(account.liveKey))
          .send({ decision: 'accepted' }),
        404,
        'not_found',
      );
      expectError(await decide(failed.results[0].id, { decision: 'accepted' }), 409, 'not_reviewable');
      for (const body of [
        {},
        { decision: 'recut' },
        { decision: 'accepted', note: 'x'.repeat(1001) },
        { decision: 'accepted', note: 7 },
        { decision: 'accepted', reviewer: 'me' },
      ]) {
        expectError(await decide(sure.id, body), 400, 'invalid_request');
      }
      expectError(await decide('not-a-uuid', { decision: 'accepted' }), 400, 'invalid_request');

      expect(await resultRow(sure.id)).toEqual(before);
      expect(await resultRow(theirs[0].id)).toEqual(theirsBefore);
      expect(await resultRow(failed.results[0].id)).toMatchObject({ review_state: null, flagged: false });
      expect(await t.dataSource.query(`SELECT count(*)::int AS n FROM webhook_events`)).toEqual(eventsBefore);
    });
  });

  describe('re-cuts', () => {
    const recut = (replaces: string, { who = account, idem = idempotencyKey() } = {}) =>
      t
        .http()
        .post('/api/v1/remove-background')
        .set(key(who))
        .set('Idempotency-Key', idem)
        .send({ input: [{ image_url: 'https://images.example.com/p/again.jpg', replaces_result_id: replaces }] });

    it('links the re-cut and the replaced result both ways, once', async () => {
      const { jobId, results } = await cutouts(['sandbox_unsure-1']);
      const old = results[0];
      const idem = idempotencyKey();
      const created = await recut(old.id, { idem }).expect(202);
      const newJobId: string = created.body.job.id;
      await waitForJob(t, newJobId);
      const [fresh] = await readResults(newJobId);
      const [replaced] = await readResults(jobId);
      expect(replaced).toMatchObject({
        needs_review: false,
        review: { state: 'recut', decided_by: account.sandboxKeyId, replaced_by_result_id: fresh.id },
      });
      expect(replaced.review?.decided_at).toEqual(expect.any(String));
      expect(fresh.review).toMatchObject({ state: 'pending', replaces_result_id: old.id, replaced_by_result_id: null });
      expect(await reviewEvents(old.id)).toBe(1);

      // The same request again (its Idempotency-Key): the same job, nothing written twice.
      const rows = await writtenRows(t);
      const replay = await recut(old.id, { idem }).expect(200);
      expect(replay.body.job.id).toBe(newJobId);
      expect(await writtenRows(t)).toEqual(rows);
      expect(await reviewEvents(old.id)).toBe(1);

      // Another re-cut of it: 409, no job, no credits, no event.
      expectError(await recut(old.id), 409, 'already_recut');
      expectError(await decide(old.id, { decision: 'accepted' }), 409, 'already_recut');
      expect(await writtenRows(t)).toEqual(rows);
      expect(await reviewEvents(old.id)).toBe(1);
    });

    it('follows the links both ways through GET /reviews/{result_id}, flagged or not', async () => {
      const { jobId, results } = await cutouts(['sure-1']);
      const old = results[0];
      const created = await recut(old.id).expect(202);
      const newJobId: string = created.body.job.id;
      await waitForJob(t, newJobId);
      const [fresh] = await readResults(newJobId);

      const replaced = (await t.http().get(`/api/v1/reviews/${old.id}`).set(key()).expect(200)).body.result;
      expect(replaced).toMatchObject({
        result_id: old.id,
        job_id: jobId,
        needs_review: false,
        review: { state: 'recut', replaced_by_result_id: fresh.id },
      });
      const replacing = (await t.http().get(`/api/v1/reviews/${replaced.review.replaced_by_result_id}`).set(key())).body
        .result;
      expect(replacing).toMatchObject({
        result_id: fresh.id,
        job_id: newJobId,
        review: { replaces_result_id: old.id },
      });
      expect(replacing.source_preview_url).toEqual(expect.any(String));

      const stranger = await seedAccount(t);
      expectError(await t.http().get(`/api/v1/reviews/${old.id}`).set(key(stranger)), 404, 'not_found');
      const failed = await cutouts(['sandbox_fail_3']);
      expectError(await t.http().get(`/api/v1/reviews/${failed.results[0].id}`).set(key()), 409, 'not_reviewable');
      expectError(await t.http().get('/api/v1/reviews/nope').set(key()), 400, 'invalid_request');
    });

    it('gives a result back when its re-cut fails: it can be re-cut again, or decided as it is', async () => {
      const { jobId, results } = await cutouts(['sandbox_unsure-1', 'sandbox_unsure-2']);
      const failingRecut = (replaces: string) =>
        t
          .http()
          .post('/api/v1/remove-background')
          .set(key())
          .set('Idempotency-Key', idempotencyKey())
          .send({
            input: [
              {
                image_url: 'https://images.example.com/p/x.jpg',
                external_id: 'sandbox_fail_x',
                replaces_result_id: replaces,
              },
            ],
          })
          .expect(202);
      for (const old of results) {
        const failed = await failingRecut(old.id);
        await waitForJob(t, failed.body.job.id);
        expect((await readResults(failed.body.job.id))[0]).toMatchObject({ status: 'failed', review: null });
        expect(await resultRow(old.id)).toMatchObject({ review_state: 'recut' });
      }
      const [first, second] = results;

      const again = await recut(first.id).expect(202);
      await waitForJob(t, again.body.job.id);
      const [replacement] = await readResults(again.body.job.id);
      expect((await readResults(jobId))[0].review).toMatchObject({
        state: 'recut',
        replaced_by_result_id: replacement.id,
      });
      expect(replacement.review?.replaces_result_id).toBe(first.id);

      const decided = await decide(second.id, { decision: 'accepted', note: 'the first cut was fine' }).expect(200);
      expect(decided.body.result.review).toMatchObject({ state: 'accepted', replaced_by_result_id: null });
    });

    it('refuses another account’s result, an unknown one and one that is not a cut-out, creating nothing', async () => {
      const stranger = await seedAccount(t);
      const { results: theirs } = await cutouts(['sure-1'], { who: stranger });
      const failed = await cutouts(['sandbox_fail_2']);
      const rows = await writtenRows(t);
      expectError(await recut(theirs[0].id), 404, 'not_found');
      expectError(await recut('5a0d1c52-1f0e-4a49-9b8b-2f0f3e2b1a11'), 404, 'not_found');
      expectError(await recut(failed.results[0].id), 409, 'not_reviewable');
      expectError(await recut('nope'), 400, 'invalid_request');
      expect(await writtenRows(t)).toEqual(rows);
      expect(await resultRow(theirs[0].id)).toMatchObject({ review_state: 'pending', replaced_by_result_id: null });
    });

    it('refuses naming one result twice, or re-cutting into several variants', async () => {
      const { results } = await cutouts(['sure-1']);
      const twice = await t
        .http()
        .post('/api/v1/remove-background')
        .set(key())
        .set('Idempotency-Key', idempotencyKey())
        .send({
          input: [
            { image_url: 'https://images.example.com/p/1.jpg', replaces_result_id: results[0].id },
            { image_url: 'https://images.example.com/p/2.jpg', replaces_result_id: results[0].id },
          ],
        });
      expect(expectError(twice, 400, 'invalid_request').details).toMatchObject({
        errors: [{ path: 'input[1].replaces_result_id' }],
      });
      const variants = await t
        .http()
        .post('/api/v1/remove-background')
        .set(key())
        .set('Idempotency-Key', idempotencyKey())
        .send({
          input: [{ image_url: 'https://images.example.com/p/1.jpg', replaces_result_id: results[0].id }],
          output: { number_of_images: 2 },
        });
      expectError(variants, 400, 'invalid_request');
      expect(await resultRow(results[0].id)).toMatchObject({ review_state: 'pending' });
    });

    it('lets exactly one of two concurrent re-cuts of a result win', async () => {
      const { results } = await cutouts(['sandbox_unsure-1']);
      const rows = await writtenRows(t);
      const answers = await Promise.all([recut(results[0].id), recut(results[0].id)]);
      expect(answers.map((res) => res.status).sort()).toEqual([202, 409]);
      const lost = answers.find((res) => res.status === 409);
      expectError(lost as NonNullable<typeof lost>, 409, 'already_recut');
      const after = await writtenRows(t);
      expect(after.jobs).toBe(rows.jobs + 1);
      expect(after.results).toBe(rows.results + 1);
      const won = answers.find((res) => res.status === 202);
      const [row] = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM job_results WHERE replaces_result_id = $1`,
        [results[0].id],
      );
      expect(row.n).toBe(1);
      expect(won?.body.job.id).toEqual(expect.any(String));
    });
  });
});

describe(`${ResultReviews1764000000013.name}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(GENEROUS_LIMITS, { role: ProcessRole.All });
  }, 60_000);
  afterAll(() => t?.close());

  it('gives cut-outs completed before it a pending review, flagged by the default threshold; others none', async () => {
    const account = await seedAccount(t);
    const jobs = jobsClient(t, () => account.sandboxKey);
    const create = async (path: string, body: object): Promise<string> => {
      const res = await jobs.create(path, body).expect(202);
      await waitForJob(t, res.body.job.id);
      return res.body.job.id;
    };
    const input = (ids: string[]) =>
      ids.map((id, i) => ({ image_url: `https://images.example.com/${i}.jpg`, external_id: id }));
    await create('/remove-background', { input: input(['sandbox_unsure-1', 'sure-2', 'sandbox_fail_3']) });
    await create('/image/edit', { input: input(['resized-4']), operations: { resizing: { width: 64 } } });

    const migration = new ResultReviews1764000000013();
    const runner = t.dataSource.createQueryRunner();
    try {
      await migration.down(runner);
      await runner.query(`DELETE FROM schema_migrations WHERE name = $1`, [migration.name]);
    } finally {
      await runner.release();
    }
    const schema = (t.dataSource.options as { schema?: string }).schema as string;
    expect(await runMigrations({ url: testServices().databaseUrl, poolSize: 1, schema })).toEqual([migration.name]);

    const rows = await t.dataSource.query(
      `SELECT external_id, flagged, review_state, decided_at FROM job_results
        WHERE account_id = $1 ORDER BY external_id`,
      [account.accountId],
    );
    expect(rows).toEqual([
      { external_id: 'resized-4', flagged: false, review_state: null, decided_at: null },
      { external_id: 'sandbox_fail_3', flagged: false, review_state: null, decided_at: null },
      { external_id: 'sandbox_unsure-1', flagged: true, review_state: 'pending', decided_at: null },
      { external_id: 'sure-2', flagged: false, review_state: 'pending', decided_at: null },
    ]);
    const [threshold] = await t.dataSource.query(`SELECT review_threshold FROM accounts WHERE id = $1`, [
      account.accountId,
    ]);
    expect(threshold.review_threshold).toBe(DEFAULT_REVIEW_THRESHOLD);
  });
});

describe('reviews of live cut-outs made by a segmentation service', () => {
  let t: TestApp;
  let server: ImageSourceServer;
  let account: SeededAccount;
  const segmentation = new FakeSegmentationService();

  beforeAll(async () => {
    server = await ImageSourceServer.start();
    // An orange disc on flat blue-grey: the fake service keys out the corner's colour.
    const disc = paint(160, 120, (x, y) =>
      (x - 80) ** 2 + (y - 60) ** 2 <= 40 ** 2 ? [240, 140, 30] : [90, 100, 120],
    );
    server.serve('/disc.png', await fromFixture(disc).png().toBuffer(), { contentType: 'image/png' });
    t = await liveCutoutApp(server, segmentation);
    account = await seedAccount(t, { credits: 50 });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  const live = bearer;
  const cutout = (key: string, extra: object = {}) =>
    t
      .http()
      .post('/api/v1/remove-background')
      .set(live(key))
      .set('Idempotency-Key', idempotencyKey())
      .send({ input: [{ image_url: server.url('/disc.png'), ...extra }] });

  it('flags a live cut-out by its uncertainty, charges its re-cut once and a refused one nothing', async () => {
    await t.http().patch('/api/v1/account').set(live(account.liveKey)).send({ review_threshold: 0 }).expect(200);
    const created = await cutout(account.liveKey).expect(202);
    await waitForJob(t, created.body.job.id, undefined, 60_000);
    const [result] = (await t.http().get(`/api/v1/jobs/${created.body.job.id}`).set(live(account.liveKey)).expect(200))
      .body.results as ResultBody[];
    expect(result).toMatchObject({ status: 'completed', needs_review: true, review: { state: 'pending' } });
    expect(result.uncertainty).toEqual(expect.any(Number));
    const listed = await t.http().get('/api/v1/reviews').set(live(account.liveKey)).expect(200);
    expect(listed.body.results.map((item: ReviewItem) => item.result_id)).toEqual([result.id]);

    const charged = await creditTotals(t, account.accountId);
    const recut = await cutout(account.liveKey, { replaces_result_id: result.id }).expect(202);
    expect(recut.body.remaining_paid_credits).toBeLessThan(charged.balance);
    await waitForJob(t, recut.body.job.id, undefined, 60_000);
    const stranger = await seedAccount(t, { credits: 50 });
    const afterRecut = await creditTotals(t, account.accountId);
    const rows = await writtenRows(t);

    expectError(await cutout(account.liveKey, { replaces_result_id: result.id }), 409, 'already_recut');
    expectError(await cutout(stranger.liveKey, { replaces_result_id: result.id }), 404, 'not_found');
    // The same account's sandbox key: another environment.
    expectError(await cutout(account.sandboxKey, { replaces_result_id: result.id }), 404, 'not_found');
    expect(await writtenRows(t)).toEqual(rows);
    expect(await creditTotals(t, account.accountId)).toEqual(afterRecut);
    expect(await creditTotals(t, stranger.accountId)).toEqual({ balance: 50, ledgerSum: 50 });
  }, 120_000);
});
