import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A person's review of completed cut-outs. `flagged` is decided once, when a cut-out completes
 * (its uncertainty at or above its account's `review_threshold` then), so a later change of the
 * threshold never moves earlier flags. `review_state` is null for every result that is not a
 * completed cut-out; a re-cut links the two results both ways.
 *
 * Cut-outs completed before this migration get `pending`, flagged by the default threshold
 * (0.539, the value every account starts with): no account had a threshold of its own then.
 *
 * The review list reads an account's flagged cut-outs of one environment, by state, newest
 * completed first: `job_results_review_list_idx` (one state) and `job_results_review_list_all_idx`
 * (every state) serve that keyset query without scanning other accounts' results, and, being
 * partial on `flagged`, hold only the quarter of cut-outs a person looks at.
 */
export class ResultReviews1764000000013 implements MigrationInterface {
  name = 'ResultReviews1764000000013';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE accounts ADD COLUMN review_threshold real NOT NULL DEFAULT 0.539
         CHECK (review_threshold BETWEEN 0 AND 1)`,
    );
    await queryRunner.query(`ALTER TABLE job_results
        ADD COLUMN flagged boolean NOT NULL DEFAULT false,
        ADD COLUMN review_state text CHECK (review_state IN ('pending', 'accepted', 'rejected', 'recut')),
        ADD COLUMN decided_by text,
        ADD COLUMN decided_at timestamptz,
        ADD COLUMN review_note text CHECK (length(review_note) <= 1000),
        ADD COLUMN replaces_result_id uuid REFERENCES job_results (id) ON DELETE SET NULL,
        ADD COLUMN replaced_by_result_id uuid REFERENCES job_results (id) ON DELETE SET NULL`);
    await queryRunner.query(
      `UPDATE job_results SET review_state = 'pending', flagged = uncertainty >= 0.539
        WHERE status = 'completed' AND uncertainty IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX job_results_review_list_idx
          ON job_results (account_id, sandbox, review_state, completed_at DESC, id DESC)
       WHERE flagged`,
    );
    // The same list of every state (`state=all`), in the same order.
    await queryRunner.query(
      `CREATE INDEX job_results_review_list_all_idx
          ON job_results (account_id, sandbox, completed_at DESC, id DESC)
       WHERE flagged`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX job_results_review_list_all_idx`);
    await queryRunner.query(`DROP INDEX job_results_review_list_idx`);
    await queryRunner.query(`ALTER TABLE job_results
        DROP COLUMN replaced_by_result_id, DROP COLUMN replaces_result_id, DROP COLUMN review_note,
        DROP COLUMN decided_at, DROP COLUMN decided_by, DROP COLUMN review_state, DROP COLUMN flagged`);
    await queryRunner.query(`ALTER TABLE accounts DROP COLUMN review_threshold`);
  }
}
