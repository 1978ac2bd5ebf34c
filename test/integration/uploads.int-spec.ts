import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import sharp from 'sharp';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { QueueJobName } from '../../src/core/queue/queue-jobs';
import { QueueName } from '../../src/core/queue/queue-name';
import { ResultStorage } from '../../src/core/storage/result-storage';
import { expectError } from '../support/http-errors';
import { decodeRgba, fromFixture, paint, random } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { creditTotals, idempotencyKey, resultFile, waitForJob, type ResultBody } from '../support/jobs';
import { GENEROUS_LIMITS } from '../support/limits';
import { parseSamples, valueOf } from '../support/prometheus-text';
import { startLoopbackS3, type LoopbackS3 } from '../support/s3-server';
import {
  bearer,
  createTestApp,
  seedAccount,
  TEST_ADMIN_TOKEN,
  type SeededAccount,
  type TestApp,
} from '../support/test-app';
import { readUntil } from '../support/waiting';

/** Small, so a noisy photo of a few hundred pixels is over it while the test images stay under. */
const MAX_BYTES = 120_000;
const MAX_MEGAPIXELS = 2;
const UPLOADS_PER_KEY = 12;
const UPLOAD_URL = /^upload:\/\/upl_[A-Za-z0-9]{24}$/;

interface UploadBody {
  id: string;
  image_url: string;
  content_type: string;
  format: string;
  width: number;
  height: number;
  size_bytes: number;
  created_at: string;
  expires_at: string;
}

/** Left half red, right half blue: what an edit must keep, measurable on the result's pixels. */
const halves = (width: number, height: number) =>
  fromFixture(paint(width, height, (x) => (x < width / 2 ? [220, 30, 30] : [30, 30, 220])));

/** Random pixels compress badly, so this PNG is far larger than MAX_BYTES. */
const noisePng = (side: number) => {
  const next = random(7);
  return fromFixture(paint(side, side, () => [next() * 255, next() * 255, next() * 255]))
    .png()
    .toBuffer();
};

interface Store {
  settings: Record<string, string>;
  /** Every key the store holds under `uploads/`. */
  uploadKeys(t: TestApp): Promise<string[]>;
  stop(): Promise<void>;
}

async function localStore(): Promise<Store> {
  return {
    settings: {},
    async uploadKeys(t) {
      const root = join(t.config.STORAGE_DIR, 'uploads');
      const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
      return entries
        .filter((entry) => entry.isFile())
        .map((entry) => relative(t.config.STORAGE_DIR, join(entry.parentPath, entry.name)));
    },
    stop: async () => undefined,
  };
}

async function s3Store(): Promise<Store> {
  const s3: LoopbackS3 = await startLoopbackS3();
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.settings.S3_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.env.S3_ACCESS_KEY_ID, secretAccessKey: s3.env.S3_SECRET_ACCESS_KEY },
  });
  return {
    settings: s3.env,
    async uploadKeys() {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'uploads/' }));
      return (listed.Contents ?? []).map((object) => object.Key as string);
    },
    async stop() {
      client.destroy();
      await s3.stop();
    },
  };
}

