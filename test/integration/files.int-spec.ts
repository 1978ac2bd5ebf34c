import { randomBytes, randomUUID } from 'node:crypto';
import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import type { Response } from 'supertest';
import type { DataSource } from 'typeorm';
import { OPENAPI_JSON_PATH } from '../../src/core/bootstrap/http-app';
import { ConfigModule } from '../../src/core/config/config.module';
import type { AppConfig } from '../../src/core/config/config.schema';
import { DatabaseModule } from '../../src/core/database/database.module';
import { ErrorFilter } from '../../src/core/http/error.filter';
import { RequestValidationPipe } from '../../src/core/http/validation.pipe';
import { LoggingModule } from '../../src/core/logging/logging.module';
import { MetricsModule } from '../../src/core/metrics/metrics.module';
import { RedisModule } from '../../src/core/redis/redis.module';
import { FilesController } from '../../src/core/storage/files.controller';
import { ResultStorage } from '../../src/core/storage/result-storage';
import { ResultUrlSigner, SIGNING_SECRET_NAME } from '../../src/core/storage/result-url.signer';
import { ServiceSecretsRepository } from '../../src/core/storage/service-secrets.repository';
import { StorageModule } from '../../src/core/storage/storage.module';
import { AccessGuard } from '../../src/modules/auth/access.guard';
import { AuthModule } from '../../src/modules/auth/auth.module';
import { createTestApp, type TestApp } from '../support/test-app';

const TTL_SECONDS = 3600;
const JOB_ID = randomUUID();
const RESULT_KEY = `results/${JOB_ID}/${randomUUID()}.png`;
const THUMBNAIL_KEY = RESULT_KEY.replace(/\.png$/, '.thumb.webp');
const PNG_BYTES = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(4096)]);
const WEBP_BYTES = Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBP'), randomBytes(512)]);

/**
 * The HTTP stack of the API role (global guard, filter, pipe, middleware) around
 * StorageModule alone, so this suite does not depend on the job modules compiling or on where
 * StorageModule is registered in AppModule.
 */
@Module({
  imports: [AuthModule, StorageModule],
  providers: [
    { provide: APP_GUARD, useClass: AccessGuard },
    { provide: APP_FILTER, useClass: ErrorFilter },
    { provide: APP_PIPE, useClass: RequestValidationPipe },
  ],
})
class FilesApiModule {}

/** The error envelope of contract section 2, tied to the response's request id. */
function expectNotFound(res: Response): void {
  expect(res.status).toBe(404);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({
    error: { code: 'not_found', message: 'No such file.' },
    request_id: res.headers['x-request-id'],
  });
  expect(res.body.request_id).toEqual(expect.any(String));
}

