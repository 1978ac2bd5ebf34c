import { DataSource } from 'typeorm';
import { dataSourceOptions, type DatabaseOptions } from './data-source-options';

/** Arbitrary constant shared by every process of the service: one migrator at a time. */
const MIGRATION_LOCK_ID = 727_001;

/**
 * Applies pending migrations under a session advisory lock, so an API and a worker starting
 * together do not race to create the same tables. Returns the names of the migrations applied.
 */
export async function runMigrations(options: DatabaseOptions): Promise<string[]> {
  // Its own connection, without the service's lock and statement timeouts: a migration may
  // rewrite a large table, and waiting on the migration lock for another process is expected.
  const dataSource = new DataSource({
    ...dataSourceOptions({ ...options, poolSize: 1, lockTimeoutMs: 0, statementTimeoutMs: 0 }),
  });
  await dataSource.initialize();
  try {
    if (options.schema) await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
    await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'all' });
      return applied.map((migration) => migration.name);
    } finally {
      await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    await dataSource.destroy();
  }
}