describe.each([
  ['local', localStore],
  ['s3', s3Store],
])('uploads through the API and an in-process worker with STORAGE_DRIVER=%s', (_driver, startStore) => {
  let store: Store;
  let sources: ImageSourceServer;
  let t: TestApp;
  let owner: SeededAccount;
  let stranger: SeededAccount;

  beforeAll(async () => {
    store = await startStore();
    sources = await ImageSourceServer.start();
    sources.serve('/missing.jpg', 'no such image', { status: 404, contentType: 'text/plain' });
    t = await createTestApp(
      {
        ...GENEROUS_LIMITS,
        ...store.settings,
        SOURCE_MAX_BYTES: String(MAX_BYTES),
        SOURCE_MAX_MEGAPIXELS: String(MAX_MEGAPIXELS),
        LIMIT_UPLOADS_PER_HOUR_KEY: String(UPLOADS_PER_KEY),
        OUTBOUND_ALLOWLIST: '127.0.0.1',
        SWEEP_INTERVAL_SECONDS: '3600',
      },
      { role: ProcessRole.All },
    );
    owner = await seedAccount(t, { credits: 50, name: 'Owner' });
    stranger = await seedAccount(t, { credits: 50, name: 'Stranger' });
  });
  afterAll(async () => {
    await t.close();
    await sources.stop();
    await store.stop();
  });

  const upload = (key: string, contentType: string | null, body?: Buffer | string) => {
    const req = t.http().post('/api/v1/uploads').set(bearer(key));
    if (contentType !== null) req.set('Content-Type', contentType);
    return body === undefined ? req : req.send(body);
  };

  const uploaded = async (key: string, contentType: string, body: Buffer): Promise<UploadBody> => {
    const res = await upload(key, contentType, body);
    expect(res.status).toBe(201);
    return res.body.upload as UploadBody;
  };

  const createEdit = (key: string, input: object[], operations: object = {}) =>
    t
      .http()
      .post('/api/v1/image/edit')
      .set(bearer(key))
      .set('Idempotency-Key', idempotencyKey())
      .send({ input, operations })
      .expect(202);

  const finishedJob = async (key: string, jobId: string) => {
    await waitForJob(t, jobId, undefined, 45_000);
    return (await t.http().get(`/api/v1/jobs/${jobId}`).set(bearer(key)).expect(200)).body as {
      job: { status: string; credits_reserved: number; credits_used: number };
      results: Array<ResultBody & { source_image_url: string }>;
    };
  };

  const uploadRows = async (): Promise<number> =>
    Number((await t.dataSource.query(`SELECT count(*)::int AS n FROM uploads`))[0].n);

  const ledgerOfJob = async (jobId: string): Promise<Array<{ kind: string; amount: number }>> =>
    t.dataSource.query(`SELECT kind, amount FROM credit_ledger WHERE job_id = $1 ORDER BY created_at, kind DESC`, [
      jobId,
    ]);

  const metricSamples = async () =>
    parseSamples((await t.http().get('/metrics').set(bearer(TEST_ADMIN_TOKEN)).expect(200)).text);

  it('stores an upload and answers 201 with its id, image_url, size, format and expiry a day on', async () => {
    const bytes = await halves(240, 120).jpeg().toBuffer();
    const res = await upload(owner.liveKey, 'image/jpeg', bytes);
    expect(res.status).toBe(201);
    expect(res.headers['ratelimit-limit']).toBe(String(UPLOADS_PER_KEY));
    const body = res.body.upload as UploadBody;
    expect(Object.keys(body).sort()).toEqual(
      ['id', 'image_url', 'content_type', 'format', 'width', 'height', 'size_bytes', 'created_at', 'expires_at'].sort(),
    );
    expect(body).toMatchObject({
      image_url: `upload://${body.id}`,
      content_type: 'image/jpeg',
      format: 'jpeg',
      width: 240,
      height: 120,
      size_bytes: bytes.length,
    });
    expect(body.image_url).toMatch(UPLOAD_URL);
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(24 * 3600 * 1000);
    expect(res.body.request_id).toBe(res.headers['x-request-id']);

    const [row] = await t.dataSource.query(`SELECT account_id, storage_key FROM uploads WHERE id = $1`, [body.id]);
    expect(row.account_id).toBe(owner.accountId);
    expect(await store.uploadKeys(t)).toContain(row.storage_key);
    const file = await t.app.get(ResultStorage).open(row.storage_key);
    const chunks: Buffer[] = [];
    for await (const chunk of file!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('makes a job from the image_url, read from storage, and the result holds the uploaded pixels, edited', async () => {
    const image = await uploaded(owner.liveKey, 'image/png', await halves(200, 100).png().toBuffer());
    const before = await creditTotals(t, owner.accountId);
    const created = await createEdit(owner.liveKey, [{ image_url: image.image_url, external_id: 'uploaded' }], {
      resizing: { width: 100, height: 50, fit: 'contain' },
    });
    const { job, results } = await finishedJob(owner.liveKey, created.body.job.id);
    expect(job.status).toBe('completed');
    expect(results[0]).toMatchObject({ status: 'completed', credits_used: 1, source_image_url: image.image_url });

    const result = await decodeRgba(await resultFile(t, results[0].result_url as string));
    expect({ width: result.width, height: result.height }).toEqual({ width: 100, height: 50 });
    for (const [x, expected] of [
      [20, [220, 30, 30]],
      [80, [30, 30, 220]],
    ] as const) {
      const [r, g, b] = result.pixel(x, 25);
      for (const [channel, want] of [r, g, b].map((value, i) => [value, expected[i]])) {
        expect(Math.abs(channel - want)).toBeLessThanOrEqual(12);
      }
    }
    const after = await creditTotals(t, owner.accountId);
    expect(after.balance).toBe(before.balance - 1);
    expect(after.ledgerSum).toBe(after.balance);
  });

  it('takes uploads on every create endpoint that takes a source, product photo jobs included', async () => {
    const image = await uploaded(owner.liveKey, 'image/webp', await halves(120, 120).webp().toBuffer());
    const res = await t
      .http()
      .post('/api/v1/product-photo-jobs')
      .set(bearer(owner.sandboxKey))
      .set('Idempotency-Key', idempotencyKey())
      .send({ images: [{ source_url: image.image_url, external_id: 'sku-1' }] });
    expect(res.status).toBe(202);
    const { results } = await finishedJob(owner.sandboxKey, res.body.job.id);
    expect(results[0]).toMatchObject({ status: 'completed', source_image_url: image.image_url });
  });

  it('works with a sandbox key: the upload is stored and a sandbox job given it finishes as sandbox jobs do', async () => {
    const image = await uploaded(owner.sandboxKey, 'image/png', await halves(64, 64).png().toBuffer());
    const created = await createEdit(owner.sandboxKey, [{ image_url: image.image_url, external_id: 'sandboxed' }]);
    expect(created.body.job).toMatchObject({ sandbox: true, credits_reserved: 0 });
    const { job } = await finishedJob(owner.sandboxKey, created.body.job.id);
    expect(job.status).toBe('completed');
  });

  it("fails another account's upload exactly as a missing source, uncharged, and an unknown id the same", async () => {
    const image = await uploaded(owner.liveKey, 'image/png', await halves(80, 40).png().toBuffer());
    const before = await creditTotals(t, stranger.accountId);
    const created = await createEdit(stranger.liveKey, [
      { image_url: image.image_url, external_id: 'not-mine' },
      { image_url: 'upload://upl_000000000000000000000000', external_id: 'unknown' },
      { image_url: sources.url('/missing.jpg'), external_id: 'missing' },
    ]);
    expect(created.body.job.credits_reserved).toBe(3);
    const { job, results } = await finishedJob(stranger.liveKey, created.body.job.id);
    expect(job).toMatchObject({ status: 'failed', credits_used: 0 });
    const byId = new Map(results.map((result) => [result.external_id, result]));
    for (const id of ['not-mine', 'unknown', 'missing']) {
      expect(byId.get(id)).toMatchObject({
        status: 'failed',
        error_code: 'source_fetch_failed',
        credits_used: 0,
        result_url: null,
      });
    }
    // The message of an upload names no owner: a stranger learns nothing of whose it is.
    expect(byId.get('not-mine')?.error_message).toBe(byId.get('unknown')?.error_message);
    expect(byId.get('not-mine')?.error_message).not.toContain(owner.accountId);

    const ledger = await ledgerOfJob(created.body.job.id);
    expect(ledger).toEqual([
      { kind: 'reserve', amount: -3 },
      { kind: 'release', amount: 1 },
      { kind: 'release', amount: 1 },
      { kind: 'release', amount: 1 },
    ]);
    expect(await creditTotals(t, stranger.accountId)).toEqual(before);
  });

  it('expires an upload: a job made from it fails as a missing source, and the retention sweep deletes file and row', async () => {
    const expired = await uploaded(owner.liveKey, 'image/png', await halves(64, 32).png().toBuffer());
    const kept = await uploaded(owner.liveKey, 'image/png', await halves(32, 64).png().toBuffer());
    await t.dataSource.query(
      `UPDATE uploads SET created_at = now() - interval '25 hours', expires_at = now() - interval '1 hour'
        WHERE id = $1`,
      [expired.id],
    );
    const storageKeyOf = async (id: string): Promise<string> =>
      (await t.dataSource.query(`SELECT storage_key FROM uploads WHERE id = $1`, [id]))[0].storage_key;
    const expiredKey = await storageKeyOf(expired.id);
    const keptKey = await storageKeyOf(kept.id);

    const created = await createEdit(owner.liveKey, [{ image_url: expired.image_url, external_id: 'expired' }]);
    const { results } = await finishedJob(owner.liveKey, created.body.job.id);
    expect(results[0]).toMatchObject({ status: 'failed', error_code: 'source_fetch_failed', credits_used: 0 });
    expect(await store.uploadKeys(t)).toContain(expiredKey);

    // The sweep runs as the maintenance queue runs it on schedule.
    const maintenance = t.app.get<Queue>(getQueueToken(QueueName.Maintenance));
    await maintenance.add(QueueJobName.SweepExpiredResultFiles, {});
    await readUntil(
      async () => (await t.dataSource.query(`SELECT id FROM uploads WHERE id = $1`, [expired.id])).length,
      (rows) => rows === 0,
      () => 'the expired upload row to be deleted',
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    const keys = await store.uploadKeys(t);
    expect(keys).not.toContain(expiredKey);
    expect(keys).toContain(keptKey);
    expect(valueOf(await metricSamples(), 'imgjobs_uploads_expired_total')).toBeGreaterThanOrEqual(1);
  });

  describe('bad bodies', () => {
    let before: { rows: number; keys: string[] };
    beforeEach(async () => {
      before = { rows: await uploadRows(), keys: (await store.uploadKeys(t)).sort() };
    });
    afterEach(async () => {
      expect({ rows: await uploadRows(), keys: (await store.uploadKeys(t)).sort() }).toEqual(before);
    });

    it('a body that is not an image is 400 invalid_request', async () => {
      const error = expectError(
        await upload(stranger.liveKey, 'image/png', Buffer.from('<html>not a photo</html>')),
        400,
        'invalid_request',
      );
      expect(error.details).toEqual({ errors: [{ path: 'body', message: expect.stringMatching(/not an image/) }] });
    });

    it('a body over SOURCE_MAX_BYTES is 413 payload_too_large, naming the limit', async () => {
      const big = await noisePng(300);
      expect(big.length).toBeGreaterThan(MAX_BYTES);
      const error = expectError(await upload(stranger.liveKey, 'image/png', big), 413, 'payload_too_large');
      expect(error.details).toEqual({ max_bytes: MAX_BYTES });
    });

    it('an image over SOURCE_MAX_MEGAPIXELS is 413 payload_too_large, from its header', async () => {
      const huge = await sharp({ create: { width: 2000, height: 1500, channels: 3, background: '#ffffff' } })
        .png({ compressionLevel: 9 })
        .toBuffer();
      expect(huge.length).toBeLessThan(MAX_BYTES);
      expectError(await upload(stranger.liveKey, 'image/png', huge), 413, 'payload_too_large');
    });

    it('an empty body is 400 invalid_request', async () => {
      expectError(await upload(stranger.liveKey, 'image/png', Buffer.alloc(0)), 400, 'invalid_request');
      expectError(await upload(stranger.liveKey, 'image/png'), 400, 'invalid_request');
    });

    it.each([
      ['application/octet-stream'],
      ['text/plain'],
      ['application/json'],
      ['image/svg+xml'],
      ['multipart/form-data; boundary=x'],
    ])('Content-Type %s is 415 unsupported_media_type', async (contentType) => {
      const error = expectError(
        await upload(stranger.liveKey, contentType, await halves(16, 16).png().toBuffer()),
        415,
        'unsupported_media_type',
      );
      expect(error.details).toEqual({ accepted: expect.arrayContaining(['image/jpeg', 'image/png', 'image/webp']) });
    });

    it('no Content-Type is 415 unsupported_media_type', async () => {
      expectError(
        await upload(stranger.liveKey, null, await halves(16, 16).png().toBuffer()),
        415,
        'unsupported_media_type',
      );
    });

    it('a PNG declared as image/jpeg is 400 invalid_request naming both types', async () => {
      const error = expectError(
        await upload(stranger.liveKey, 'image/jpeg', await halves(16, 16).png().toBuffer()),
        400,
        'invalid_request',
      );
      expect(error.message).toBe('The body is image/png, but Content-Type says image/jpeg.');
    });

    it('no API key is 401 and a create with a malformed upload URL is 400', async () => {
      expectError(
        await t
          .http()
          .post('/api/v1/uploads')
          .set('Content-Type', 'image/png')
          .send(await halves(8, 8).png().toBuffer()),
        401,
        'unauthorized',
      );
      const res = await t
        .http()
        .post('/api/v1/image/edit')
        .set(bearer(stranger.liveKey))
        .set('Idempotency-Key', idempotencyKey())
        .send({ input: [{ image_url: 'upload://upl_nope' }] });
      const error = expectError(res, 400, 'invalid_request');
      expect(error.details).toEqual({
        errors: [{ path: 'input[0].image_url', message: expect.stringMatching(/upload:\/\/upl_/) }],
      });
    });
  });

  it('limits uploads per key with 429 and Retry-After, counting refused ones, and counts outcomes in metrics', async () => {
    const limited = await seedAccount(t, { name: 'Limited' });
    const png = await halves(16, 16).png().toBuffer();
    for (let i = 0; i < UPLOADS_PER_KEY - 1; i++) {
      expect((await upload(limited.liveKey, 'image/png', Buffer.alloc(0))).status).toBe(400);
    }
    expect((await upload(limited.liveKey, 'image/png', png)).status).toBe(201);
    const refused = await upload(limited.liveKey, 'image/png', png);
    const error = expectError(refused, 429, 'rate_limit_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(error.details).toMatchObject({ scope: 'key', limit: UPLOADS_PER_KEY });
    // Another key of the same account has its own allowance.
    expect((await upload(limited.sandboxKey, 'image/png', png)).status).toBe(201);

    const samples = await metricSamples();
    expect(valueOf(samples, 'imgjobs_uploads_total', { outcome: 'rate_limited', environment: 'live' })).toBe(1);
    expect(valueOf(samples, 'imgjobs_uploads_total', { outcome: 'stored', environment: 'live' })).toBeGreaterThan(4);
    expect(valueOf(samples, 'imgjobs_uploads_total', { outcome: 'empty', environment: 'live' })).toBeGreaterThan(
      UPLOADS_PER_KEY - 2,
    );
    expect(valueOf(samples, 'imgjobs_upload_bytes_total', { environment: 'live' })).toBeGreaterThan(0);
  });
});
