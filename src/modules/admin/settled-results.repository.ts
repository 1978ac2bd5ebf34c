import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The overview's window, in whole minutes up to and including the current one. */
export const OVERVIEW_MINUTES = 60;

export interface MinuteOfResults {
  minute: Date;
  completed: number;
  failed: number;
}

export interface FailuresOfCode {
  code: string;
  count: number;
}

/**
 * Reads the results that settled lately, of every account and environment, through the
 * settled results' `completed_at` index. Minutes are PostgreSQL's, the clock `completed_at` is
 * written with, so a result is never counted in a minute the API's clock has not reached.
 */
@Injectable()
export class SettledResultsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Each of the last `OVERVIEW_MINUTES` minutes, oldest first, with the results completed and failed in it. */
  async perMinute(): Promise<MinuteOfResults[]> {
    const rows: Array<{ minute: Date; completed: number; failed: number }> = await this.dataSource.query(
      `WITH minutes AS (
         SELECT generate_series(date_trunc('minute', now()) - ($1 - 1) * interval '1 minute',
                                date_trunc('minute', now()), interval '1 minute') AS minute)
       SELECT m.minute,
              (count(r.id) FILTER (WHERE r.status = 'completed'))::int AS completed,
              (count(r.id) FILTER (WHERE r.status = 'failed'))::int AS failed
         FROM minutes m
         LEFT JOIN job_results r ON r.status IN ('completed', 'failed')
          AND r.completed_at >= m.minute AND r.completed_at < m.minute + interval '1 minute'
        GROUP BY m.minute
        ORDER BY m.minute`,
      [OVERVIEW_MINUTES],
    );
    return rows.map((row) => ({ minute: row.minute, completed: row.completed, failed: row.failed }));
  }

  /** The results failed in the same window, counted by error code, the most frequent first. */
  async failuresByCode(): Promise<FailuresOfCode[]> {
    const rows: Array<{ code: string; count: number }> = await this.dataSource.query(
      `SELECT coalesce(error_code, 'unknown') AS code, count(*)::int AS count
         FROM job_results
        WHERE status = 'failed'
          AND completed_at >= date_trunc('minute', now()) - ($1 - 1) * interval '1 minute'
        GROUP BY 1
        ORDER BY 2 DESC, 1`,
      [OVERVIEW_MINUTES],
    );
    return rows;
  }
}
