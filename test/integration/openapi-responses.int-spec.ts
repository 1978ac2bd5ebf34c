import OpenAPIResponseValidator from 'openapi-response-validator';
import type { OpenAPIV3 } from 'openapi-types';
import type { Response } from 'supertest';
import { OPENAPI_JSON_PATH } from '../../src/core/bootstrap/http-app';
import { ProcessRole } from '../../src/core/bootstrap/role';
import { EventStream, listeningPort } from '../support/event-stream';
import { idempotencyKey, waitForJob } from '../support/jobs';
import {
  bearer,
  createTestApp,
  seedAccount,
  TEST_ADMIN_TOKEN,
  type SeededAccount,
  type TestApp,
} from '../support/test-app';

/**
 * Real responses of every operation, checked against the served OpenAPI document by a validator
 * that did not generate it (openapi-response-validator, on ajv): a field the document calls a
 * string but that comes back null, or an undeclared status, fails here.
 */
describe('responses against the OpenAPI document', () => {
  let t: TestApp;
  let account: SeededAccount;
  let doc: OpenAPIV3.Document;
  const checked = new Set<string>();

  beforeAll(async () => {
    t = await createTestApp(
      {
        LIMIT_CREATES_PER_HOUR_KEY: '100',
        LIMIT_CREATES_PER_HOUR_ACCOUNT: '100',
        LIMIT_ACTIVE_JOBS_PER_KEY: '20',
        LIMIT_ACTIVE_JOBS_PER_ACCOUNT: '20',
        LIVE_EVENTS_MAX_STREAMS_PER_KEY: '1',
        // A webhook_url on loopback is accepted, so an event with a destination can be redelivered.
        OUTBOUND_ALLOWLIST: '127.0.0.1',
      },
      { role: ProcessRole.All },
    );
    account = await seedAccount(t, { credits: 50 });
    doc = (await t.http().get(`/${OPENAPI_JSON_PATH}`).expect(200)).body as OpenAPIV3.Document;
  });
  afterAll(() => t.close());

  /** Validates `res` against `method path` of the document, and records the operation as checked. */
  function conforms(method: string, path: string, res: Response): void {
    const operation = (doc.paths[path] as Record<string, OpenAPIV3.OperationObject> | undefined)?.[method];
    if (!operation) throw new Error(`${method} ${path} is not in the document`);
    const status = String(res.status);
    expect({ operation: `${method} ${path}`, status, declared: status in operation.responses }).toEqual({
      operation: `${method} ${path}`,
      status,
      declared: true,
    });
    const responses = Object.fromEntries(
      Object.entries(operation.responses).map(([code, response]) => {
        const content = (response as OpenAPIV3.ResponseObject).content;
        return [code, { schema: content?.['application/json']?.schema as OpenAPIV3.SchemaObject }];
      }),
    );
    const json = res.headers['content-type']?.startsWith('application/json');
    if (json && responses[status].schema) {
      const validator = new OpenAPIResponseValidator({ responses, components: doc.components });
      const problems = validator.validateResponse(status, res.body);
      expect({ operation: `${method} ${path}`, status, problems: problems?.errors ?? [] }).toEqual({
        operation: `${method} ${path}`,
        status,
        problems: [],
      });
    }
    checked.add(`${method} ${path}`);
  }

  const admin = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  const sandbox = () => bearer(account.sandboxKey);
  const input = [{ image_url: 'https://images.example.com/p/1.jpg', external_id: 'sku-1' }];

  it('health, catalog and account', async () => {
    conforms('get', '/health', await t.http().get('/health'));
    conforms('get', '/health/live', await t.http().get('/health/live'));
    conforms('get', '/health/ready', await t.http().get('/health/ready'));
    conforms('get', '/api/v1/tools', await t.http().get('/api/v1/tools'));
    conforms('get', '/api/v1/product-photo-presets', await t.http().get('/api/v1/product-photo-presets'));
    conforms('get', '/api/v1/account', await t.http().get('/api/v1/account').set(sandbox()));
    conforms('get', '/api/v1/account', await t.http().get('/api/v1/account'));
  });

  it('the review setting, list, summary and decisions', async () => {
    conforms(
      'patch',
      '/api/v1/account',
      await t.http().patch('/api/v1/account').set(sandbox()).send({ review_threshold: 0.5 }),
    );
    conforms(
      'patch',
      '/api/v1/account',
      await t.http().patch('/api/v1/account').set(sandbox()).send({ review_threshold: 2 }),
    );
    const created = await t
      .http()
      .post('/api/v1/remove-background')
      .set(sandbox())
      .set('Idempotency-Key', idempotencyKey())
      .send({ input: [{ image_url: 'https://images.example.com/p/1.jpg', external_id: 'sandbox_unsure-1' }] });
    await waitForJob(t, created.body.job.id);
    const list = await t.http().get('/api/v1/reviews?limit=1').set(sandbox());
    conforms('get', '/api/v1/reviews', list);
    conforms('get', '/api/v1/reviews', await t.http().get('/api/v1/reviews?state=nonsense').set(sandbox()));
    conforms('get', '/api/v1/reviews/summary', await t.http().get('/api/v1/reviews/summary').set(sandbox()));
    const decision = (id: string, body: object) =>
      t.http().post(`/api/v1/reviews/${id}/decision`).set(sandbox()).send(body);
    const resultId: string = list.body.results[0].result_id;
    conforms('get', '/api/v1/reviews/{resultId}', await t.http().get(`/api/v1/reviews/${resultId}`).set(sandbox()));
    conforms(
      'get',
      '/api/v1/reviews/{resultId}',
      await t.http().get('/api/v1/reviews/00000000-0000-4000-8000-000000000000').set(sandbox()),
    );
    conforms('post', '/api/v1/reviews/{resultId}/decision', await decision(resultId, { decision: 'accepted' }));
    conforms('post', '/api/v1/reviews/{resultId}/decision', await decision(resultId, { decision: 'maybe' }));
    conforms(
      'post',
      '/api/v1/reviews/{resultId}/decision',
      await decision('00000000-0000-4000-8000-000000000000', { decision: 'accepted' }),
    );
  });

  it('every create, its replay and its refusals; jobs, results with and without errors, cancel, files', async () => {
    const bodies: Record<string, object> = {
      '/api/v1/remove-background': { input },
      '/api/v1/image/edit': {
        input: [...input, { image_url: 'https://images.example.com/p/2.jpg', external_id: 'sandbox_fail-2' }],
      },
      '/api/v1/image/ai-edit': { input, options: { prompt: 'on a beach' } },
      '/api/v1/scene/create': { input, scene: { prompt: 'a marble kitchen' } },
      '/api/v1/image/generate': { prompt: 'a red sneaker' },
      '/api/v1/ad/create': {
        input,
        creative: { platform: 'instagram_feed', headline: 'New', call_to_action: 'Shop now' },
      },
      '/api/v1/product-photo-jobs': {
        images: [{ source_url: 'https://images.example.com/p/1.jpg', external_id: 'sku-1' }],
      },
    };
    const jobIds: Record<string, string> = {};
    for (const [path, body] of Object.entries(bodies)) {
      const key = idempotencyKey();
      const created = await t.http().post(path).set(sandbox()).set('Idempotency-Key', key).send(body);
      conforms('post', path, created);
      expect({ path, status: created.status, body: created.status === 202 ? null : created.body }).toEqual({
        path,
        status: 202,
        body: null,
      });
      jobIds[path] = created.body.job.id;
      conforms('post', path, await t.http().post(path).set(sandbox()).set('Idempotency-Key', key).send(body));
      conforms(
        'post',
        path,
        await t.http().post(path).set(sandbox()).set('Idempotency-Key', idempotencyKey()).send({}),
      );
    }
    conforms(
      'post',
      '/api/v1/image/edit',
      await t.http().post('/api/v1/image/edit').send(bodies['/api/v1/image/edit']),
    );

    const editJob = jobIds['/api/v1/image/edit'];
    await waitForJob(t, editJob);
    const read = await t.http().get(`/api/v1/jobs/${editJob}`).set(sandbox());
    conforms('get', '/api/v1/jobs/{jobId}', read);
    expect(read.body.results.map((result: { error_code: string | null }) => result.error_code)).toEqual([
      null,
      'sandbox_simulated_failure',
    ]);
    conforms(
      'get',
      '/api/v1/jobs/{jobId}',
      await t.http().get('/api/v1/jobs/00000000-0000-4000-8000-000000000000').set(sandbox()),
    );
    conforms('get', '/api/v1/jobs', await t.http().get('/api/v1/jobs?limit=2').set(sandbox()));
    conforms('get', '/api/v1/jobs', await t.http().get('/api/v1/jobs?status=nonsense').set(sandbox()));

    const enhancement = jobIds['/api/v1/product-photo-jobs'];
    await waitForJob(t, enhancement);
    conforms(
      'get',
      '/api/v1/product-image-enhancements/{enhancementId}',
      await t.http().get(`/api/v1/product-image-enhancements/${enhancement}`).set(sandbox()),
    );

    const slow = await t
      .http()
      .post('/api/v1/image/edit')
      .set(sandbox())
      .set('Idempotency-Key', idempotencyKey())
      .send({ input: [{ image_url: 'https://images.example.com/p/3.jpg', external_id: 'sandbox_slow-3' }] });
    conforms(
      'post',
      '/api/v1/jobs/{jobId}/cancel',
      await t.http().post(`/api/v1/jobs/${slow.body.job.id}/cancel`).set(sandbox()),
    );
    conforms(
      'post',
      '/api/v1/jobs/{jobId}/cancel',
      await t.http().post(`/api/v1/jobs/${editJob}/cancel`).set(sandbox()),
    );

    const url = new URL(read.body.results[0].result_url as string);
    conforms('get', '/api/v1/files/{key}', await t.http().get(url.pathname + url.search));
    conforms('get', '/api/v1/files/{key}', await t.http().get(`${url.pathname}?expires=1&signature=nope`));
  });

  it('uploads: stored, refused for its body, its type and its size', async () => {
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const post = () => t.http().post('/api/v1/uploads').set(sandbox());
    const stored = await post().set('Content-Type', 'image/png').send(png);
    expect(stored.status).toBe(201);
    conforms('post', '/api/v1/uploads', stored);
    conforms('post', '/api/v1/uploads', await post().set('Content-Type', 'image/png').send(Buffer.from('text')));
    conforms('post', '/api/v1/uploads', await post().set('Content-Type', 'text/plain').send('text'));
    conforms(
      'post',
      '/api/v1/uploads',
      await post()
        .set('Content-Type', 'image/png')
        .send(Buffer.alloc(t.config.SOURCE_MAX_BYTES + 1)),
    );
    conforms(
      'post',
      '/api/v1/uploads',
      await t.http().post('/api/v1/uploads').set('Content-Type', 'image/png').send(png),
    );
  });

  it('the account’s ledger, usage, webhook deliveries, redelivery and event stream', async () => {
    conforms('get', '/api/v1/account/ledger', await t.http().get('/api/v1/account/ledger?limit=1').set(sandbox()));
    conforms(
      'get',
      '/api/v1/account/ledger',
      await t.http().get('/api/v1/account/ledger').set(bearer(account.liveKey)),
    );
    conforms('get', '/api/v1/account/ledger', await t.http().get('/api/v1/account/ledger?cursor=x').set(sandbox()));
    conforms('get', '/api/v1/account/usage', await t.http().get('/api/v1/account/usage').set(sandbox()));
    conforms(
      'get',
      '/api/v1/account/usage',
      await t.http().get('/api/v1/account/usage?from=2026-02-30').set(sandbox()),
    );
    const withHook = await t
      .http()
      .post('/api/v1/image/edit')
      .set(sandbox())
      .set('Idempotency-Key', idempotencyKey())
      .send({ input, webhook_url: 'https://127.0.0.1:9/hooks' })
      .expect(202);
    await waitForJob(t, withHook.body.job.id);
    const deliveries = await t.http().get('/api/v1/webhook-deliveries?limit=1').set(sandbox());
    conforms('get', '/api/v1/webhook-deliveries', deliveries);
    conforms('get', '/api/v1/webhook-deliveries', await t.http().get('/api/v1/webhook-deliveries'));
    const eventId = deliveries.body.deliveries[0].event_id as string;
    const redeliver = (id: string) => t.http().post(`/api/v1/webhook-events/${id}/redeliver`).set(sandbox());
    conforms('post', '/api/v1/webhook-events/{eventId}/redeliver', await redeliver(eventId));
    conforms(
      'post',
      '/api/v1/webhook-events/{eventId}/redeliver',
      await redeliver('00000000-0000-4000-8000-000000000000'),
    );
    conforms('post', '/api/v1/webhook-events/{eventId}/redeliver', await redeliver('not-a-uuid'));
    const [noHookEvent] = await t.dataSource.query(
      `SELECT e.id FROM webhook_events e JOIN jobs j ON j.id = e.job_id WHERE j.webhook_url IS NULL LIMIT 1`,
    );
    conforms('post', '/api/v1/webhook-events/{eventId}/redeliver', await redeliver(noHookEvent.id));

    // The stream is read as a stream; its refusals are JSON like every error.
    const port = await listeningPort(t);
    const asResponse = (stream: EventStream) =>
      ({
        status: stream.status,
        headers: stream.headers,
        body: stream.headers['content-type']?.startsWith('application/json') ? JSON.parse(stream.body) : stream.body,
      }) as unknown as Response;
    const opened = await EventStream.ready(port, account.sandboxKey);
    conforms('get', '/api/v1/events', asResponse(opened));
    const refused = await EventStream.open(port, account.sandboxKey);
    await refused.waitForEnd();
    expect(refused.status).toBe(429);
    conforms('get', '/api/v1/events', asResponse(refused));
    opened.close();
    const unauthorized = await EventStream.open(port, 'sk_sandbox_nope');
    await unauthorized.waitForEnd();
    conforms('get', '/api/v1/events', asResponse(unauthorized));
  });

  it('the admin API', async () => {
    const created = await t.http().post('/admin/v1/accounts').set(admin).send({ name: 'Documented', credits: 5 });
    conforms('post', '/admin/v1/accounts', created);
    const id = created.body.account.id as string;
    conforms('post', '/admin/v1/accounts', await t.http().post('/admin/v1/accounts').set(admin).send({ credits: -1 }));
    conforms('get', '/admin/v1/accounts/{accountId}', await t.http().get(`/admin/v1/accounts/${id}`).set(admin));
    conforms(
      'patch',
      '/admin/v1/accounts/{accountId}',
      await t.http().patch(`/admin/v1/accounts/${id}`).set(admin).send({ api_access: false }),
    );
    const key = await t.http().post(`/admin/v1/accounts/${id}/api-keys`).set(admin).send({ environment: 'sandbox' });
    conforms('post', '/admin/v1/accounts/{accountId}/api-keys', key);
    conforms(
      'delete',
      '/admin/v1/api-keys/{keyId}',
      await t.http().delete(`/admin/v1/api-keys/${key.body.api_key.id}`).set(admin),
    );
    conforms(
      'post',
      '/admin/v1/accounts/{accountId}/credits',
      await t.http().post(`/admin/v1/accounts/${id}/credits`).set(admin).send({ amount: 3, reason: 'top-up' }),
    );
    conforms(
      'get',
      '/admin/v1/accounts/{accountId}/ledger',
      await t.http().get(`/admin/v1/accounts/${id}/ledger`).set(admin),
    );
    conforms(
      'get',
      '/admin/v1/accounts/{accountId}/webhook-secret',
      await t.http().get(`/admin/v1/accounts/${id}/webhook-secret`).set(admin),
    );
    conforms(
      'post',
      '/admin/v1/accounts/{accountId}/webhook-secret',
      await t.http().post(`/admin/v1/accounts/${id}/webhook-secret`).set(admin),
    );
    conforms(
      'get',
      '/admin/v1/accounts/{accountId}/webhook-deliveries',
      await t.http().get(`/admin/v1/accounts/${id}/webhook-deliveries`).set(admin),
    );
    conforms(
      'post',
      '/admin/v1/webhook-events/{eventId}/redeliver',
      await t.http().post('/admin/v1/webhook-events/00000000-0000-4000-8000-000000000000/redeliver').set(admin),
    );
    conforms('get', '/admin/v1/accounts/{accountId}', await t.http().get(`/admin/v1/accounts/${id}`));
  });

  it('the operators’ account search and overview, and the account’s CSV exports', async () => {
    conforms('get', '/admin/v1/accounts', await t.http().get('/admin/v1/accounts?query=doc&limit=1').set(admin));
    conforms('get', '/admin/v1/accounts', await t.http().get('/admin/v1/accounts?limit=0').set(admin));
    conforms('get', '/admin/v1/accounts', await t.http().get('/admin/v1/accounts'));
    conforms('get', '/admin/v1/overview', await t.http().get('/admin/v1/overview').set(admin));
    const csvOf = (query = '') => t.http().get(`/admin/v1/accounts/${account.accountId}/ledger.csv${query}`);
    conforms('get', '/admin/v1/accounts/{accountId}/ledger.csv', await csvOf().set(admin));
    conforms('get', '/admin/v1/accounts/{accountId}/ledger.csv', await csvOf('?limit=1').set(admin));
    conforms('get', '/admin/v1/accounts/{accountId}/ledger.csv', await csvOf());
    conforms('get', '/admin/v1/overview', await t.http().get('/admin/v1/overview'));
    conforms('get', '/api/v1/account/ledger.csv', await t.http().get('/api/v1/account/ledger.csv').set(sandbox()));
    conforms(
      'get',
      '/api/v1/account/ledger.csv',
      await t.http().get('/api/v1/account/ledger.csv?limit=1').set(sandbox()),
    );
    conforms('get', '/api/v1/account/usage.csv', await t.http().get('/api/v1/account/usage.csv').set(sandbox()));
    conforms('get', '/api/v1/account/usage.csv', await t.http().get('/api/v1/account/usage.csv?from=x').set(sandbox()));
    conforms('get', '/api/v1/account/usage.csv', await t.http().get('/api/v1/account/usage.csv'));
  });

  it('checked a response of every operation in the document', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method} ${path}`),
    );
    expect(operations.filter((operation) => !checked.has(operation))).toEqual([]);
  });
});
