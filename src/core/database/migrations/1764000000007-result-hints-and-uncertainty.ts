import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Background removal that keeps the product: each result keeps the subject hints its source
 * image was sent with (as sent, shown back with the result), and a completed cut-out how unsure
 * the segmenter was of it, so clients can send unsure ones to a person.
 */
export class ResultHintsAndUncertainty1764000000007 implements MigrationInterface {
  name = 'ResultHintsAndUncertainty1764000000007';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE job_results
        ADD COLUMN subject_hints jsonb,
        ADD COLUMN uncertainty real CHECK (uncertainty BETWEEN 0 AND 1)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE job_results DROP COLUMN uncertainty, DROP COLUMN subject_hints`);
  }
}
