import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Idempotency-Key records of operator credit changes, so a retried grant is applied once. */
export class OperatorIdempotency1764000000004 implements MigrationInterface {
  name = 'OperatorIdempotency1764000000004';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One admin token, so one key space: the key alone is the primary key.
    await queryRunner.query(`
      CREATE TABLE operator_idempotency_keys (
        key text PRIMARY KEY,
        endpoint text NOT NULL,
        request_hash text NOT NULL,
        -- Deferred: the key is claimed first, and an unknown account must end in 404, not a foreign key error.
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX operator_idempotency_keys_created_idx ON operator_idempotency_keys (created_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE operator_idempotency_keys`);
  }
}
