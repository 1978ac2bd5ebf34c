import { QueryFailedError } from 'typeorm';
import { ErrorFilter } from '../../src/core/http/error.filter';
import { CatalogService } from '../../src/modules/catalog/catalog.service';
import { expectError } from '../support/http-errors';
import { bearer, createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app';

const ACCOUNTS = '/admin/v1/accounts';

describe(ErrorFilter.name, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => t.close());

  describe('unknown routes', () => {
    it('GET of an unknown route is 404 not_found', async () => {
      const res = await t.http().get('/api/v1/no-such-route');
      expectError(res, 404, 'not_found');
    });

    it('POST of an unknown route is 404 not_found', async () => {
      const res = await t.http().post('/api/v1/no-such-route').send({ a: 1 });
      expectError(res, 404, 'not_found');
    });
  });

  describe('request bodies', () => {
    it('malformed JSON is 400 invalid_request', async () => {
      const res = await t
        .http()
        .post(ACCOUNTS)
        .set(bearer(TEST_ADMIN_TOKEN))
        .set('Content-Type', 'application/json')
        .send('{"name":');
      expectError(res, 400, 'invalid_request');
    });

    it('a text/plain body is 415 unsupported_media_type', async () => {
      const res = await t
        .http()
        .post(ACCOUNTS)
        .set(bearer(TEST_ADMIN_TOKEN))
        .set('Content-Type', 'text/plain')
        .send('name=x');
      expectError(res, 415, 'unsupported_media_type');
    });

    it('a body over 1 MiB is 413 payload_too_large', async () => {
      const body = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
      const res = await t
        .http()
        .post(ACCOUNTS)
        .set(bearer(TEST_ADMIN_TOKEN))
        .set('Content-Type', 'application/json')
        .send(body);
      expectError(res, 413, 'payload_too_large');
    });

    it('a JSON array body is 400 invalid_request', async () => {
      const res = await t
        .http()
        .post(ACCOUNTS)
        .set(bearer(TEST_ADMIN_TOKEN))
        .set('Content-Type', 'application/json')
        .send(JSON.stringify([{ name: 'x' }]));
      const error = expectError(res, 400, 'invalid_request');
      expect(error.details).toEqual({ errors: [{ path: 'body', message: expect.any(String) }] });
    });

    it('a body without a Content-Type is 415 unsupported_media_type', async () => {
      const req = t.http().post(ACCOUNTS).set(bearer(TEST_ADMIN_TOKEN));
      req.unset('Content-Type');
      const res = await req.send(Buffer.from('{}'));
      expect(res.request.getHeader('Content-Type')).toBeUndefined();
      expectError(res, 415, 'unsupported_media_type');
    });

    it('a JSON scalar at the top level is 400 invalid_request', async () => {
      const res = await t
        .http()
        .post(ACCOUNTS)
        .set(bearer(TEST_ADMIN_TOKEN))
        .set('Content-Type', 'application/json')
        .send('"name"');
      expectError(res, 400, 'invalid_request');
    });

    it('an unknown field is 400 invalid_request naming it', async () => {
      const res = await t.http().post(ACCOUNTS).set(bearer(TEST_ADMIN_TOKEN)).send({ name: 'x', credit: 5 });
      const error = expectError(res, 400, 'invalid_request');
      expect(error.details).toEqual({ errors: [expect.objectContaining({ path: 'credit' })] });
    });

    it('a valid body on the same route still succeeds', async () => {
      const res = await t
        .http()
        .post(ACCOUNTS)
        .set(bearer(TEST_ADMIN_TOKEN))
        .send({ name: 'Envelope test' })
        .expect(201);
      expect(res.body.request_id).toBe(res.headers['x-request-id']);
    });
  });

  describe('unexpected failures', () => {
    it('an exception deep in a service is 500 internal_error without its message or stack', async () => {
      const boom = new Error('boom: SELECT secret FROM x');
      jest.spyOn(CatalogService.prototype, 'pricedTools').mockRejectedValueOnce(boom);
      const res = await t.http().get('/api/v1/tools');
      expectError(res, 500, 'internal_error');
      const text = res.text;
      expect(text).not.toContain('boom');
      expect(text).not.toContain('SELECT');
      expect(text).not.toContain('secret');
      expect(text).not.toMatch(/\bat .+\(.*:\d+:\d+\)/);
      expect(text).not.toContain('.ts:');
      expect(text).not.toContain('stack');
      for (const line of (boom.stack ?? '').split('\n').slice(1)) expect(text).not.toContain(line.trim());
    });

    it('an infrastructure outage is 503 service_unavailable with an integer Retry-After', async () => {
      const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      jest.spyOn(CatalogService.prototype, 'pricedTools').mockRejectedValueOnce(outage);
      const res = await t.http().get('/api/v1/tools');
      expectError(res, 503, 'service_unavailable');
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.text).not.toContain('5432');
    });

    it('a rejection with a non-Error value is 500 internal_error', async () => {
      jest.spyOn(CatalogService.prototype, 'pricedTools').mockRejectedValueOnce('raw string: password=hunter2');
      const res = await t.http().get('/api/v1/tools');
      expectError(res, 500, 'internal_error');
      expect(res.text).not.toContain('hunter2');
    });

    it('a TypeORM query error wrapping a lost PostgreSQL connection is 503 service_unavailable', async () => {
      const driverError = Object.assign(new Error('terminating connection due to administrator command'), {
        code: '57P01',
      });
      const wrapped = new QueryFailedError('SELECT cost_key FROM prices', [], driverError);
      jest.spyOn(CatalogService.prototype, 'pricedTools').mockRejectedValueOnce(wrapped);
      const res = await t.http().get('/api/v1/tools');
      expectError(res, 503, 'service_unavailable');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.text).not.toContain('SELECT');
    });

    it('a TypeORM query error for a bug (not an outage) is 500 without the SQL', async () => {
      const driverError = Object.assign(new Error('relation "pricez" does not exist'), { code: '42P01' });
      const wrapped = new QueryFailedError('SELECT * FROM pricez', [], driverError);
      jest.spyOn(CatalogService.prototype, 'pricedTools').mockRejectedValueOnce(wrapped);
      const res = await t.http().get('/api/v1/tools');
      expectError(res, 500, 'internal_error');
      expect(res.text).not.toContain('pricez');
      expect(res.text).not.toContain('SELECT');
    });

    it('recovers: the next request after a mocked failure succeeds', async () => {
      jest.spyOn(CatalogService.prototype, 'pricedTools').mockRejectedValueOnce(new Error('boom'));
      await t.http().get('/api/v1/tools').expect(500);
      await t.http().get('/api/v1/tools').expect(200);
    });
  });

  describe('X-Request-Id', () => {
    it('echoes a valid client id in the header and the body', async () => {
      const res = await t.http().get('/api/v1/tools').set('X-Request-Id', 'abc-123:x.y_z').expect(200);
      expect(res.headers['x-request-id']).toBe('abc-123:x.y_z');
      expect(res.body.request_id).toBe('abc-123:x.y_z');
    });

    it('echoes a valid client id on an error too', async () => {
      const res = await t.http().get('/api/v1/no-such-route').set('X-Request-Id', 'abc-123:x.y_z');
      expectError(res, 404, 'not_found');
      expect(res.body.request_id).toBe('abc-123:x.y_z');
    });

    it('accepts a client id of exactly 160 characters', async () => {
      const id = 'a'.repeat(160);
      const res = await t.http().get('/api/v1/tools').set('X-Request-Id', id).expect(200);
      expect(res.headers['x-request-id']).toBe(id);
      expect(res.body.request_id).toBe(id);
    });

    it.each([
      ['contains spaces', 'has spaces in it'],
      ['is 161 characters long', 'a'.repeat(161)],
    ])('replaces a client id that %s with a generated one, not rejecting the request', async (_why, id) => {
      const res = await t.http().get('/api/v1/tools').set('X-Request-Id', id).expect(200);
      const generated = res.headers['x-request-id'];
      expect(generated).not.toBe(id);
      expect(generated).toMatch(/^[A-Za-z0-9._:-]{1,160}$/);
      expect(res.body.request_id).toBe(generated);
    });

    it('generates a different id for each request without one', async () => {
      const [a, b] = await Promise.all([t.http().get('/api/v1/tools'), t.http().get('/api/v1/tools')]);
      expect(a.headers['x-request-id']).toBeTruthy();
      expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    });
  });
});
