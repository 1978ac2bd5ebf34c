import type { DataSourceOptions } from 'typeorm';
import { ENTITIES, MIGRATIONS } from './entities';

export interface DatabaseOptions {
  url: string;
  poolSize: number;
  /** Runs every statement under this schema (tests give each run its own). */
  schema?: string;
}

export function dataSourceOptions({ url, poolSize, schema }: DatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    schema,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    poolSize,
    extra: {
      // Fail fast when the database is gone instead of queueing requests behind a dead pool.
      connectionTimeoutMillis: 5000,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    },
  };
}
