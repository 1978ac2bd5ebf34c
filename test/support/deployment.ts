import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startProcess, waitForReady, type ServiceProcess } from './processes';
import { deleteRedisKeys } from './redis-keys';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database';
import { testServices, type TestServices } from './test-services';

/** An API and a worker of a deployment, both answering ready. */
export interface RunningService {
  /** The API's address, also its PUBLIC_BASE_URL. */
  base: string;
  apiPort: number;
  /** The worker's health port (WORKER_HEALTH_PORT): its readiness and its metrics. */
  healthPort: number;
  api: ServiceProcess;
  worker: ServiceProcess;
  /** From the worker's start to its first ready answer. */
  workerStartMs: number;
}

export interface DeploymentOptions {
  /** Where the scratch database and the keys go; the suite's services by default. */
  services?: TestServices;
  /** How long close() gives each process to exit after SIGTERM; 0 kills them at once. */
  stopGraceMs?: number;
}

/**
 * The built service deployed beside a test or a benchmark, as child processes: a scratch
 * database, a Redis key prefix and a storage folder of its own, and the processes it starts.
 * close() stops the processes and removes the rest, whatever state the run ended in.
 */
export class Deployment {
  private readonly processes: ServiceProcess[] = [];
  private readonly cleanups: Array<() => unknown> = [];
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly database: ScratchDatabase,
    readonly redisUrl: string,
    readonly redisPrefix: string,
    readonly storageDir: string,
    private readonly stopGraceMs: number,
  ) {}

  /** `name` (`e2e-console`, `bench-soak`) names its prefix, folder and database: leftovers say whose they are. */
  static async create(name: string, { services = testServices(), stopGraceMs = 0 }: DeploymentOptions = {}) {
    const database = await createScratchDatabase(services.databaseUrl, `imgjobs_${name.replace(/\W/g, '_')}`);
    const suffix = randomBytes(4).toString('hex');
    const storageDir = mkdtempSync(join(tmpdir(), `imgjobs-${name}-`));
    return new Deployment(database, services.redisUrl, `${name}-${suffix}`, storageDir, stopGraceMs);
  }

  get databaseUrl(): string {
    return this.database.url;
  }

  /** DATABASE_URL, REDIS_URL and REDIS_KEY_PREFIX of this deployment, for its processes' environments. */
  get settings(): Record<string, string> {
    return { DATABASE_URL: this.database.url, REDIS_URL: this.redisUrl, REDIS_KEY_PREFIX: this.redisPrefix };
  }

  /** Runs `command args` from the repository root; close() stops it. */
  start(command: string, args: string[], env: NodeJS.ProcessEnv): ServiceProcess {
    const started = startProcess(command, args, env);
    this.processes.push(started);
    return started;
  }

  /** Runs the built service (`node [nodeArgs] dist/main.js <role>`) with `env` and this deployment's settings. */
  startService(role: 'api' | 'worker', env: NodeJS.ProcessEnv, nodeArgs: string[] = []): ServiceProcess {
    return this.start(process.execPath, [...nodeArgs, 'dist/main.js', role], { ...env, ...this.settings });
  }

  /**
   * An API, then a worker, on ports of their own, each waited for until it answers ready
   * (`readyTimeoutMs` each: a worker that loads a model takes longer); a failure to come up
   * shows the end of the process's output.
   */
  async startApiAndWorker(env: NodeJS.ProcessEnv, readyTimeoutMs = 60_000): Promise<RunningService> {
    const apiPort = await freePort();
    const healthPort = await freePort();
    const base = `http://127.0.0.1:${apiPort}`;
    const serviceEnv = {
      ...env,
      PORT: String(apiPort),
      WORKER_HEALTH_PORT: String(healthPort),
      PUBLIC_BASE_URL: base,
    };
    const api = this.startService('api', serviceEnv);
    await this.waitUntilReady(api, apiPort, readyTimeoutMs);
    const workerStarted = Date.now();
    const worker = this.startService('worker', serviceEnv);
    await this.waitUntilReady(worker, healthPort, readyTimeoutMs);
    return { base, apiPort, healthPort, api, worker, workerStartMs: Date.now() - workerStarted };
  }

  /** Waits until the process answers ready on `port`; if it does not, the error carries the end of its output. */
  async waitUntilReady(started: ServiceProcess, port: number, timeoutMs = 60_000): Promise<void> {
    await waitForReady(port, timeoutMs).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${started.output().slice(-4000)}`);
    });
  }

  /** Runs `cleanup` at close(), before the processes are stopped; the last one given runs first. */
  onClose(cleanup: () => unknown): void {
    this.cleanups.unshift(cleanup);
  }

  /**
   * Runs the clean-ups, stops the processes (the last started first), drops the database,
   * deletes the keys and the folder; every step runs even if one before failed, the first
   * failure is thrown at the end. Closing again waits for the same close.
   */
  close(): Promise<void> {
    this.closing ??= this.removeEverything();
    return this.closing;
  }

  /** Stops every process it started, the last started first (close() does it too). */
  async stopProcesses(): Promise<void> {
    for (const started of [...this.processes].reverse()) await started.stop(this.stopGraceMs);
  }

  private async removeEverything(): Promise<void> {
    const steps = [
      ...this.cleanups,
      ...[...this.processes].reverse().map((started) => () => started.stop(this.stopGraceMs)),
      () => this.database.drop(),
      () => deleteRedisKeys(this.redisUrl, `${this.redisPrefix}:*`),
      () => rmSync(this.storageDir, { recursive: true, force: true }),
    ];
    const failures: unknown[] = [];
    for (const step of steps) {
      try {
        await step();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}
