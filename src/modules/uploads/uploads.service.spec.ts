import { Registry } from 'prom-client';
import sharp from 'sharp';
import { ErrorCode } from '../../core/errors/error-code';
import { DomainError } from '../../core/errors/domain-error';
import { UploadMetrics } from '../../core/metrics/upload.metrics';
import type { ResultStorage } from '../../core/storage/result-storage';
import { isUploadId } from '../../core/uploads/upload-url';
import { KeyEnvironment } from '../auth/api-key.entity';
import type { RateLimitService } from '../rate-limit/rate-limit.service';
import type { RateLimitDecision } from '../rate-limit/rate-limit.types';
import { UploadStatus, type Upload } from './upload.entity';
import type { UploadsRepository } from './uploads.repository';
import { UploadsService, type UploadCommand } from './uploads.service';
import { refusalOf } from '../../../test/support/domain-errors';

const MAX_BYTES = 64 * 1024;
const CONFIG = { SOURCE_MAX_BYTES: MAX_BYTES, SOURCE_MAX_MEGAPIXELS: 1, UPLOAD_RETENTION_HOURS: 24 };
const caller = { keyId: 'key-1', accountId: 'acc-1', environment: KeyEnvironment.Live };

const decision = (allowed: boolean): RateLimitDecision => ({
  allowed,
  limit: 100,
  remaining: allowed ? 99 : 0,
  resetSeconds: 60,
  retryAfterSeconds: allowed ? null : 60,
  scope: 'key',
  token: 'token',
});

class FakeRateLimits implements Pick<RateLimitService, 'consume' | 'windowSeconds'> {
  allowed = true;
  readonly windowSeconds = 3600;
  async consume() {
    return decision(this.allowed);
  }
}

/** The rows as the repository would hold them; rows are copies, as a database's would be. */
class FakeUploads implements Omit<UploadsRepository, 'readableKey' | 'deleteExpired'> {
  readonly rows = new Map<string, Upload>();
  /** Ids of rows to report as past their lease. */
  readonly abandoned = new Set<string>();
  cannotDelete = false;
  async insert(upload: Upload) {
    this.rows.set(upload.id, { ...upload });
  }
  async claim(upload: Upload) {
    const held = [...this.rows.values()].some(
      (row) => row.apiKeyId === upload.apiKeyId && row.idempotencyKey === upload.idempotencyKey,
    );
    if (!held) this.rows.set(upload.id, { ...upload });
    return !held;
  }
  async findByKey(apiKeyId: string, key: string) {
    const row = [...this.rows.values()].find((each) => each.apiKeyId === apiKeyId && each.idempotencyKey === key);
    return row
      ? { upload: { ...row }, expired: row.expiresAt <= new Date(), abandoned: this.abandoned.has(row.id) }
      : null;
  }
  async releaseExpiredKey(uploadId: string) {
    const row = this.rows.get(uploadId);
    if (row) Object.assign(row, { idempotencyKey: null, requestHash: null });
  }
  async markStored(uploadId: string) {
    const row = this.rows.get(uploadId);
    if (!row || row.status !== UploadStatus.Pending) return false;
    row.status = UploadStatus.Stored;
    return true;
  }
  async deletePending(uploadId: string) {
    if (this.cannotDelete) throw new Error('connection lost');
    if (this.rows.get(uploadId)?.status === UploadStatus.Pending) this.rows.delete(uploadId);
  }
}

class FakeStorage implements Pick<ResultStorage, 'put' | 'delete'> {
  readonly files = new Map<string, { data: Buffer; contentType: string }>();
  failing = false;
  async put(key: string, data: Buffer, contentType: string) {
    if (this.failing) throw new Error('disk full');
    this.files.set(key, { data, contentType });
  }
  async delete(key: string) {
    this.files.delete(key);
  }
}

