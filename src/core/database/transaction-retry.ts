import type { DataSource, EntityManager } from 'typeorm';

/**
 * SQLSTATEs after which re-running the whole transaction may succeed: a serialization failure,
 * a deadlock (PostgreSQL aborted this transaction to break a cycle), and a lock wait cut short
 * by `lock_timeout`. In each case PostgreSQL rolled the transaction back, so nothing it did
 * stands and it can be run again from its first statement.
 */
const RETRYABLE_SQLSTATES = new Set(['40001', '40P01', '55P03']);

export interface TransactionRetryOptions {
  /** Runs of the transaction in all, the first included. */
  attempts: number;
  /** The wait before the second run; each later wait doubles, each drawn with full jitter. */
  baseDelayMs?: number;
  /** For tests: how to wait. */
  sleep?: (ms: number) => Promise<void>;
}

const DEFAULT_BASE_DELAY_MS = 20;
const DEFAULT_TRANSACTION_RETRY: TransactionRetryOptions = { attempts: 3 };

/** The SQLSTATE of a PostgreSQL error as TypeORM or node-postgres surfaces it, if any. */
function sqlStateOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, driverError } = error as { code?: unknown; driverError?: { code?: unknown } };
  if (typeof driverError?.code === 'string') return driverError.code;
  return typeof code === 'string' ? code : undefined;
}

export function isRetryableTransactionError(error: unknown): boolean {
  const state = sqlStateOf(error);
  return state !== undefined && RETRYABLE_SQLSTATES.has(state);
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` in a transaction, and runs it again (a fresh transaction, from the start) when
 * PostgreSQL aborted it for a deadlock, a serialization failure or a lock timeout, up to
 * `attempts` runs with jittered exponential backoff; the last error is thrown as it is. `work`
 * must keep its effects inside the transaction: anything it does outside (a queue, Redis, a
 * callback) may happen once per run.
 */
export async function withTransactionRetry<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
  { attempts, baseDelayMs = DEFAULT_BASE_DELAY_MS, sleep = wait }: TransactionRetryOptions = DEFAULT_TRANSACTION_RETRY,
): Promise<T> {
  for (let run = 1; ; run++) {
    try {
      return await dataSource.transaction(work);
    } catch (error) {
      if (run >= attempts || !isRetryableTransactionError(error)) throw error;
      await sleep(Math.random() * baseDelayMs * 2 ** (run - 1));
    }
  }
}
