import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (contract section 11): signing secrets per account, the event outbox, one delivery
 * per destination, and every attempt made for it.
 */
export class Webhooks1764000000003 implements MigrationInterface {
  name = 'Webhooks1764000000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook_secrets (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX webhook_secrets_current_idx ON webhook_secrets (account_id) WHERE expires_at IS NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE webhook_events (
        id uuid PRIMARY KEY,
        sequence bigserial NOT NULL UNIQUE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        job_id uuid NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        result_id uuid REFERENCES job_results(id) ON DELETE CASCADE,
        type text NOT NULL,
        body text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX webhook_events_job_idx ON webhook_events (job_id, sequence)`);
    await queryRunner.query(`CREATE INDEX webhook_events_created_idx ON webhook_events (created_at)`);
    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        event_id uuid NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        job_id uuid NOT NULL,
        url text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'gone', 'blocked')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        last_status_code integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id)`);
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_account_idx ON webhook_deliveries (account_id, created_at DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_unattempted_idx ON webhook_deliveries (job_id) WHERE status = ` +
        `'pending' AND attempts = 0`,
    );
    await queryRunner.query(`
      CREATE TABLE webhook_attempts (
        id bigserial PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        number integer NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('delivered', 'failed', 'gone', 'blocked')),
        status_code integer,
        error text,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        next_attempt_at timestamptz,
        UNIQUE (delivery_id, number)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_attempts`);
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`DROP TABLE webhook_events`);
    await queryRunner.query(`DROP TABLE webhook_secrets`);
  }
}
