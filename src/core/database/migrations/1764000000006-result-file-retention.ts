import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Result files are deleted RESULT_RETENTION_DAYS after their result completed. The marker is
 * set before the files are deleted, so a read from then on gives no URL to a file that is
 * going; the keys are cleared once the files are gone, so the index below holds only results
 * whose files still exist (or whose deletion is to be retried).
 */
export class ResultFileRetention1764000000006 implements MigrationInterface {
  name = 'ResultFileRetention1764000000006';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE job_results ADD COLUMN files_expired_at timestamptz`);
    await queryRunner.query(
      `CREATE INDEX job_results_retention_idx ON job_results (completed_at) WHERE result_key IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX job_results_retention_idx`);
    await queryRunner.query(`ALTER TABLE job_results DROP COLUMN files_expired_at`);
  }
}
