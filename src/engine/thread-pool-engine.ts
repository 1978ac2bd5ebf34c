import { Piscina } from 'piscina';
import type { EngineTask } from './engine-thread';
import type { OperationArgs, OperationName, OperationResult } from './operations';
import type { PixelEngine } from './pixel-engine';
import { threadModule } from './thread-module';
import { revived, transferablesOf } from './transfer';

export interface ThreadPoolSettings {
  /** Threads kept for pixel work: one per core the worker may use for it. */
  threads: number;
  /**
   * Added to the threads' nice value: under a full machine the worker's main thread (queue locks,
   * sandbox results, webhooks) and libvips are scheduled before pixel loops, which only wait.
   */
  niceIncrement: number;
}

/**
 * The image engine on a pool of worker threads (piscina). Every thread loads the engine's
 * operations once and runs one task at a time; tasks beyond the threads wait in the pool's queue,
 * in order.
 */
export class ThreadPoolEngine implements PixelEngine {
  private pool: Piscina<EngineTask, unknown> | null = null;

  constructor(private readonly settings: ThreadPoolSettings) {}

  /** The pool, started on first use: a process that runs no operation starts no thread. */
  private started(): Piscina<EngineTask, unknown> {
    const { settings } = this;
    this.pool ??= new Piscina({
      ...threadModule(__dirname, __filename, 'engine-thread'),
      minThreads: settings.threads,
      maxThreads: settings.threads,
      // Threads stay for the life of the process: starting one loads sharp and the engine again.
      idleTimeout: Number.POSITIVE_INFINITY,
      niceIncrement: settings.niceIncrement,
    });
    return this.pool;
  }

  async run<Name extends OperationName>(
    name: Name,
    args: OperationArgs<Name>,
    giving: readonly unknown[] = [],
  ): Promise<OperationResult<Name>> {
    const task: EngineTask = { name, args };
    const result = await this.started().run(task, { transferList: transferablesOf(giving) });
    return revived(result) as OperationResult<Name>;
  }

  /** Ends the threads once their running tasks have ended; queued tasks are refused. */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.close();
  }
}
