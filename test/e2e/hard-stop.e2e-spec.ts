import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isPostmasterOf } from '../../src/core/bootstrap/embedded-postgres/leftover-server';
import { cleanEnv, freePort, isListening, startProcess, waitForReady, type ServiceProcess } from '../support/processes';
import { deleteRedisKeys } from '../support/redis-keys';

/** The Redis `npm start` uses when REDIS_URL is unset and one answers there (the test machine's). */
const MACHINE_REDIS_URL = 'redis://127.0.0.1:6379';
const READY_TIMEOUT_MS = 120_000;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The pids of every postgres server running on this data folder (Linux: read from /proc). */
function postmastersOf(databaseDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (isPostmasterOf(args, databaseDir)) pids.push(Number(entry));
    } catch {
      // Gone in the meantime.
    }
  }
  return pids;
}

/**
 * `npm start` (the built entry with npm start's environment: no DATABASE_URL or REDIS_URL) killed
 * hard, so that its embedded PostgreSQL outlives it, as it does when the process crashes or is
 * killed; the next start finds that server, stops it and starts its own on the same data.
 */
const describeOnLinux = process.platform === 'linux' ? describe : describe.skip;
describeOnLinux('npm start after a hard stop', () => {
  const processes: ServiceProcess[] = [];
  let dataDir: string;
  let databaseDir: string | undefined;
  let prefix: string;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'imgjobs-hard-stop-'));
  });
  afterAll(async () => {
    for (const service of processes) service.kill();
    if (databaseDir) {
      for (const pid of postmastersOf(databaseDir)) process.kill(pid, 'SIGQUIT');
      rmSync(databaseDir, { recursive: true, force: true });
    }
    rmSync(dataDir, { recursive: true, force: true });
    if (prefix) await deleteRedisKeys(MACHINE_REDIS_URL, `${prefix}:*`).catch(() => undefined);
  });

  it('stops the PostgreSQL the killed run left, starts on the same data, and stops cleanly on SIGHUP', async () => {
    const port = await freePort();
    const postgresPort = await freePort();
    prefix = `e2e-hard-stop-${port}`;
    const env = cleanEnv({
      LOG_LEVEL: 'info',
      PORT: String(port),
      DATA_DIR: dataDir,
      STORAGE_DIR: join(dataDir, 'results'),
      EMBEDDED_POSTGRES_PORT: String(postgresPort),
      REDIS_KEY_PREFIX: prefix,
      SHUTDOWN_DRAIN_SECONDS: '1',
    });
    const start = () => {
      const service = startProcess('node', ['dist/main.js', 'all'], env);
      processes.push(service);
      return service;
    };
    /** Ready, or the reason it exited instead (without waiting out the timeout). */
    const ready = (service: ServiceProcess) =>
      Promise.race([
        waitForReady(port, READY_TIMEOUT_MS),
        service.exited.then((code) => {
          throw new Error(`the service exited (${code}) before it was ready:\n${service.output().slice(-2000)}`);
        }),
      ]);

    const first = start();
    await ready(first);
    [, databaseDir] = await first.waitForOutput(/"databaseDir":"([^"]+)","msg":"embedded PostgreSQL started"/);
    const [, sandboxKey] = await first.waitForOutput(/Sandbox key:\s+(sk_sandbox_\S+)/);
    const [leftover] = postmastersOf(databaseDir);
    expect(leftover).toBeDefined();

    // SIGKILL to node alone: its PostgreSQL, in a process group of its own, runs on.
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(alive(leftover)).toBe(true);
    expect(existsSync(join(databaseDir, 'postmaster.pid'))).toBe(true);

    const second = start();
    await ready(second);
    expect(second.output()).toMatch(/stopping the embedded PostgreSQL left running by an earlier run/);
    expect(second.output()).not.toMatch(/could not start/);
    expect(alive(leftover)).toBe(false);
    expect(postmastersOf(databaseDir)).toHaveLength(1);
    // The same data: the key the first run printed still works.
    const account = await fetch(`http://127.0.0.1:${port}/api/v1/account`, {
      headers: { Authorization: `Bearer ${sandboxKey}` },
    });
    expect(account.status).toBe(200);

    // The terminal closing: SIGHUP to the process group, a graceful stop like SIGTERM's.
    second.signal('SIGHUP');
    expect(await second.exited).toBe(0);
    expect(second.output()).toMatch(/"reason":"SIGHUP".*"msg":"shutting down"/);
    expect(second.output()).toMatch(/"msg":"draining: readiness answers 503/);
    expect(second.output()).toMatch(/"exitCode":0,"msg":"shutdown complete"/);
    expect(postmastersOf(databaseDir)).toEqual([]);
    expect(await isListening(postgresPort)).toBe(false);
    expect(await isListening(port)).toBe(false);
  }, 300_000);
});
