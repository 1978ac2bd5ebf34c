import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `GET /api/v1/account/usage` reads an account's settled results by when they settled; without
 * this index every request would scan every account's results. Partial, on the statuses the
 * usage counts, so queued and running results (the rows that change most) stay out of it.
 */
export class SettledResultsByAccount1764000000011 implements MigrationInterface {
  name = 'SettledResultsByAccount1764000000011';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX job_results_account_settled_idx ON job_results (account_id, completed_at) ` +
        `WHERE status IN ('completed', 'failed')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX job_results_account_settled_idx`);
  }
}
