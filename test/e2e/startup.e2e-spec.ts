import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
import { unsupportedNodeMessage } from '../../src/core/bootstrap/supported-node';
import { deleteRedisKeys } from '../support/redis-keys';
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

/** Node.js executables on PATH older than the service supports, by path (the machine's own, where it is older). */
function olderNodesOnPath(): string[] {
  const found = spawnSync('which', ['-a', 'node'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  return [...new Set(found)].filter((path) => {
    const version = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    return unsupportedNodeMessage(version) !== null;
  });
}

describe('process start-up', () => {
  describe('on a Node.js release it does not support', () => {
    const refusal = (version: string) =>
      new RegExp(
        `^The Image Job Service needs Node.js 24\\.11 or later .*this is ${version.replace(/\./g, '\\.')}\\. .*nvm install 24`,
      );

    it('prints one line naming the version needed and how to get it, and exits 1', async () => {
      // An older release, as the entry point sees it: process.versions says 20.11.0 before any module loads.
      const folder = mkdtempSync(join(tmpdir(), 'imgjobs-old-node-'));
      const preload = join(folder, 'node-20.js');
      writeFileSync(preload, "Object.defineProperty(process.versions, 'node', { value: '20.11.0' });\n");
      try {
        const service = startProcess(process.execPath, ['-r', preload, 'dist/main.js', 'api'], cleanEnv({}));
        expect(await service.exited).toBe(1);
        expect(service.output().trimEnd().split('\n')).toEqual([expect.stringMatching(refusal('20.11.0'))]);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    });

    it('refuses the same way on an older Node.js the machine has, if any', async () => {
      for (const node of olderNodesOnPath()) {
        const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
        const service = startProcess(node, ['dist/main.js', 'api'], cleanEnv({}));
        expect(await service.exited).toBe(1);
        expect(service.output().trimEnd().split('\n')).toEqual([expect.stringMatching(refusal(version))]);
      }
    });
  });

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

  it('says in one line, without a stack, why the embedded database cannot start and how to do without it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'imgjobs-broken-'));
    try {
      // A data folder no PostgreSQL 18 can open: written by a version 9 that never existed here.
      mkdirSync(join(dataDir, 'postgres'));
      writeFileSync(join(dataDir, 'postgres', 'PG_VERSION'), '9\n');
      chmodSync(dataDir, 0o755);
      const port = await freePort();
      const service = startProcess(
        'node',
        ['dist/main.js', 'all'],
        cleanEnv({
          DATA_DIR: dataDir,
          EMBEDDED_POSTGRES_PORT: String(await freePort()),
          PORT: String(port),
          REDIS_URL: testServices().redisUrl,
        }),
      );
      expect(await service.exited).toBe(1);
      const lines = service.output().split('\n');
      const reason = lines.filter((line) => line.startsWith('The embedded PostgreSQL could not start'));
      expect(reason).toHaveLength(1);
      expect(reason[0]).toContain(join(dataDir, 'postgres'));
      expect(reason[0]).toMatch(/set DATABASE_URL/);
      expect(service.output()).not.toMatch(/\n\s+at /);
      expect(await isListening(port)).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe('npm start on a machine with nothing configured', () => {
    let dataDir: string;
    let port: number;
    let env: NodeJS.ProcessEnv;
    let postgresPort: number;
    let databaseDir: string | undefined;

    beforeAll(async () => {
      // Private to its owner (mode 700), like a clone under /root: as root, PostgreSQL's own user
      // cannot enter it, and the service keeps the database where that user can.
      dataDir = mkdtempSync(join(tmpdir(), 'imgjobs-start-'));
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
      if (databaseDir) rmSync(databaseDir, { recursive: true, force: true });
      await deleteRedisKeys(testServices().redisUrl, `e2e-start-${port}:*`);
    });

    it('brings up the service with embedded PostgreSQL, prints credentials once, and stops cleanly', async () => {
      const first = startProcess('npm', ['start'], env);
      try {
        const [, adminToken] = await first.waitForOutput(/Admin token:\s+(adm_\S+)/, 120_000);
        const [, sandboxKey] = await first.waitForOutput(/Sandbox key:\s+(sk_sandbox_\S+)/);
        await first.waitForOutput(/Live key:\s+sk_live_\S+/);
        await waitForReady(port);
        [, databaseDir] = await first.waitForOutput(/"databaseDir":"([^"]+)","msg":"embedded PostgreSQL started"/);
        if (process.getuid?.() === 0) expect(databaseDir.startsWith(dataDir)).toBe(false);

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

        // A second start reuses the data: no new keys, the old ones still work. It runs what
        // `npm start` runs once built (the build it would repeat is the one above).
        const second = startProcess(process.execPath, ['dist/main.js', 'all'], env);
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
