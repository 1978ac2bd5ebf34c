import { Logger } from '@nestjs/common';
import type { ClientBase } from 'pg';
import type { DataSourceOptions } from 'typeorm';
import { AfterCommitSubscriber } from './after-commit';
import { MIGRATIONS } from './migration-list';

export interface DatabaseOptions {
  url: string;
  poolSize: number;
  /** Runs every statement under this schema (tests give each run its own). */
  schema?: string;
  /**
   * `lock_timeout` and `statement_timeout` of every session, in milliseconds (0: none). Unset,
   * the server's defaults apply; the service always sets them (DATABASE_LOCK_TIMEOUT_MS,
   * DATABASE_STATEMENT_TIMEOUT_MS), migrations deliberately set neither limit (see `migrate.ts`).
   */
  lockTimeoutMs?: number;
  statementTimeoutMs?: number;
}

const logger = new Logger('Database');

/**
 * pg emits `error` on a client whose server connection dies between statements (a terminated
 * backend, a failover). The pool listens only while the client is idle and TypeORM not at all
 * while a query runner holds it, and an `error` event nobody listens to is thrown out of the
 * socket handler and ends the process. Listening for the client's whole life keeps that a log
 * line: the client is unusable from then on, so the holder's next statement fails as an outage
 * (503) and the pool discards the client when it comes back.
 */
function listenForConnectionErrors(client: ClientBase): void {
  client.on('error', (error) => logger.warn(`database connection lost: ${error.message}`));
}

export function dataSourceOptions({
  url,
  poolSize,
  schema,
  lockTimeoutMs,
  statementTimeoutMs,
}: DatabaseOptions): DataSourceOptions {
  // Session settings go in the startup packet, so every pooled connection, including one
  // opened again after the server dropped it, has them from its first statement.
  const sessionSettings = [
    ...(schema ? [`search_path=${schema}`] : []),
    ...(lockTimeoutMs !== undefined ? [`lock_timeout=${lockTimeoutMs}`] : []),
    ...(statementTimeoutMs !== undefined ? [`statement_timeout=${statementTimeoutMs}`] : []),
  ];
  return {
    type: 'postgres',
    url,
    schema,
    migrations: MIGRATIONS,
    subscribers: [AfterCommitSubscriber],
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    // TypeORM's own logger writes a failed query with its parameters (secrets, signed URLs) to
    // the console; errors reach the service's log through its loggers and their `err` serializer.
    logging: false,
    poolSize,
    extra: {
      // Fail fast when the database is gone instead of queueing requests behind a dead pool.
      connectionTimeoutMillis: 5000,
      onConnect: listenForConnectionErrors,
      ...(sessionSettings.length > 0 ? { options: sessionSettings.map((setting) => `-c ${setting}`).join(' ') } : {}),
    },
  };
}
