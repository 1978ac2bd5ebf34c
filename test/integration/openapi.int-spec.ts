import { createHash } from 'node:crypto';
import { DOCS_PATH, OPENAPI_JSON_PATH } from '../../src/core/bootstrap/http-app';
import { HealthController } from '../../src/core/health/health.controller';
import { HealthService } from '../../src/core/health/health.service';
import { createTestApp, type TestApp } from '../support/test-app';

/** The parts of an OpenAPI 3 document these tests read. */
interface SchemaObject {
  type?: string;
  nullable?: boolean;
  enum?: string[];
  $ref?: string;
  allOf?: SchemaObject[];
  items?: SchemaObject;
  properties?: Record<string, SchemaObject>;
  required?: string[];
}

interface Operation {
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { content?: Record<string, { schema: SchemaObject }> }>;
}

interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, SchemaObject>;
    securitySchemes?: Record<string, { type: string; scheme?: string; bearerFormat?: string }>;
  };
}

/** The field types of spec 2.6, as OpenAPI types. */
const CATALOG_ENTRY_FIELDS: Record<string, string> = {
  id: 'string',
  name: 'string',
  endpoint: 'string',
  credits: 'integer',
  unit: 'string',
  default_cost_key: 'string',
  pricing_version: 'integer',
  description: 'string',
};

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: OpenApiDocument;
  let text: string;

  /** Follows `$ref` (directly or through a single `allOf`) to the named component. */
  function resolve(schema: SchemaObject): SchemaObject {
    const ref = schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0].$ref : undefined);
    if (!ref) return schema;
    const name = ref.replace('#/components/schemas/', '');
    const target = doc.components.schemas[name];
    if (!target) throw new Error(`dangling reference ${ref}`);
    return resolve(target);
  }

  function okSchema(path: string, method = 'get'): SchemaObject {
    const operation = doc.paths[path]?.[method];
    expect(operation).toBeDefined();
    const schema = operation.responses['200']?.content?.['application/json']?.schema;
    expect(schema).toBeDefined();
    return resolve(schema as SchemaObject);
  }

  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.http().get(`/${OPENAPI_JSON_PATH}`).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.body as OpenApiDocument;
    text = res.text;
  });
  afterAll(() => t.close());

  // The document is the product's interface: any change to it, down to a byte, is made on purpose and reviewed (`jest
  // -u`).
  it('is byte for byte the document of this version', () => {
    expect({
      sha256: createHash('sha256').update(text).digest('hex'),
      bytes: Buffer.byteLength(text),
    }).toMatchSnapshot();
    expect(doc).toMatchSnapshot();
  });

  it('is served at /api/v1/openapi.json as OpenAPI 3.x, interface version 1.0.0', () => {
    expect(OPENAPI_JSON_PATH).toBe('api/v1/openapi.json');
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.info.title.length).toBeGreaterThan(0);
  });

  it('describes the public routes, the account route and every admin route', () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/tools',
        '/api/v1/product-photo-presets',
        '/api/v1/account',
        '/admin/v1/accounts',
        '/admin/v1/accounts/{accountId}',
        '/admin/v1/accounts/{accountId}/api-keys',
        '/admin/v1/api-keys/{keyId}',
        '/admin/v1/accounts/{accountId}/credits',
        '/admin/v1/accounts/{accountId}/ledger',
      ]),
    );
    expect(Object.keys(doc.paths['/admin/v1/accounts/{accountId}']).sort()).toEqual(['get', 'patch']);
    expect(Object.keys(doc.paths['/admin/v1/api-keys/{keyId}'])).toEqual(['delete']);
  });

  it(
    'describes every create endpoint with its body, the ' +
      'Idempotency-Key header, 202 and 200, and each error status',
    () => {
      const creates: Record<string, string> = {
        '/api/v1/image/edit': 'ImageEditRequestDto',
        '/api/v1/image/ai-edit': 'ImageAiEditRequestDto',
        '/api/v1/ad/create': 'AdCreateRequestDto',
        '/api/v1/scene/create': 'SceneCreateRequestDto',
        '/api/v1/image/generate': 'ImageGenerateRequestDto',
        '/api/v1/remove-background': 'RemoveBackgroundRequestDto',
        '/api/v1/product-photo-jobs': 'ProductPhotoJobRequestDto',
      };
      for (const [path, body] of Object.entries(creates)) {
        const operation = doc.paths[path]?.post as Operation & {
          requestBody?: { content: Record<string, { schema: SchemaObject }> };
          parameters?: Array<{ name: string; in: string; required?: boolean }>;
        };
        expect(operation).toBeDefined();
        expect(operation.requestBody?.content['application/json'].schema.$ref).toBe(`#/components/schemas/${body}`);
        expect(operation.parameters).toEqual(
          expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true })]),
        );
        expect(Object.keys(operation.responses)).toEqual(
          expect.arrayContaining(['200', '202', '400', '401', '402', '403', '409', '429', '503']),
        );
        expect(operation.security).toEqual([{ api_key: [] }]);
      }
    },
  );

  it('describes reading jobs, enhancements, the account’s activity and events, and the webhook routes', () => {
    const expected: Array<[string, string, string[]]> = [
      ['/api/v1/jobs', 'get', ['200', '429']],
      ['/api/v1/jobs/{jobId}', 'get', ['200', '404', '429']],
      ['/api/v1/jobs/{jobId}/cancel', 'post', ['200', '404']],
      ['/api/v1/product-image-enhancements/{enhancementId}', 'get', ['200', '404']],
      ['/admin/v1/accounts/{accountId}/webhook-secret', 'get', ['200', '404']],
      ['/admin/v1/accounts/{accountId}/webhook-secret', 'post', ['200', '404']],
      ['/admin/v1/accounts/{accountId}/webhook-deliveries', 'get', ['200', '404']],
      ['/admin/v1/webhook-events/{eventId}/redeliver', 'post', ['202', '400', '404']],
      ['/api/v1/account/ledger', 'get', ['200', '400', '429']],
      ['/api/v1/account/usage', 'get', ['200', '400', '429']],
      ['/api/v1/webhook-deliveries', 'get', ['200', '400', '429']],
      ['/api/v1/webhook-events/{eventId}/redeliver', 'post', ['202', '400', '404', '429']],
      ['/api/v1/events', 'get', ['200', '429', '503']],
    ];
    for (const [path, method, statuses] of expected) {
      const operation = doc.paths[path]?.[method];
      expect({ path, method, documented: operation !== undefined }).toEqual({ path, method, documented: true });
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(statuses));
    }
    const job = resolve(okSchema('/api/v1/jobs/{jobId}').properties?.job as SchemaObject);
    expect(Object.keys(job.properties ?? {})).toEqual(
      expect.arrayContaining([
        'id',
        'api',
        'status',
        'sandbox',
        'total_results',
        'credits_reserved',
        'credits_used',
        'pricing_version',
      ]),
    );
  });

  it(
    'marks which credentials each route needs: none for the ' +
      'catalog, an API key for the account, the admin token for admin',
    () => {
      expect(doc.paths['/api/v1/tools'].get.security ?? []).toEqual([]);
      expect(doc.paths['/api/v1/product-photo-presets'].get.security ?? []).toEqual([]);
      expect(doc.paths['/api/v1/account'].get.security).toEqual([{ api_key: [] }]);
      for (const [path, operations] of Object.entries(doc.paths)) {
        if (!path.startsWith('/admin/v1/')) continue;
        for (const operation of Object.values(operations)) expect(operation.security).toEqual([{ admin: [] }]);
      }
    },
  );

  it('declares both credentials as HTTP bearer schemes, without calling them JWTs', () => {
    const schemes = doc.components.securitySchemes ?? {};
    for (const name of ['api_key', 'admin']) {
      expect(schemes[name]).toMatchObject({ type: 'http', scheme: 'bearer' });
      // Neither an sk_live_/sk_sandbox_ key nor ADMIN_TOKEN is a JWT.
      expect(schemes[name].bearerFormat).not.toBe('JWT');
    }
  });

  it('gives GET /tools a response of catalog entries carrying every field of spec 2.6 with its type', () => {
    const response = okSchema('/api/v1/tools');
    expect(response.required).toEqual(expect.arrayContaining(['tools', 'request_id']));
    const tools = response.properties?.tools;
    expect(tools?.type).toBe('array');
    expect(tools?.items?.$ref).toBe('#/components/schemas/ToolCatalogEntryDto');
    const entry = resolve(tools?.items as SchemaObject);
    expect(Object.keys(entry.properties ?? {})).toEqual(expect.arrayContaining(Object.keys(CATALOG_ENTRY_FIELDS)));
    const documentedTypes = Object.fromEntries(
      Object.keys(CATALOG_ENTRY_FIELDS).map((field) => [
        field,
        resolve(entry.properties?.[field] as SchemaObject).type,
      ]),
    );
    expect(documentedTypes).toEqual(CATALOG_ENTRY_FIELDS);
    expect(resolve(entry.properties?.id as SchemaObject).enum?.sort()).toEqual([
      'ad_creative',
      'ai_background',
      'image_ai_edit',
      'image_editing',
      'image_generation',
      'remove_background',
    ]);
  });

  it('gives GET /product-photo-presets a response of presets and an operation filter', () => {
    const response = okSchema('/api/v1/product-photo-presets');
    const preset = resolve(response.properties?.presets?.items as SchemaObject);
    expect(preset.required).toEqual(
      expect.arrayContaining([
        'id',
        'name',
        'channel',
        'description',
        'operation',
        'width',
        'height',
        'format',
        'background',
      ]),
    );
    expect(preset.properties?.width).toMatchObject({ type: 'integer', nullable: true });
    expect(preset.properties?.format?.enum).toEqual(['jpg', 'png', 'webp', 'avif']);
    const operation = doc.paths['/api/v1/product-photo-presets'].get as Operation & {
      parameters?: Array<{ name: string; in: string; required?: boolean }>;
    };
    expect(operation.parameters).toEqual([
      expect.objectContaining({ name: 'operation', in: 'query', required: false }),
    ]);
  });

  it('documents the error envelope with every error code', () => {
    const envelope = resolve({ $ref: '#/components/schemas/ErrorResponseDto' });
    expect(envelope.required).toEqual(expect.arrayContaining(['error', 'request_id']));
    const error = resolve(envelope.properties?.error as SchemaObject);
    expect(error.required).toEqual(expect.arrayContaining(['code', 'message']));
    // Contract section 2's codes, written out.
    expect(resolve(error.properties?.code as SchemaObject).enum?.sort()).toEqual([
      'account_restricted',
      'already_recut',
      'api_access_disabled',
      'capacity_unavailable',
      'idempotency_conflict',
      'insufficient_credits',
      'internal_error',
      'invalid_request',
      'not_found',
      'not_reviewable',
      'payload_too_large',
      'rate_limit_exceeded',
      'service_unavailable',
      'too_many_active_jobs',
      'too_many_pending_results',
      'tool_unavailable',
      'unauthorized',
      'unsupported_media_type',
    ]);
  });

  it('serves Swagger UI as HTML at /docs, with its assets and the document inline', async () => {
    expect(DOCS_PATH).toBe('docs');
    const page = await t.http().get('/docs').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('Swagger UI');
    expect(page.text).toContain('swagger-ui-bundle.js');
    await t
      .http()
      .get('/docs/swagger-ui.css')
      .expect(200)
      .expect('Content-Type', /text\/css/);
    await t
      .http()
      .get('/docs/swagger-ui-bundle.js')
      .expect(200)
      .expect('Content-Type', /javascript/);
    const init = await t.http().get('/docs/swagger-ui-init.js').expect(200);
    expect(init.text).toContain('/api/v1/tools');
  });
});

