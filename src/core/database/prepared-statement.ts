import type { Pool, PoolClient, QueryResultRow } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';

/** A statement of a hot path, parsed and planned once per connection rather than per request. */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

const names = new Set<string>();

/**
 * Declares a named statement. PostgreSQL keeps it per connection, so each pooled connection
 * parses and plans it once; every later run sends only its parameters. TypeORM has no named
 * statements, hence this thin layer over the pg pool it already holds (BENCHMARKS.md, "API hot
 * paths": parsing and planning were a third of the database's work per read). A connection
 * pooler in transaction mode must keep prepared statements per server connection (PgBouncer
 * 1.21+ with `max_prepared_statements`).
 */
export function preparedStatement(name: string, text: string): PreparedStatement {
  if (names.has(name)) throw new Error(`prepared statement ${name} is declared twice`);
  names.add(name);
  return { name, text };
}

type Queryable = Pick<PoolClient, 'query'> | Pick<Pool, 'query'>;

/**
 * The pg connection behind `on`: inside a transaction, the connection its query runner holds
 * (so the statement is part of the transaction); otherwise TypeORM's pool, which lends a
 * connection for the one statement.
 */
async function connectionOf(on: DataSource | EntityManager): Promise<Queryable> {
  const runner = 'queryRunner' in on ? (on.queryRunner as PostgresQueryRunner | undefined) : undefined;
  if (runner) return (await runner.connect()) as PoolClient;
  const dataSource = 'connection' in on ? on.connection : on;
  return (dataSource.driver as PostgresDriver).master as Pool;
}

/** Runs a prepared statement with `values` and returns its rows. */
export async function runPrepared<T extends QueryResultRow>(
  on: DataSource | EntityManager,
  statement: PreparedStatement,
  values: readonly unknown[],
): Promise<T[]> {
  const connection = await connectionOf(on);
  const result = await connection.query<T>({ name: statement.name, text: statement.text, values: [...values] });
  return result.rows;
}
