import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One counter row per capacity group: admission reserves slots with a conditional update of it
 * instead of counting results under a group-wide lock, so accounts admit in parallel.
 */
export class CapacityGroups1764000000005 implements MigrationInterface {
  name = 'CapacityGroups1764000000005';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE capacity_groups (
        name text PRIMARY KEY,
        pending_results integer NOT NULL CHECK (pending_results >= 0)
      )`);
    // Seeded from the results pending now; the result sweeper reconciles any later drift.
    await queryRunner.query(`
      INSERT INTO capacity_groups (name, pending_results)
      SELECT name, (SELECT count(*) FROM job_results
                     WHERE capacity_group = name AND status IN ('queued', 'processing') AND NOT sandbox)
        FROM unnest(ARRAY['background_removal', 'processing']) AS name`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE capacity_groups`);
  }
}
