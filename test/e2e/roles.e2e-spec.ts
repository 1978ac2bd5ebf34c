import { connect } from 'node:net';
import { cleanEnv, freePort, startProcess, waitForStatus } from '../support/processes';
import { createScratchDatabase } from '../support/scratch-database';
import { deleteRedisKeys } from '../support/test-app';
import { testServices } from '../support/test-services';

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('api and worker roles from one build', () => {
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;

  beforeAll(async () => {
    database = await createScratchDatabase();
  });
  let redisPrefix: string | undefined;
  afterAll(async () => {
    await database.drop();
    if (redisPrefix) await deleteRedisKeys(testServices().redisUrl, `${redisPrefix}:*`);
  });

  it('runs the API and the worker as separate processes that both stop cleanly on SIGTERM', async () => {
    const apiPort = await freePort();
    const healthPort = await freePort();
    redisPrefix = `e2e-roles-${apiPort}`;
    const env = cleanEnv({
      LOG_LEVEL: 'info',
      DATABASE_URL: database.url,
      REDIS_URL: testServices().redisUrl,
      REDIS_KEY_PREFIX: redisPrefix,
      PORT: String(apiPort),
      WORKER_HEALTH_PORT: String(healthPort),
      ADMIN_TOKEN: 'roles-admin-token-0123456789',
    });
    // Started together: both apply migrations, serialised by an advisory lock.
    const api = startProcess('node', ['dist/main.js', 'api'], env);
    const worker = startProcess('node', ['dist/main.js', 'worker'], env);
    try {
      await waitForStatus(`http://127.0.0.1:${apiPort}/health/ready`);
      await waitForStatus(`http://127.0.0.1:${healthPort}/health/ready`);

      // The worker serves only its health port; the API port belongs to the API process.
      const tools = await fetch(`http://127.0.0.1:${apiPort}/api/v1/tools`);
      expect(tools.status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${healthPort}/api/v1/tools`)).status).toBe(404);
      expect(worker.output()).not.toMatch(/API listening/);
      expect(api.output()).not.toMatch(/worker started/);

      api.signal('SIGTERM');
      worker.signal('SIGTERM');
      expect(await api.exited).toBe(0);
      expect(await worker.exited).toBe(0);
      expect(await answers(apiPort)).toBe(false);
      expect(await answers(healthPort)).toBe(false);
    } finally {
      api.kill();
      worker.kill();
    }
  }, 120_000);
});
