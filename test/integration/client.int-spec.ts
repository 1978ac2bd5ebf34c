import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ImageJobsApiError,
  ImageJobsClient,
  WebhookVerificationError,
  verifyWebhook,
  type ErrorCode,
  type JobStatus,
  type WebhookEvent,
} from '../../packages/client/src';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { OUTBOUND_TLS } from '../../src/core/outbound/outbound.module';
import { signWebhook } from '../../src/modules/webhooks/webhook-signature';
import { decodeRgba, fromFixture, paint, type Rgb } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { freePort } from '../support/processes';
import { createTestApp, seedAccount, TEST_ADMIN_TOKEN, type SeededAccount, type TestApp } from '../support/test-app';
import { testCertificate, WebhookReceiver, type ReceivedDelivery } from '../support/webhook-receiver';

/**
 * Polls are limited to 4 per key in a 2-second window, so the suite meets the limit (and its Retry-After) on purpose
 * and `waitForJob` must pace itself by the RateLimit-* headers; every other limit is out of the way.
 */
const POLLS_PER_WINDOW = 4;
const SETTINGS = {
  RATE_LIMIT_WINDOW_SECONDS: '2',
  LIMIT_POLLS_PER_HOUR_KEY: String(POLLS_PER_WINDOW),
  LIMIT_POLLS_PER_HOUR_ACCOUNT: '1000',
  LIMIT_POLLS_PER_HOUR_IP: '1000',
  LIMIT_CREATES_PER_HOUR_KEY: '1000',
  LIMIT_CREATES_PER_HOUR_ACCOUNT: '1000',
  LIMIT_CREATES_PER_HOUR_IP: '1000',
  LIMIT_ACTIVE_JOBS_PER_KEY: '50',
  LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '50',
  OUTBOUND_ALLOWLIST: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '0,1,1',
  SANDBOX_SLOW_SECONDS: '3',
};

/** What the client's fetch saw of each answer. */
interface Exchange {
  method: string;
  path: string;
  status: number;
  retryAfter: string | null;
  idempotencyKey: string | null;
}

const RED: Rgb = [220, 20, 20];
const BLUE: Rgb = [20, 20, 220];

/** Red on the left, blue on the right, each within `tolerance` levels, measured an eighth in from each side. */
function expectHalves(image: Awaited<ReturnType<typeof decodeRgba>>, tolerance: number): void {
  const y = Math.floor(image.height / 2);
  const inset = Math.floor(image.width / 8);
  for (const [x, colour] of [
    [inset, RED],
    [image.width - 1 - inset, BLUE],
  ] as const) {
    image
      .pixel(x, y)
      .slice(0, 3)
      .forEach((channel, i) => expect(Math.abs(channel - colour[i])).toBeLessThanOrEqual(tolerance));
  }
}