describe(HealthController.name, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('GET /health is 200 without credentials and names the Node.js it runs on: 22 or later', async () => {
    const res = await t.http().get('/health').expect(200);
    expect(res.body).toEqual({ status: 'ok', node: process.version, request_id: res.headers['x-request-id'] });
    expect(Number(/^v(\d+)\./.exec(res.body.node)?.[1])).toBeGreaterThanOrEqual(22);
  });

  it('GET /health/live is 200 without credentials', async () => {
    const res = await t.http().get('/health/live').expect(200);
    expect(res.body).toEqual({ status: 'ok', request_id: res.headers['x-request-id'] });
  });

  it('GET /health/ready is 200 with database and redis up', async () => {
    const res = await t.http().get('/health/ready').expect(200);
    expect(res.body).toEqual({
      status: 'ok',
      checks: { database: 'up', redis: 'up' },
      request_id: res.headers['x-request-id'],
    });
  });

  // Last: draining cannot be undone.
  it('GET /health/ready is 503 draining once the process drains, while /health/live stays 200', async () => {
    t.app.get(HealthService).startDraining();
    const ready = await t.http().get('/health/ready').expect(503);
    expect(ready.body).toEqual({ status: 'draining', request_id: ready.headers['x-request-id'] });
    await t.http().get('/health/live').expect(200);
  });
});
