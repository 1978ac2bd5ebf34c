import { BULL_BOARD_ROUTE } from '../../src/modules/admin/admin.module';
import { expectError } from '../support/http-errors';
import {
  bearer,
  createTestApp,
  OPERATOR_TOKEN_LIMIT_SETTINGS,
  seedAccount,
  TEST_ADMIN_TOKEN,
  TEST_METRICS_TOKEN,
  type TestApp,
} from '../support/test-app';

/** Bull Board's JSON list of queues (route `/api/queues` in @bull-board/api's routes.js). */
const QUEUES_API = `${BULL_BOARD_ROUTE}/api/queues`;

const basic = (user: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

describe(`Bull Board at ${BULL_BOARD_ROUTE}`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe.each([BULL_BOARD_ROUTE, QUEUES_API])('%s', (path) => {
    it('refuses a request without the admin token with 401 and a Basic challenge', async () => {
      const res = await t.http().get(path);
      expectError(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="[^"]+"/);
    });

    it('refuses a wrong token, a wrong basic password and an API key', async () => {
      const { liveKey } = await seedAccount(t);
      for (const headers of [
        bearer('wrong-admin-token-0123456789'),
        basic('admin', 'wrong-admin-token-0123456789'),
        // The token as the user name is not the password.
        basic(TEST_ADMIN_TOKEN, ''),
        bearer(liveKey),
        basic('admin', liveKey),
      ]) {
        const res = await t.http().get(path).set(headers);
        expectError(res, 401, 'unauthorized');
        expect(res.headers['www-authenticate']).toMatch(/^Basic /);
      }
    });

    it('lets the admin token in as a bearer header and as the basic-auth password', async () => {
      await t.http().get(path).set(bearer(TEST_ADMIN_TOKEN)).expect(200);
      await t.http().get(path).set(basic('operator', TEST_ADMIN_TOKEN)).expect(200);
      await t.http().get(path).auth('', TEST_ADMIN_TOKEN).expect(200);
    });
  });

  it('serves the board UI as HTML', async () => {
    const res = await t.http().get(BULL_BOARD_ROUTE).set(bearer(TEST_ADMIN_TOKEN)).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });

  it('lists every queue the service declares', async () => {
    const res = await t.http().get(QUEUES_API).set(bearer(TEST_ADMIN_TOKEN)).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const names = (res.body.queues as Array<{ name: string }>).map((queue) => queue.name);
    expect([...names].sort()).toEqual([
      'background-removal',
      'maintenance',
      'processing',
      'sandbox',
      'webhook-delivery',
    ]);
  });

  it("forbids framing and type sniffing on every answer, the board's, its API's and a refusal", async () => {
    const answers = [
      await t.http().get(BULL_BOARD_ROUTE).set(bearer(TEST_ADMIN_TOKEN)).expect(200),
      await t.http().get(QUEUES_API).set(bearer(TEST_ADMIN_TOKEN)).expect(200),
      await t.http().get(BULL_BOARD_ROUTE).expect(401),
    ];
    for (const res of answers) {
      expect(res.headers).toMatchObject({
        'content-security-policy': "frame-ancestors 'none'",
        'x-frame-options': 'DENY',
        'x-content-type-options': 'nosniff',
      });
    }
  });

  describe('after too many wrong tokens from one client IP', () => {
    const METRICS_TOKEN = TEST_METRICS_TOKEN;
    let limited: TestApp;

    beforeAll(async () => {
      limited = await createTestApp(OPERATOR_TOKEN_LIMIT_SETTINGS);
    });
    afterAll(() => limited.close());

    const fromIp = (ip: string, headers: Record<string, string>, path = BULL_BOARD_ROUTE) =>
      limited.http().get(path).set(headers).set('X-Forwarded-For', ip);

    it('answers 429 rate_limit_exceeded with Retry-After and no prompt; the right token still passes', async () => {
      expectError(await fromIp('203.0.113.90', basic('admin', 'wrong-admin-token-0123456789')), 401, 'unauthorized');
      expectError(await fromIp('203.0.113.90', bearer('wrong-admin-token-0123456789')), 401, 'unauthorized');
      expectError(await fromIp('203.0.113.90', bearer(METRICS_TOKEN), QUEUES_API), 401, 'unauthorized');
      for (const path of [BULL_BOARD_ROUTE, QUEUES_API]) {
        const refused = await fromIp('203.0.113.90', basic('admin', 'wrong-admin-token-0123456789'), path);
        expectError(refused, 429, 'rate_limit_exceeded');
        expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(refused.headers['www-authenticate']).toBeUndefined();
        expect(refused.headers['x-frame-options']).toBe('DENY');
      }
      await fromIp('203.0.113.90', basic('admin', TEST_ADMIN_TOKEN)).expect(200);
      await fromIp('203.0.113.90', bearer(TEST_ADMIN_TOKEN), QUEUES_API).expect(200);
      expectError(await fromIp('203.0.113.91', bearer('wrong-admin-token-0123456789')), 401, 'unauthorized');
    });

    it('refuses METRICS_TOKEN, as a bearer token and as the basic-auth password', async () => {
      for (const headers of [bearer(METRICS_TOKEN), basic('admin', METRICS_TOKEN)]) {
        const res = await fromIp('203.0.113.92', headers);
        expectError(res, 401, 'unauthorized');
        expect(res.headers['www-authenticate']).toMatch(/^Basic /);
      }
    });
  });

  describe('when ADMIN_TOKEN is not configured', () => {
    let off: TestApp;

    beforeAll(async () => {
      off = await createTestApp({ ADMIN_TOKEN: '' });
    });
    afterAll(() => off.close());

    it.each([BULL_BOARD_ROUTE, QUEUES_API])('%s answers 404 not_found, whatever the credential', async (path) => {
      for (const headers of [{}, bearer(TEST_ADMIN_TOKEN), basic('admin', TEST_ADMIN_TOKEN)]) {
        const res = await off.http().get(path).set(headers);
        expectError(res, 404, 'not_found');
        expect(res.headers['www-authenticate']).toBeUndefined();
      }
    });
  });
});
