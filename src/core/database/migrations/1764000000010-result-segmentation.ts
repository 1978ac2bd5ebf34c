import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which model made a cut-out: each completed cut-out keeps the segmentation model, its weights'
 * version and our mask post-processing's version (`{ model, version, post_processing_version }`),
 * shown with the result and in its webhook. Results completed before keep null: what made them
 * was not recorded, and guessing would mislead.
 */
export class ResultSegmentation1764000000010 implements MigrationInterface {
  name = 'ResultSegmentation1764000000010';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE job_results
        ADD COLUMN segmentation jsonb CHECK (segmentation IS NULL OR jsonb_typeof(segmentation) = 'object')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE job_results DROP COLUMN segmentation`);
  }
}
