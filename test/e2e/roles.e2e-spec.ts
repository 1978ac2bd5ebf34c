import { cleanEnv, freePort, isListening, startService, waitForReady } from '../support/processes';
import { parseSamples, valueOf } from '../support/prometheus-text';
import { createScratchDatabase } from '../support/scratch-database';
import { deleteRedisKeys } from '../support/redis-keys';
import { testServices } from '../support/test-services';

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
    const api = startService('api', env);
    const worker = startService('worker', env);
    try {
      await waitForReady(apiPort);
      await waitForReady(healthPort);

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
      expect(await isListening(apiPort)).toBe(false);
      expect(await isListening(healthPort)).toBe(false);
    } finally {
      api.kill();
      worker.kill();
    }
  }, 120_000);

  it('runs the API role as several processes on one port (API_PROCESSES) that all stop on SIGTERM', async () => {
    const apiPort = await freePort();
    const env = cleanEnv({
      LOG_LEVEL: 'info',
      DATABASE_URL: database.url,
      REDIS_URL: testServices().redisUrl,
      REDIS_KEY_PREFIX: `${redisPrefix}-cluster`,
      PORT: String(apiPort),
      ADMIN_TOKEN: 'roles-admin-token-0123456789',
      API_PROCESSES: '2',
    });
    const api = startService('api', env);
    try {
      await api.waitForOutput(/API listening[\s\S]*API listening/);
      await waitForReady(apiPort);
      const pids = new Set(
        [...api.output().matchAll(/"pid":(\d+)[^\n]*"msg":"API listening"/g)].map((match) => match[1]),
      );
      expect(pids.size).toBe(2);
      expect(pids.has(String(api.child.pid))).toBe(false);
      const answers200 = await Promise.all(
        Array.from({ length: 20 }, async () => (await fetch(`http://127.0.0.1:${apiPort}/api/v1/tools`)).status),
      );
      expect(answers200.every((status) => status === 200)).toBe(true);
      // A scrape reaches one process, which answers for all of them: every scrape counts all 20.
      for (let scrape = 0; scrape < 4; scrape++) {
        const metrics = await fetch(`http://127.0.0.1:${apiPort}/metrics`, {
          headers: { Authorization: 'Bearer roles-admin-token-0123456789' },
        });
        expect(metrics.status).toBe(200);
        const samples = parseSamples(await metrics.text());
        expect(
          valueOf(samples, 'imgjobs_http_request_duration_seconds_count', {
            route: '/api/v1/tools',
            method: 'GET',
            status: '200',
          }),
        ).toBe(20);
      }

      // Only the primary is signalled, as a container runtime signals PID 1: it passes it on.
      api.child.kill('SIGTERM');
      expect(await api.exited).toBe(0);
      expect(await isListening(apiPort)).toBe(false);
      for (const pid of pids) expect(() => process.kill(Number(pid), 0)).toThrow();
    } finally {
      api.kill();
    }
  }, 120_000);
});
