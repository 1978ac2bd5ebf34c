import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { dataSourceOptions } from '../../src/core/database/data-source-options';
import { isInfrastructureOutage } from '../../src/core/errors/outage';
import { testServices } from '../support/test-services';
import { sleep } from '../support/waiting';

describe('A database connection lost while the service holds it', () => {
  let service: DataSource;
  let admin: DataSource;

  beforeAll(async () => {
    service = new DataSource(dataSourceOptions({ url: testServices().databaseUrl, poolSize: 2 }));
    admin = new DataSource({ type: 'postgres', url: testServices().databaseUrl });
    await Promise.all([service.initialize(), admin.initialize()]);
  });
  afterAll(async () => {
    await Promise.all([service?.destroy(), admin?.destroy()]);
  });

  /** Collects uncaught exceptions while `work` runs, so the assertion names what went wrong. */
  async function uncaughtDuring(work: () => Promise<void>): Promise<unknown[]> {
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.prependListener('uncaughtException', record);
    try {
      await work();
    } finally {
      process.removeListener('uncaughtException', record);
    }
    return uncaught;
  }

  const terminate = async (pid: number) => {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await sleep(300);
  };

  it('does not end the process when the connection dies before its holder listens', async () => {
    // A client handed out by the pool has no listener of TypeORM's yet; a backend terminated just
    // as it connects reaches exactly this state.
    const pool = (service.driver as PostgresDriver).master as Pool;
    let client: PoolClient | undefined;
    const uncaught = await uncaughtDuring(async () => {
      client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await terminate(rows[0].pid);
    });
    client?.release(true);
    expect(uncaught).toEqual([]);
    expect(await service.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('fails the next statement of a transaction as an outage, and the pool recovers', async () => {
    const runner = service.createQueryRunner();
    let next: unknown;
    const uncaught = await uncaughtDuring(async () => {
      await runner.startTransaction();
      const [{ pid }] = (await runner.query('SELECT pg_backend_pid() AS pid')) as Array<{ pid: number }>;
      // Terminated while the transaction waits between statements, as it does on a Redis call.
      await terminate(pid);
      next = await runner.query('SELECT 1').then(
        () => undefined,
        (error: unknown) => error,
      );
    });
    await runner.release();
    expect(uncaught).toEqual([]);
    expect(isInfrastructureOutage(next)).toBe(true);
    expect(await service.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