describe(ImageJobsClient.name, () => {
  let t: TestApp;
  let sources: ImageSourceServer;
  let account: SeededAccount;
  let baseUrl: string;
  let exchanges: Exchange[];

  /** A client for `apiKey` whose fetch records every exchange. */
  const clientFor = (apiKey: string) =>
    new ImageJobsClient({
      apiKey,
      baseUrl,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const headers = new Headers(init?.headers);
        exchanges.push({
          method: init?.method ?? 'GET',
          path: new URL(input instanceof Request ? input.url : input).pathname,
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          idempotencyKey: headers.get('idempotency-key'),
        });
        return response;
      },
    });

  beforeAll(async () => {
    sources = await ImageSourceServer.start();
    // Left half red, right half blue: a resize keeps each half's colour where it was.
    const halves = await fromFixture(paint(64, 32, (x) => (x < 32 ? RED : BLUE)))
      .png()
      .toBuffer();
    sources.serve('/halves.png', halves, { contentType: 'image/png' });
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const { cert } = testCertificate();
    t = await createTestApp(
      { ...SETTINGS, PUBLIC_BASE_URL: baseUrl },
      { role: ProcessRole.All, override: (builder) => builder.overrideProvider(OUTBOUND_TLS).useValue({ ca: [cert] }) },
    );
    await t.app.listen(port, '127.0.0.1');
    account = await seedAccount(t, { credits: 100 });
  });
  beforeEach(() => {
    exchanges = [];
  });
  afterAll(async () => {
    await t.close();
    await sources.stop();
  });

  it('creates a live job, waits for it within the polling limit and downloads its result, pixels checked', async () => {
    const client = clientFor(account.liveKey);
    const body = {
      input: [{ image_url: sources.url('/halves.png'), external_id: 'halves' }],
      operations: { resizing: { width: 32, height: 16, fit: 'contain' as const } },
      output: { format: 'png' as const },
    };
    const created = await client.editImage(body);
    expect(created.job).toMatchObject({ status: 'queued', sandbox: false, total_results: 1, credits_reserved: 1 });
    const sentKey = exchanges[0].idempotencyKey;
    expect(sentKey).toMatch(/^[A-Za-z0-9._:-]{8,160}$/);
    // The same key again is a replay: the same job, nothing reserved twice.
    const replayed = await client.editImage(body, { idempotencyKey: sentKey ?? undefined });
    expect(replayed.job.id).toBe(created.job.id);
    expect(replayed.remaining_paid_credits).toBe(created.remaining_paid_credits);

    const seen: JobStatus[] = [];
    const finished = await client.waitForJob(created.job.id, {
      intervalMs: 50,
      onUpdate: (job) => seen.push(job.job.status),
    });
    expect(finished.job.status).toBe('completed');
    expect(seen[seen.length - 1]).toBe('completed');
    // Paced by the RateLimit-* headers, the wait never met the polling limit.
    expect(exchanges.filter((exchange) => exchange.status === 429)).toEqual([]);
    expect(client.lastRateLimit).toMatchObject({ limit: POLLS_PER_WINDOW });

    const [result] = finished.results;
    expect(result).toMatchObject({ status: 'completed', external_id: 'halves', credits_used: 1 });
    const image = await decodeRgba(await client.download(result.result_url as string));
    expect([image.width, image.height]).toEqual([32, 16]);
    expectHalves(image, 12);
    const thumbnail = await decodeRgba(await client.download(result.thumbnail_url as string));
    expect(thumbnail.width).toBeGreaterThan(0);
  });

  it('uploads a file and a buffer, makes a job of both and refuses a body that is not the declared image', async () => {
    const client = clientFor(account.liveKey);
    const folder = await mkdtemp(join(tmpdir(), 'imgjobs-client-'));
    try {
      // Left half red, right half blue, as a JPEG file on disk and as a PNG buffer.
      const drawn = fromFixture(paint(48, 24, (x) => (x < 24 ? RED : BLUE)));
      const file = join(folder, 'halves.jpg');
      await writeFile(file, await drawn.clone().jpeg({ quality: 95 }).toBuffer());
      const fromFile = await client.upload(file);
      expect(fromFile).toMatchObject({ format: 'jpeg', content_type: 'image/jpeg', width: 48, height: 24 });
      expect(fromFile.image_url).toBe(`upload://${fromFile.id}`);
      const fromBuffer = await client.upload(await drawn.clone().png().toBuffer());
      expect(fromBuffer).toMatchObject({ format: 'png', width: 48, height: 24 });

      const created = await client.editImage({
        input: [
          { image_url: fromFile.image_url, external_id: 'file' },
          { image_url: fromBuffer.image_url, external_id: 'buffer' },
        ],
        operations: { resizing: { width: 24, height: 12, fit: 'contain' } },
        output: { format: 'png' },
      });
      const finished = await client.waitForJob(created.job.id, { intervalMs: 50 });
      expect(finished.job.status).toBe('completed');
      for (const result of finished.results) {
        const image = await decodeRgba(await client.download(result.result_url as string));
        expect([image.width, image.height]).toEqual([24, 12]);
        expectHalves(image, 16);
      }

      const refused = await client.upload(Buffer.from('not an image at all'), { contentType: 'image/png' }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(ImageJobsApiError);
      expect(refused).toMatchObject({ status: 400, code: 'invalid_request' });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('waits out a 429 for its Retry-After and then answers, for a plain read and for waitForJob', async () => {
    // A fresh key each time, so the window holds only this test's polls.
    const client = clientFor((await seedAccount(t)).sandboxKey);
    const { job } = await client.editImage({ input: [{ image_url: 'https://images.example.com/a.jpg' }] });
    // More reads at once than the window allows: the ones refused are retried after Retry-After, and all answer.
    const reads = await Promise.all(Array.from({ length: POLLS_PER_WINDOW + 2 }, () => client.getJob(job.id)));
    expect(reads.map((read) => read.job.id)).toEqual(Array(POLLS_PER_WINDOW + 2).fill(job.id));
    const refused = exchanges.filter((exchange) => exchange.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(2);
    for (const exchange of refused) expect(Number(exchange.retryAfter)).toBeGreaterThanOrEqual(1);

    // A full window: waitForJob meets a 429 on its first poll and waits it out rather than failing.
    const waiting = clientFor((await seedAccount(t)).sandboxKey);
    const second = await waiting.editImage({ input: [{ image_url: 'https://images.example.com/b.jpg' }] });
    await Promise.all(Array.from({ length: POLLS_PER_WINDOW }, () => waiting.getJob(second.job.id)));
    exchanges = [];
    const finished = await waiting.waitForJob(second.job.id, { intervalMs: 50 });
    expect(finished.job.status).toBe('completed');
    expect(exchanges[0]).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^[1-9]\d*$/) });
    expect(exchanges[exchanges.length - 1].status).toBe(200);
  });

  it("turns an error answer into a typed error with the envelope's code, details and request id", async () => {
    const client = clientFor(account.sandboxKey);
    const error = await client
      .editImage(
        { input: [{ image_url: 'not a url' }] },
        { requestId: 'client-typed-error', idempotencyKey: 'key-4567' },
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ImageJobsApiError);
    const apiError = error as ImageJobsApiError;
    const code: ErrorCode | 'unexpected_response' = apiError.code;
    expect({ status: apiError.status, code, requestId: apiError.requestId, key: apiError.idempotencyKey }).toEqual({
      status: 400,
      code: 'invalid_request',
      requestId: 'client-typed-error',
      key: 'key-4567',
    });
    expect(apiError.details.errors).toEqual([expect.objectContaining({ path: 'input[0].image_url' })]);
    // A 400 is final: sent once, never retried.
    expect(exchanges).toHaveLength(1);

    const missing = await client.getJob('0b5c7a3e-2f44-4c1e-9d3a-6f1f0c2b9e11').catch((caught: unknown) => caught);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    const unauthorized = await clientFor('sk_sandbox_notakey0000000000000000000000000')
      .account()
      .catch((caught: unknown) => caught);
    expect(unauthorized).toMatchObject({ status: 401, code: 'unauthorized' });
    expect((unauthorized as ImageJobsApiError).requestId).toEqual(expect.any(String));
  });

  it('reads the catalog, presets, account and job list, cancels a job and follows a product photo job', async () => {
    const client = clientFor(account.sandboxKey);
    const catalog = await client.catalog();
    expect(catalog.tools.map((tool) => tool.id)).toEqual(
      expect.arrayContaining(['remove_background', 'image_editing']),
    );
    const presets = await client.productPhotoPresets();
    expect(presets.presets.map((preset) => preset.id)).toContain('amazon_main_image');
    const me = await client.account();
    expect(me.account.id).toBe(account.accountId);

    const slow = await client.removeBackground({ input: [{ image_url: 'https://images.example.com/s.jpg' }] });
    const cancelled = await client.cancelJob(slow.job.id);
    expect(cancelled.job.id).toBe(slow.job.id);
    const listed = await client.listJobs({ limit: 100 });
    expect(listed.jobs.map((job) => job.id)).toContain(slow.job.id);

    const photo = await client.createProductPhotoJob({
      images: [{ source_url: 'https://images.example.com/p.jpg', external_id: 'sku-1' }],
      preset: 'amazon_main_image',
    });
    const enhancement = await client.getEnhancement(photo.job.id);
    expect(enhancement.enhancement).toMatchObject({ id: photo.job.id, total_items: 1, sandbox: true });
  });

  it('sets the review threshold, lists and counts flagged cut-outs, decides one and re-cuts it', async () => {
    const reviewer = await seedAccount(t);
    const client = clientFor(reviewer.sandboxKey);
    expect((await client.updateAccount({ review_threshold: 0.5 })).account.review_threshold).toBe(0.5);
    const created = await client.removeBackground({
      input: [{ image_url: 'https://images.example.com/u.jpg', external_id: 'sandbox_unsure-1' }],
    });
    await client.waitForJob(created.job.id);
    expect(await client.reviewSummary()).toMatchObject({ pending: 1, review_threshold: 0.5 });
    const [item] = (await client.listReviews({ state: 'pending', limit: 10 })).results;
    expect(item).toMatchObject({ job_id: created.job.id, needs_review: true, review: { state: 'pending' } });

    const decided = await client.decideReview(item.result_id, { decision: 'rejected', note: 'halo' });
    expect(decided.result.review).toMatchObject({ state: 'rejected', note: 'halo' });
    const recut = await client.removeBackground({
      input: [{ image_url: 'https://images.example.com/u.jpg', replaces_result_id: item.result_id }],
    });
    const [replacement] = (await client.waitForJob(recut.job.id)).results;
    expect(replacement.review?.replaces_result_id).toBe(item.result_id);
    expect((await client.review(item.result_id)).result.review.replaced_by_result_id).toBe(replacement.id);
    const refused = await client
      .decideReview(item.result_id, { decision: 'accepted' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ImageJobsApiError);
    expect((refused as ImageJobsApiError).code).toBe('already_recut');
  });

  describe('webhooks', () => {
    let receiver: WebhookReceiver;
    let secret: string;
    let delivery: ReceivedDelivery;

    beforeAll(async () => {
      receiver = await WebhookReceiver.start();
      const admin = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
      secret = (await t.http().get(`/admin/v1/accounts/${account.accountId}/webhook-secret`).set(admin).expect(200))
        .body.secret;
      const client = clientFor(account.sandboxKey);
      await client.editImage({
        input: [{ image_url: 'https://images.example.com/w.jpg', external_id: 'hooked' }],
        webhook_url: receiver.url,
      });
      [delivery] = await receiver.waitFor(1);
    });
    afterAll(() => receiver.stop());

    it('verifies a delivery the service signed and returns its event', () => {
      const event: WebhookEvent = verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret });
      expect(event.id).toBe(delivery.headers['x-service-event-id']);
      expect(event.type).toBe('image_api.result.completed');
      expect(event.result).toMatchObject({ external_id: 'hooked', status: 'completed' });
      // The same bytes as a Buffer, and fetch-style Headers, verify too.
      const headers = new Headers(
        Object.entries(delivery.headers).map(([name, value]) => [name, String(value)] as [string, string]),
      );
      expect(verifyWebhook({ payload: Buffer.from(delivery.body), headers, secret }).id).toBe(event.id);
    });

    it('refuses a tampered payload, timestamp or signature, a wrong secret and an old delivery', () => {
      const reasonOf = (change: Partial<Parameters<typeof verifyWebhook>[0]>): string => {
        try {
          verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret, ...change });
          return 'accepted';
        } catch (error) {
          expect(error).toBeInstanceOf(WebhookVerificationError);
          return (error as WebhookVerificationError).reason;
        }
      };
      const timestamp = Number(delivery.headers['x-service-timestamp']);
      const signature = String(delivery.headers['x-service-signature']);
      const flipped = signature.slice(0, -3) + (signature.slice(-3, -2) === 'A' ? 'B' : 'A') + signature.slice(-2);
      expect({
        payload: reasonOf({ payload: delivery.body.replace('"completed"', '"failed"') }),
        timestamp: reasonOf({ headers: { ...delivery.headers, 'x-service-timestamp': String(timestamp + 1) } }),
        signature: reasonOf({ headers: { ...delivery.headers, 'x-service-signature': flipped } }),
        secret: reasonOf({ secret: 'whsec_' + Buffer.alloc(32, 7).toString('base64') }),
        old: reasonOf({ now: (timestamp + 301) * 1000 }),
        unsigned: reasonOf({ headers: { ...delivery.headers, 'x-service-signature': undefined } }),
      }).toEqual({
        payload: 'invalid_signature',
        timestamp: 'invalid_signature',
        signature: 'invalid_signature',
        secret: 'invalid_signature',
        old: 'timestamp_outside_tolerance',
        unsigned: 'missing_headers',
      });
    });

    it("accepts a delivery signed with both secrets of a rotation by the service's own signer, given either", () => {
      const rotated = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
      const eventId = String(delivery.headers['x-service-event-id']);
      const timestamp = Number(delivery.headers['x-service-timestamp']);
      const headers = {
        'x-service-event-id': eventId,
        'x-service-timestamp': String(timestamp),
        'x-service-signature': signWebhook([rotated, secret], eventId, timestamp, delivery.body),
      };
      for (const each of [secret, rotated, [rotated, secret]]) {
        expect(verifyWebhook({ payload: delivery.body, headers, secret: each }).id).toBe(eventId);
      }
    });
  });
});
