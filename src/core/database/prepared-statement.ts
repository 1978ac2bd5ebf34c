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
 * Runs a prepared statement with `values` and returns its rows. Inside a transaction it runs on
 * the connection the transaction's query runner holds; otherwise on TypeORM's pool, which lends
 * a connection for the one statement.
 */
export async function runPrepared<T extends QueryResultRow>(
  on: DataSource | EntityManager,
  statement: PreparedStatement,
  values: unknown[],
): Promise<T[]> {
  const query = { name: statement.name, text: statement.text, values };
  const runner = 'queryRunner' in on ? (on.queryRunner as PostgresQueryRunner | undefined) : undefined;
  const connection: Queryable = runner
    ? ((await runner.connect()) as PoolClient)
    : ((('connection' in on ? on.connection : on).driver as PostgresDriver).master as Pool);
  return (await connection.query<T>(query)).rows;
}
