import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Secrets the service generates for itself and every instance must share (the result URL
 * signing key when RESULT_URL_SECRET is not set), so a fresh install needs no extra setting.
 */
export class ServiceSecrets1764000000001 implements MigrationInterface {
  name = 'ServiceSecrets1764000000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE service_secrets (
        name text PRIMARY KEY,
        value text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE service_secrets`);
  }
}
