import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Uploaded source images (`POST /api/v1/uploads`): one row per file in result storage under
 * `uploads/`. A row is readable by its own account until `expires_at`; the retention sweep then
 * deletes the file and the row, oldest first, through the index on `expires_at`.
 */
export class Uploads1764000000008 implements MigrationInterface {
  name = 'Uploads1764000000008';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE uploads (
        id text PRIMARY KEY CHECK (id ~ '^upl_[A-Za-z0-9]{24}$'),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        api_key_id uuid NOT NULL,
        sandbox boolean NOT NULL,
        storage_key text NOT NULL UNIQUE,
        content_type text NOT NULL,
        width integer NOT NULL CHECK (width > 0),
        height integer NOT NULL CHECK (height > 0),
        size_bytes integer NOT NULL CHECK (size_bytes > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL CHECK (expires_at > created_at)
      )`);
    await queryRunner.query(`CREATE INDEX uploads_expires_at_idx ON uploads (expires_at)`);
    await queryRunner.query(`CREATE INDEX uploads_account_id_idx ON uploads (account_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE uploads`);
  }
}
