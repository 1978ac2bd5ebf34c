import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts, API keys, the credit ledger and versioned prices (pricing version 1). */
export class Platform1764000000000 implements MigrationInterface {
  name = 'Platform1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (length(name) >= 1),
        api_access boolean NOT NULL DEFAULT true,
        restricted_until timestamptz,
        paid_credits integer NOT NULL DEFAULT 0 CHECK (paid_credits >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        name text,
        prefix text NOT NULL,
        secret_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX api_keys_secret_hash_key ON api_keys (secret_hash)`);
    await queryRunner.query(`CREATE INDEX api_keys_account_id_idx ON api_keys (account_id)`);
    await queryRunner.query(`
      CREATE TABLE credit_ledger (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('grant', 'reserve', 'capture', 'release', 'adjustment')),
        amount integer NOT NULL,
        credits integer NOT NULL CHECK (credits >= 0),
        job_id uuid,
        reason text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX credit_ledger_account_created_idx ON credit_ledger (account_id, created_at)`);
    await queryRunner.query(`
      CREATE TABLE prices (
        cost_key text NOT NULL,
        pricing_version integer NOT NULL CHECK (pricing_version >= 1),
        credits integer NOT NULL CHECK (credits >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (cost_key, pricing_version)
      )`);
    await queryRunner.query(`
      INSERT INTO prices (cost_key, pricing_version, credits) VALUES
        ('remove_background.default', 1, 1),
        ('image_editing.default', 1, 1),
        ('image_ai_edit.default', 1, 4),
        ('ai_background.default', 1, 3),
        ('image_generation.default', 1, 4),
        ('ad_creative.default', 1, 5),
        ('product_photo.product_photo_enhance', 1, 2),
        ('product_photo.remove_background', 1, 1),
        ('product_photo.studio_packshot', 1, 2),
        ('product_photo.marketplace_clean', 1, 2),
        ('product_photo.natural_lifestyle', 1, 3),
        ('product_photo.premium_ad', 1, 5)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE prices`);
    await queryRunner.query(`DROP TABLE credit_ledger`);
    await queryRunner.query(`DROP TABLE api_keys`);
    await queryRunner.query(`DROP TABLE accounts`);
  }
}
