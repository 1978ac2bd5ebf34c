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
import type { Upload } from './upload.entity';
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

class FakeUploads implements Pick<UploadsRepository, 'insert' | 'delete'> {
  readonly rows = new Map<string, Upload>();
  async insert(upload: Upload) {
    this.rows.set(upload.id, upload);
  }
  async delete(uploadId: string) {
    this.rows.delete(uploadId);
  }
}

class FakeStorage implements Pick<ResultStorage, 'put'> {
  readonly files = new Map<string, { data: Buffer; contentType: string }>();
  failing = false;
  async put(key: string, data: Buffer, contentType: string) {
    if (this.failing) throw new Error('disk full');
    this.files.set(key, { data, contentType });
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

  const command = (contentType: string | undefined, body: Buffer | UploadCommand['readBody']): UploadCommand => ({
    caller,
    clientIp: '203.0.113.5',
    contentType,
    readBody: typeof body === 'function' ? body : async () => body,
  });

  const outcomes = async () =>
    Object.fromEntries(
      (await registry.getSingleMetric('imgjobs_uploads_total')!.get()).values.map((v) => [v.labels.outcome, v.value]),
    );

  it('stores the image under uploads/<account>/, with what its header says and an expiry a day on', async () => {
    const bytes = await png(40, 30);
    const upload = await service.create(command('image/png', bytes));
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
    });
    expect(upload.expiresAt.getTime() - upload.createdAt.getTime()).toBe(24 * 3600 * 1000);
    expect(rows.rows.get(upload.id)).toBe(upload);
    expect(storage.files.get(upload.storageKey)).toEqual({ data: bytes, contentType: 'image/png' });
    expect(await outcomes()).toEqual({ stored: 1 });
  });

  it('reports the upright size of an EXIF-rotated JPEG', async () => {
    const bytes = await sharp({ create: { width: 60, height: 20, channels: 3, background: '#ffffff' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const upload = await service.create(command('image/jpeg', bytes));
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
});
