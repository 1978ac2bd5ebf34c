import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An upload's row is written `pending` before its file and turned `stored` once the file is in
 * storage, so no row that reads as a source ever lacks its file, whatever crashes between the
 * two; the retention sweep deletes pending rows left behind, with any file they name. Uploads
 * made with an `Idempotency-Key` keep it and the hash of their request beside them, one per API
 * key, for as long as the upload lives (its retention is the idempotency TTL).
 */
export class UploadStates1764000000009 implements MigrationInterface {
  name = 'UploadStates1764000000009';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE uploads
        ADD COLUMN status text NOT NULL DEFAULT 'stored' CHECK (status IN ('pending', 'stored')),
        ADD COLUMN idempotency_key text,
        ADD COLUMN request_hash text,
        ADD CONSTRAINT uploads_idempotency_pair CHECK ((idempotency_key IS NULL) = (request_hash IS NULL))`);
    // Rows written from now on say what they are; the default only covered the rows already stored.
    await queryRunner.query(`ALTER TABLE uploads ALTER COLUMN status DROP DEFAULT`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX uploads_idempotency_key_idx ON uploads (api_key_id, idempotency_key)
        WHERE idempotency_key IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX uploads_pending_idx ON uploads (created_at) WHERE status = 'pending'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX uploads_pending_idx`);
    await queryRunner.query(`DROP INDEX uploads_idempotency_key_idx`);
    await queryRunner.query(`DELETE FROM uploads WHERE status = 'pending'`);
    await queryRunner.query(`
      ALTER TABLE uploads
        DROP CONSTRAINT uploads_idempotency_pair,
        DROP COLUMN request_hash,
        DROP COLUMN idempotency_key,
        DROP COLUMN status`);
  }
}
