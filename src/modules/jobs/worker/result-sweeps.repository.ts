import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { CapacityGroup } from '../../catalog/tools';

/** Where a page of stale results starts: after this result in (created_at, id) order. */
export interface StaleResultCursor {
  /** PostgreSQL's own text of the timestamp: a JS Date would drop its microseconds and re-read rows. */
  createdAt: string;
  id: string;
}

/** A result unsettled past the grace period. */
export interface StaleResult {
  id: string;
  capacityGroup: CapacityGroup;
  sandbox: boolean;
  createdAt: string;
  jobCancelled: boolean;
  /** The segmentation model its request names, which decides its queue; null when it names none. */
  segmentationModel: string | null;
}

/** A result whose files retention is deleting. */
export interface ExpiringResult {
  id: string;
  resultKey: string;
  thumbnailKey: string | null;
  sourcePreviewKey: string | null;
}

interface StaleResultRow {
  id: string;
  capacity_group: CapacityGroup;
  sandbox: boolean;
  created_at: string;
  job_cancelled: boolean;
  segmentation_model: string | null;
}

/** The statements of the maintenance sweeps over results: stranded work and file retention. */
@Injectable()
export class ResultSweepsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Up to `limit` results queued or processing for longer than `graceSeconds`, oldest first, after the cursor. */
  async findStale(graceSeconds: number, limit: number, after: StaleResultCursor | null): Promise<StaleResult[]> {
    const rows: StaleResultRow[] = await this.dataSource.query(
      `SELECT r.id, r.capacity_group, r.sandbox, r.created_at::text AS created_at, j.status = 'cancelled' AS ` +
        `job_cancelled, j.options->>'segmentation_model' AS segmentation_model
         FROM job_results r JOIN jobs j ON j.id = r.job_id
        WHERE r.status IN ('queued', 'processing')
          AND coalesce(r.started_at, r.created_at) < now() - make_interval(secs => $1)
          AND ($3::timestamptz IS NULL OR (r.created_at, r.id) > ($3::timestamptz, $4::uuid))
        ORDER BY r.created_at, r.id LIMIT $2`,
      [graceSeconds, limit, after?.createdAt ?? null, after?.id ?? null],
    );
    return rows.map((row) => ({
      id: row.id,
      capacityGroup: row.capacity_group,
      sandbox: row.sandbox,
      createdAt: row.created_at,
      jobCancelled: row.job_cancelled,
      segmentationModel: row.segmentation_model,
    }));
  }

  /**
   * Marks the files of up to `limit` of the oldest results completed more than `retentionDays`
   * ago that still have files as expired, skipping rows another sweep holds, and returns their keys.
   */
  async markFilesExpired(retentionDays: number, limit: number): Promise<ExpiringResult[]> {
    const rows: Array<{
      id: string;
      result_key: string;
      thumbnail_key: string | null;
      source_preview_key: string | null;
    }> = await this.dataSource.query(
      `WITH due AS (
         SELECT id FROM job_results
          WHERE result_key IS NOT NULL AND completed_at < now() - make_interval(days => $1)
          ORDER BY completed_at LIMIT $2
          FOR UPDATE SKIP LOCKED
       ), marked AS (
         UPDATE job_results r SET files_expired_at = coalesce(r.files_expired_at, now())
           FROM due WHERE r.id = due.id
         RETURNING r.id, r.result_key, r.thumbnail_key, r.source_preview_key
       )
       SELECT * FROM marked`,
      [retentionDays, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      resultKey: row.result_key,
      thumbnailKey: row.thumbnail_key,
      sourcePreviewKey: row.source_preview_key,
    }));
  }

  /** Forgets the file keys of results whose files are deleted, which takes them out of the retention sweep. */
  async clearFileKeys(resultIds: string[]): Promise<void> {
    await this.dataSource.query(
      `UPDATE job_results SET result_key = NULL, thumbnail_key = NULL, source_preview_key = NULL
        WHERE id = ANY($1::uuid[])`,
      [resultIds],
    );
  }
}