describe(FilesController.name, () => {
  let t: TestApp;
  let config: AppConfig;
  let dataSource: DataSource;
  let signer: ResultUrlSigner;
  const http = () => t.http();

  /** The path and query of a signed URL, which is what supertest requests. */
  const pathOf = (url: string) => url.slice(config.PUBLIC_BASE_URL.length);
  const signedPath = (key: string, now?: Date) => pathOf(signer.sign(key, now));
  /**
   * The `max-age` of a GET of `path`, and the seconds its URL had left at the moments the request
   * was sent and answered: the answer's figure is the time left when it was served, in between.
   */
  const maxAgeOf = async (path: string) => {
    const expires = Number(new URL(path, 'http://x').searchParams.get('expires'));
    const leftAt = () => expires - Math.floor(Date.now() / 1000);
    const leftWhenSent = leftAt();
    const res = await http().get(path).expect(200);
    const leftWhenAnswered = leftAt();
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(res.headers['cache-control'])?.[1]);
    return { res, maxAge, leftWhenSent, leftWhenAnswered };
  };

  beforeAll(async () => {
    t = await createTestApp(
      {
        PUBLIC_BASE_URL: 'https://images.example.test',
        RESULT_URL_TTL_SECONDS: String(TTL_SECONDS),
        // RESULT_URL_SECRET unset: the secret comes from PostgreSQL, the path worth testing here.
      },
      {
        modules: (config, connections) => [
          ConfigModule.forRoot(config, connections),
          LoggingModule,
          MetricsModule,
          DatabaseModule,
          RedisModule,
          FilesApiModule,
        ],
      },
    );
    ({ config, dataSource } = t);
    signer = t.app.get(ResultUrlSigner);

    const storage = t.app.get(ResultStorage);
    await storage.put(RESULT_KEY, PNG_BYTES, 'image/png');
    await storage.put(THUMBNAIL_KEY, WEBP_BYTES, 'image/webp');
  });

  afterAll(() => t?.close());

  it('serves a stored file at its signed URL, without credentials', async () => {
    const url = signer.sign(RESULT_KEY);
    expect(url).toMatch(
      /^https:\/\/images\.example\.test\/api\/v1\/files\/results\/[^?]+\.png\?expires=\d+&signature=[\w-]{43}$/,
    );
    const { res, maxAge, leftWhenSent, leftWhenAnswered } = await maxAgeOf(pathOf(url));
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-length']).toBe(String(PNG_BYTES.length));
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
    // Cached for as long as the URL has left: the whole TTL when it was signed.
    expect(leftWhenSent).toBeLessThanOrEqual(TTL_SECONDS);
    expect(maxAge).toBeLessThanOrEqual(leftWhenSent);
    expect(maxAge).toBeGreaterThanOrEqual(leftWhenAnswered);
    expect(Buffer.compare(res.body as Buffer, PNG_BYTES)).toBe(0);
  });

  it('serves a thumbnail as WebP', async () => {
    const res = await http().get(signedPath(THUMBNAIL_KEY)).expect(200);
    expect(res.headers['content-type']).toBe('image/webp');
    expect(Buffer.compare(res.body as Buffer, WEBP_BYTES)).toBe(0);
  });

  it('answers HEAD with the file headers', async () => {
    const res = await http().head(signedPath(RESULT_KEY)).expect(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-length']).toBe(String(PNG_BYTES.length));
  });

  it('counts Cache-Control down to the expiry', async () => {
    const signedEarlier = new Date(Date.now() - (TTL_SECONDS - 100) * 1000);
    const { maxAge, leftWhenSent, leftWhenAnswered } = await maxAgeOf(signedPath(RESULT_KEY, signedEarlier));
    // Signed TTL - 100 s ago: at most 100 s left, and exactly what was left when it was served.
    expect(leftWhenSent).toBeLessThanOrEqual(100);
    expect(maxAge).toBeLessThanOrEqual(leftWhenSent);
    expect(maxAge).toBeGreaterThanOrEqual(leftWhenAnswered);
  });

  describe('answers 404 not_found in the error envelope', () => {
    it('for a tampered signature', async () => {
      const path = signedPath(RESULT_KEY);
      const signature = new URL(path, 'http://x').searchParams.get('signature') ?? '';
      const tampered = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
      expectNotFound(await http().get(path.replace(signature, tampered)));
    });

    it('for a URL whose key was swapped for another file', async () => {
      const path = signedPath(RESULT_KEY).replace(RESULT_KEY, THUMBNAIL_KEY);
      expectNotFound(await http().get(path));
    });

    it('for a tampered expiry', async () => {
      const path = signedPath(RESULT_KEY);
      expectNotFound(
        await http().get(path.replace(/expires=(\d+)/, (_all, expires: string) => `expires=${Number(expires) + 60}`)),
      );
    });

    it('for an expired URL', async () => {
      const signedLongAgo = new Date(Date.now() - (TTL_SECONDS + 5) * 1000);
      expectNotFound(await http().get(signedPath(RESULT_KEY, signedLongAgo)));
    });

    it('for a missing signature or expiry', async () => {
      expectNotFound(await http().get(`/api/v1/files/${RESULT_KEY}`));
      expectNotFound(await http().get(signedPath(RESULT_KEY).replace(/&signature=.*$/, '')));
      expectNotFound(await http().get(signedPath(RESULT_KEY).replace(/expires=\d+&/, '')));
    });

    it('for a repeated parameter', async () => {
      const path = signedPath(RESULT_KEY);
      expectNotFound(await http().get(`${path}&expires=1`));
    });

    it('for a correctly signed key with no file behind it', async () => {
      expectNotFound(await http().get(signedPath(`results/${JOB_ID}/${randomUUID()}.png`)));
    });

    it('for a key that tries to leave the store', async () => {
      expectNotFound(await http().get('/api/v1/files/results/%2e%2e/%2e%2e/etc/passwd?expires=9999999999&signature=x'));
    });

    it('and keeps the client request id', async () => {
      const res = await http().get(`/api/v1/files/${RESULT_KEY}`).set('X-Request-Id', 'files-test-1');
      expectNotFound(res);
      expect(res.body.request_id).toBe('files-test-1');
    });
  });

  describe('without RESULT_URL_SECRET', () => {
    it('keeps one generated secret in service_secrets', async () => {
      const rows: Array<{ value: string }> = await dataSource.query(
        `SELECT value FROM service_secrets WHERE name = $1`,
        [SIGNING_SECRET_NAME],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it('lets another instance verify what this one signed, and keeps the secret across restarts', async () => {
      const now = new Date();
      const url = signer.sign(RESULT_KEY, now);
      // A second signer on the same database stands in for another API or worker process.
      const otherInstance = new ResultUrlSigner(config, new ServiceSecretsRepository(dataSource));
      await otherInstance.onModuleInit();
      const { searchParams } = new URL(url);
      expect(
        otherInstance.verify(RESULT_KEY, searchParams.get('expires') ?? '', searchParams.get('signature') ?? ''),
      ).toBe(true);
      expect(otherInstance.sign(RESULT_KEY, now)).toBe(url);
    });
  });

  it('documents the route as public in the OpenAPI document', async () => {
    const res = await http().get(`/${OPENAPI_JSON_PATH}`).expect(200);
    const operation = res.body.paths['/api/v1/files/{key}']?.get;
    expect(operation).toBeDefined();
    expect(operation.security).toBeUndefined();
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '404']));
    expect(operation.parameters.map((parameter: { name: string }) => parameter.name).sort()).toEqual([
      'expires',
      'key',
      'signature',
    ]);
  });
});
