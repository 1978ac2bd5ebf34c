import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the operators' account search and overview read. A trigram index lets `name ILIKE
 * '%part%'` use an index however the part sits in the name (pg_trgm ships with PostgreSQL and
 * is a trusted extension: a database owner may create it). It is one per database, so it goes in
 * `public` whatever schema the service runs in, taken under a lock so that two schemas migrating
 * at once do not both create it. Keys are found by the start of their display prefix. The
 * overview counts the results settled in the last hour, of every account.
 */
export class OperatorLookups1764000000014 implements MigrationInterface {
  name = 'OperatorLookups1764000000014';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SELECT pg_advisory_xact_lock(hashtext('create extension pg_trgm'))`);
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`);
    await queryRunner.query(`CREATE INDEX accounts_name_trgm_idx ON accounts USING gin (name public.gin_trgm_ops)`);
    await queryRunner.query(`CREATE INDEX accounts_created_idx ON accounts (created_at, id)`);
    await queryRunner.query(`CREATE INDEX api_keys_prefix_idx ON api_keys (prefix text_pattern_ops)`);
    await queryRunner.query(
      `CREATE INDEX job_results_settled_idx ON job_results (completed_at) WHERE status IN ('completed', 'failed')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX job_results_settled_idx`);
    await queryRunner.query(`DROP INDEX api_keys_prefix_idx`);
    await queryRunner.query(`DROP INDEX accounts_created_idx`);
    await queryRunner.query(`DROP INDEX accounts_name_trgm_idx`);
  }
}
