import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './processes';
import { readUntil } from './waiting';

/**
 * A redis-server of the test's own, without persistence, so a test can take it away and bring
 * it back empty (as after a failover to an empty replica) without touching the shared Redis.
 */
export class PrivateRedis {
  private process: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server empty on the same port and waits until it answers. */
  async restart(): Promise<void> {
    if (this.process) throw new Error('the private Redis is already running');
    this.process = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    /** Null once the server answers, else why it did not. */
    const probe = async (): Promise<string | null> => {
      const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      try {
        await client.connect();
        await client.ping();
        return null;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      } finally {
        client.disconnect();
      }
    };
    await readUntil(
      probe,
      (failure) => failure === null,
      (failure) => `the private Redis to answer (last: ${failure})`,
      { timeoutMs: 10_000, intervalMs: 50 },
    );
  }

  /** Kills the server (SIGKILL: no clean shutdown, no data kept) and waits for it to be gone. */
  async kill(): Promise<void> {
    const child = this.process;
    if (!child) return;
    this.process = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}