const png = (width = 40, height = 30) =>
  sharp({ create: { width, height, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();

describe(UploadsService.name, () => {
  let limits: FakeRateLimits;
  let rows: FakeUploads;
  let storage: FakeStorage;
  let registry: Registry;
  let service: UploadsService;

  beforeEach(() => {
    limits = new FakeRateLimits();
    rows = new FakeUploads();
    storage = new FakeStorage();
    registry = new Registry();
    service = new UploadsService(
      CONFIG,
      limits as unknown as RateLimitService,
      rows as unknown as UploadsRepository,
      storage as unknown as ResultStorage,
      new UploadMetrics(registry),
    );
  });

  const command = (
    contentType: string | undefined,
    body: Buffer | UploadCommand['readBody'],
    idempotencyKey?: string,
  ): UploadCommand => ({
    caller,
    clientIp: '203.0.113.5',
    contentType,
    readBody: typeof body === 'function' ? body : async () => body,
    idempotencyKey,
  });

  const outcomes = async () =>
    Object.fromEntries(
      (await registry.getSingleMetric('imgjobs_uploads_total')!.get()).values.map((v) => [v.labels.outcome, v.value]),
    );

  it('stores the image under uploads/<account>/, with what its header says and an expiry a day on', async () => {
    const bytes = await png(40, 30);
    const { upload, replayed } = await service.create(command('image/png', bytes));
    expect(replayed).toBe(false);
    expect(isUploadId(upload.id)).toBe(true);
    expect(upload).toMatchObject({
      accountId: 'acc-1',
      apiKeyId: 'key-1',
      sandbox: false,
      contentType: 'image/png',
      width: 40,
      height: 30,
      sizeBytes: bytes.length,
      storageKey: `uploads/acc-1/${upload.id}.png`,
      status: UploadStatus.Stored,
    });
    expect(upload.expiresAt.getTime() - upload.createdAt.getTime()).toBe(24 * 3600 * 1000);
    expect(rows.rows.get(upload.id)).toEqual(upload);
    expect(storage.files.get(upload.storageKey)).toEqual({ data: bytes, contentType: 'image/png' });
    expect(await outcomes()).toEqual({ stored: 1 });
  });

  it('reports the upright size of an EXIF-rotated JPEG', async () => {
    const bytes = await sharp({ create: { width: 60, height: 20, channels: 3, background: '#ffffff' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const { upload } = await service.create(command('image/jpeg', bytes));
    expect({ width: upload.width, height: upload.height, type: upload.contentType }).toEqual({
      width: 20,
      height: 60,
      type: 'image/jpeg',
    });
  });

  it.each([
    ['a missing Content-Type', undefined],
    ['a non-image Content-Type', 'application/octet-stream'],
    ['an image type the service does not read', 'image/svg+xml'],
  ])('refuses %s with 415 before reading the body', async (_case, contentType) => {
    const readBody = jest.fn(async () => png());
    const error = await refusalOf(service.create(command(contentType, readBody)));
    expect(error.code).toBe(ErrorCode.UnsupportedMediaType);
    expect(readBody).not.toHaveBeenCalled();
    expect(await outcomes()).toEqual({ unsupported_type: 1 });
  });

  it('reads the body with the source size limit and answers a larger one 413', async () => {
    const readBody = jest.fn(async (max: number) => {
      throw new DomainError(ErrorCode.PayloadTooLarge, `over ${max}`);
    });
    const error = await refusalOf(service.create(command('image/png', readBody)));
    expect(readBody).toHaveBeenCalledWith(MAX_BYTES);
    expect(error.code).toBe(ErrorCode.PayloadTooLarge);
    expect(error.details).toEqual({ max_bytes: MAX_BYTES });
    expect(await outcomes()).toEqual({ too_large: 1 });
  });

  it('answers an image over the megapixel limit 413 from its header', async () => {
    const error = await refusalOf(service.create(command('image/png', await png(1200, 1000))));
    expect(error.code).toBe(ErrorCode.PayloadTooLarge);
    expect(error.details).toEqual({ max_megapixels: 1 });
  });

  it.each([
    ['an empty body', 'image/png', async () => Buffer.alloc(0), 'empty'],
    ['a body that is not an image', 'image/jpeg', async () => Buffer.from('<html>not a photo</html>'), 'not_image'],
    ['a PNG sent as image/jpeg', 'image/jpeg', () => png(), 'type_mismatch'],
  ])('answers %s 400 with the body as its path', async (_case, contentType, body, outcome) => {
    const error = await refusalOf(service.create(command(contentType, await body())));
    expect(error.code).toBe(ErrorCode.InvalidRequest);
    expect(error.details).toEqual({ errors: [{ path: 'body', message: expect.any(String) }] });
    expect(await outcomes()).toEqual({ [outcome]: 1 });
  });

  it('answers 429 with Retry-After once the upload limit is reached, before reading the body', async () => {
    limits.allowed = false;
    const readBody = jest.fn(async () => png());
    const error = await refusalOf(service.create(command('image/png', readBody)));
    expect(error.code).toBe(ErrorCode.RateLimitExceeded);
    expect(error.retryAfterSeconds).toBe(60);
    expect(readBody).not.toHaveBeenCalled();
    expect(await outcomes()).toEqual({ rate_limited: 1 });
  });

  it('stores nothing for any refusal, and removes the row when the file cannot be stored', async () => {
    await refusalOf(service.create(command('image/jpeg', Buffer.from('nope'))));
    storage.failing = true;
    await expect(service.create(command('image/png', await png()))).rejects.toThrow('disk full');
    expect(rows.rows.size).toBe(0);
    expect(storage.files.size).toBe(0);
    expect(await outcomes()).toEqual({ not_image: 1, failed: 1 });
  });

  it('writes the row pending before the file; a request dying between the two leaves it pending', async () => {
    const statuses: string[] = [];
    const put = storage.put.bind(storage);
    storage.put = async (key, data, contentType) => {
      statuses.push(...[...rows.rows.values()].map((row) => row.status));
      return put(key, data, contentType);
    };
    await service.create(command('image/png', await png()));
    expect(statuses).toEqual([UploadStatus.Pending]);

    rows.rows.clear();
    storage.failing = true;
    rows.cannotDelete = true;
    await expect(service.create(command('image/png', await png()))).rejects.toThrow('disk full');
    expect([...rows.rows.values()].map((row) => row.status)).toEqual([UploadStatus.Pending]);
  });

  it('answers a repeat of an Idempotency-Key with its upload, and another body with 409', async () => {
    const bytes = await png(40, 30);
    const first = await service.create(command('image/png', bytes, 'key-0001'));
    const again = await service.create(command('image/png', bytes, 'key-0001'));
    expect(again).toEqual({ upload: first.upload, replayed: true });
    const other = await refusalOf(service.create(command('image/png', await png(41, 30), 'key-0001')));
    expect(other.code).toBe(ErrorCode.IdempotencyConflict);
    expect(rows.rows.size).toBe(1);
    expect(storage.files.size).toBe(1);
    expect(await outcomes()).toEqual({ stored: 1, replayed: 1, idempotency_conflict: 1 });
  });

  it('clears an abandoned pending upload of the key and stores anew; an expired upload frees its key', async () => {
    const bytes = await png();
    storage.failing = true;
    rows.cannotDelete = true;
    await expect(service.create(command('image/png', bytes, 'key-0002'))).rejects.toThrow('disk full');
    const [stale] = [...rows.rows.values()];
    rows.abandoned.add(stale.id);
    storage.failing = false;
    rows.cannotDelete = false;
    const { upload, replayed } = await service.create(command('image/png', bytes, 'key-0002'));
    expect({ replayed, fresh: upload.id !== stale.id, rows: [...rows.rows.keys()] }).toEqual({
      replayed: false,
      fresh: true,
      rows: [upload.id],
    });

    rows.rows.get(upload.id)!.expiresAt = new Date(Date.now() - 1000);
    const renewed = await service.create(command('image/png', bytes, 'key-0002'));
    expect(renewed.replayed).toBe(false);
    expect(renewed.upload.id).not.toBe(upload.id);
  });
});
