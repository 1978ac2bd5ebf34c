import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, type Repository } from 'typeorm';
import { Upload, UploadStatus } from './upload.entity';
import type { UploadMediaType } from './upload-media-type';

/**
 * Seconds after which a pending upload counts as abandoned: far longer than storing a file of
 * SOURCE_MAX_BYTES takes, so only a request that failed or a process that died leaves one.
 */
export const PENDING_UPLOAD_LEASE_SECONDS = 60;

/** An expired upload, or an abandoned pending one, the sweep is deleting. */
export interface ExpiredUpload {
  id: string;
  storageKey: string;
}

/** The upload an Idempotency-Key names, as its first request left it. */
export interface KeyedUpload {
  upload: Upload;
  /** Past `expires_at`: no longer usable, so the key is free again. */
  expired: boolean;
  /** Pending for longer than PENDING_UPLOAD_LEASE_SECONDS. */
  abandoned: boolean;
}

interface UploadRow {
  id: string;
  account_id: string;
  api_key_id: string;
  sandbox: boolean;
  storage_key: string;
  content_type: UploadMediaType;
  width: number;
  height: number;
  size_bytes: number;
  status: UploadStatus;
  idempotency_key: string | null;
  request_hash: string | null;
  created_at: Date;
  expires_at: Date;
  expired: boolean;
  abandoned: boolean;
}

const uploadOf = (row: UploadRow): Upload =>
  Object.assign(new Upload(), {
    id: row.id,
    accountId: row.account_id,
    apiKeyId: row.api_key_id,
    sandbox: row.sandbox,
    storageKey: row.storage_key,
    contentType: row.content_type,
    width: row.width,
    height: row.height,
    sizeBytes: row.size_bytes,
    status: row.status,
    idempotencyKey: row.idempotency_key,
    requestHash: row.request_hash,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  } satisfies Upload);

/** The statements over `uploads`; every read of an upload for a client takes its account. */
@Injectable()
export class UploadsRepository {
  constructor(
    @InjectRepository(Upload) private readonly uploads: Repository<Upload>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** Inserts a pending upload made without an Idempotency-Key. */
  async insert(upload: Upload): Promise<void> {
    await this.uploads.insert(upload);
  }

  /**
   * Inserts a pending upload made with an Idempotency-Key; false when a row of the same API key
   * already holds the key (the unique index decides, so of two requests at once one wins).
   */
  async claim(upload: Upload): Promise<boolean> {
    const inserted: unknown[] = await this.dataSource.query(
      `INSERT INTO uploads (id, account_id, api_key_id, sandbox, storage_key, content_type, width, height,
                            size_bytes, status, idempotency_key, request_hash, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       ON CONFLICT (api_key_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
       RETURNING id`,
      [
        upload.id,
        upload.accountId,
        upload.apiKeyId,
        upload.sandbox,
        upload.storageKey,
        upload.contentType,
        upload.width,
        upload.height,
        upload.sizeBytes,
        upload.status,
        upload.idempotencyKey,
        upload.requestHash,
        upload.createdAt,
        upload.expiresAt,
      ],
    );
    return inserted.length > 0;
  }

  /** The upload API key `apiKeyId` made with Idempotency-Key `key`, if a row holds it. */
  async findByKey(apiKeyId: string, key: string): Promise<KeyedUpload | null> {
    const [row]: UploadRow[] = await this.dataSource.query(
      `SELECT *, expires_at <= now() AS expired,
              status = 'pending' AND created_at <= now() - make_interval(secs => $3) AS abandoned
         FROM uploads WHERE api_key_id = $1 AND idempotency_key = $2`,
      [apiKeyId, key, PENDING_UPLOAD_LEASE_SECONDS],
    );
    return row ? { upload: uploadOf(row), expired: row.expired, abandoned: row.abandoned } : null;
  }

  /** Frees the Idempotency-Key of an expired upload, which the retention sweep has yet to delete. */
  async releaseExpiredKey(uploadId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE uploads SET idempotency_key = NULL, request_hash = NULL WHERE id = $1 AND expires_at <= now()`,
      [uploadId],
    );
  }

  /** Turns a pending upload stored; false when it is no longer pending (taken over as abandoned). */
  async markStored(uploadId: string): Promise<boolean> {
    const [, updated]: [unknown, number] = await this.dataSource.query(
      `UPDATE uploads SET status = 'stored' WHERE id = $1 AND status = 'pending'`,
      [uploadId],
    );
    return updated > 0;
  }

  /** Deletes a pending upload's row (its file is already gone); a stored one is never deleted here. */
  async deletePending(uploadId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM uploads WHERE id = $1 AND status = 'pending'`, [uploadId]);
  }

  /** The storage key of `accountId`'s stored upload `uploadId` while it has not expired; null otherwise. */
  async readableKey(uploadId: string, accountId: string): Promise<string | null> {
    const [row]: Array<{ storage_key: string }> = await this.dataSource.query(
      `SELECT storage_key FROM uploads
        WHERE id = $1 AND account_id = $2 AND status = 'stored' AND expires_at > now()`,
      [uploadId, accountId],
    );
    return row?.storage_key ?? null;
  }

  /**
   * Up to `limit` of the oldest expired uploads and abandoned pending ones, locked for the rest
   * of `remove`'s transaction and skipped by any other sweep running at the same time. `remove`
   * deletes their files and returns the ids whose files are gone; only those rows are deleted,
   * so a file whose deletion failed keeps its row and is tried again by a later sweep.
   */
  async deleteExpired(limit: number, remove: (due: ExpiredUpload[]) => Promise<string[]>): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const due: Array<{ id: string; storage_key: string }> = await manager.query(
        `SELECT id, storage_key FROM uploads
          WHERE expires_at <= now()
             OR (status = 'pending' AND created_at <= now() - make_interval(secs => $2))
          ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit, PENDING_UPLOAD_LEASE_SECONDS],
      );
      if (due.length === 0) return 0;
      const removed = await remove(due.map((row) => ({ id: row.id, storageKey: row.storage_key })));
      if (removed.length === 0) return 0;
      await manager.query(`DELETE FROM uploads WHERE id = ANY($1::text[])`, [removed]);
      return removed.length;
    });
  }
}
