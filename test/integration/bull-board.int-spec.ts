import { BULL_BOARD_ROUTE } from '../../src/modules/admin/admin.module';
import { expectError } from '../support/http-errors';
import { bearer, createTestApp, seedAccount, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app';

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
