import type { DataSource, EntityManager } from 'typeorm';
import { isRetryableTransactionError, withTransactionRetry } from './transaction-retry';

/** A PostgreSQL error as TypeORM wraps it (a QueryFailedError carrying the driver's error). */
const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code, driverError: { code } });

/** A DataSource whose transactions run `work` with a dummy manager, failing the first runs as told. */
function fakeDataSource(failures: Error[]) {
  let runs = 0;
  const dataSource = {
    transaction: async <T>(work: (manager: EntityManager) => Promise<T>): Promise<T> => {
      runs++;
      const failure = failures.shift();
      if (failure) throw failure;
      return work({} as EntityManager);
    },
  } as unknown as DataSource;
  return { dataSource, runs: () => runs };
}

const noWait = async () => undefined;

describe(withTransactionRetry.name, () => {
  it.each(['40001', '40P01', '55P03'])('runs the transaction again after SQLSTATE %s', async (code) => {
    const { dataSource, runs } = fakeDataSource([pgError(code)]);
    await expect(withTransactionRetry(dataSource, async () => 'done', { attempts: 3, sleep: noWait })).resolves.toBe(
      'done',
    );
    expect(runs()).toBe(2);
  });

  it('gives up after the given number of runs and throws the last error', async () => {
    const last = pgError('40P01');
    const { dataSource, runs } = fakeDataSource([pgError('40P01'), pgError('40001'), last]);
    await expect(withTransactionRetry(dataSource, async () => 'done', { attempts: 3, sleep: noWait })).rejects.toBe(
      last,
    );
    expect(runs()).toBe(3);
  });

  it('does not retry other errors', async () => {
    const unique = pgError('23505');
    const { dataSource, runs } = fakeDataSource([unique]);
    await expect(withTransactionRetry(dataSource, async () => 'done', { attempts: 3, sleep: noWait })).rejects.toBe(
      unique,
    );
    expect(runs()).toBe(1);
    expect(isRetryableTransactionError(new Error('plain'))).toBe(false);
  });

  it('waits a jittered, growing delay between runs', async () => {
    const waits: number[] = [];
    const { dataSource } = fakeDataSource([pgError('40P01'), pgError('40P01')]);
    await withTransactionRetry(dataSource, async () => 'done', {
      attempts: 3,
      baseDelayMs: 100,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(0);
    expect(waits[0]).toBeLessThan(100);
    expect(waits[1]).toBeLessThan(200);
  });
});
