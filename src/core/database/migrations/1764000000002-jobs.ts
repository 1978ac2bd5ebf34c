import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Jobs, their results (the unit of queued work), and idempotency records. */
export class Jobs1764000000002 implements MigrationInterface {
  name = 'Jobs1764000000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `
      CREATE TABLE jobs (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        api_key_id uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        sandbox boolean NOT NULL,
        api text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('standard', 'product_photo')),
        capacity_group text NOT NULL,
        status text NOT NULL CHECK (status IN ('queued', 'processing', 'completed', 'failed', 'cancelled', ` +
        `'partially_completed')),
        total_results integer NOT NULL CHECK (total_results BETWEEN 1 AND 20),
        completed_results integer NOT NULL DEFAULT 0,
        failed_results integer NOT NULL DEFAULT 0,
        cancelled_results integer NOT NULL DEFAULT 0,
        credits_reserved integer NOT NULL CHECK (credits_reserved >= 0),
        credits_used integer NOT NULL DEFAULT 0,
        cost_key text NOT NULL,
        pricing_version integer NOT NULL,
        credits_per_result integer NOT NULL,
        output_format text NOT NULL,
        options jsonb NOT NULL,
        webhook_url text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        CHECK (completed_results + failed_results + cancelled_results <= total_results)
      )`,
    );
    await queryRunner.query(`CREATE INDEX jobs_listing_idx ON jobs (account_id, sandbox, created_at DESC, id DESC)`);
    await queryRunner.query(
      `CREATE INDEX jobs_active_idx ON jobs (account_id, api_key_id) WHERE status IN ('queued', 'processing')`,
    );
    await queryRunner.query(`
      CREATE TABLE job_results (
        id uuid PRIMARY KEY,
        job_id uuid NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        account_id uuid NOT NULL,
        sandbox boolean NOT NULL,
        capacity_group text NOT NULL,
        index integer NOT NULL,
        external_id text,
        source_image_url text,
        status text NOT NULL CHECK (status IN ('queued', 'processing', 'completed', 'failed', 'cancelled')),
        attempts integer NOT NULL DEFAULT 0,
        result_key text,
        thumbnail_key text,
        error_code text,
        error_message text,
        credits_reserved integer NOT NULL,
        credits_used integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        completed_at timestamptz,
        UNIQUE (job_id, index)
      )`);
    await queryRunner.query(`
      CREATE INDEX job_results_pending_idx ON job_results (capacity_group, account_id)
        WHERE status IN ('queued', 'processing') AND NOT sandbox`);
    await queryRunner.query(
      `CREATE INDEX job_results_unsettled_idx ON job_results (created_at) WHERE status IN ('queued', 'processing')`,
    );
    await queryRunner.query(
      `CREATE INDEX job_results_throughput_idx ON job_results (capacity_group, completed_at) WHERE ` +
        `completed_at IS NOT NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        api_key_id uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        key text NOT NULL,
        endpoint text NOT NULL,
        request_hash text NOT NULL,
        -- Deferred: a create claims its key before it inserts the job.
        job_id uuid NOT NULL REFERENCES jobs(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (api_key_id, key)
      )`);
    await queryRunner.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE idempotency_keys`);
    await queryRunner.query(`DROP TABLE job_results`);
    await queryRunner.query(`DROP TABLE jobs`);
  }
}
