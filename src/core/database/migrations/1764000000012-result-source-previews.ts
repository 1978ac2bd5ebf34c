import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where a completed result's preview of its source is stored (`<run>.source.webp`, beside its
 * image and thumbnail): the console shows originals from it instead of from customers' URLs.
 * Null for a result with no source image, and for results completed before previews were made.
 */
export class ResultSourcePreviews1764000000012 implements MigrationInterface {
  name = 'ResultSourcePreviews1764000000012';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE job_results ADD COLUMN source_preview_key text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE job_results DROP COLUMN source_preview_key`);
  }
}
