import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ToolId } from '../catalog/tools';

/** What one tool's results did on one day. */
export interface UsageRow {
  day: string;
  tool: ToolId;
  creditsUsed: number;
  completed: number;
  failed: number;
}

/** Reads usage off the results themselves: one statement over the account's settled results. */
@Injectable()
export class UsageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The account's results of one environment that completed or failed between the two UTC
   * days (both included), by day and tool. A completed result's `credits_used` is what its
   * capture moved in the ledger, in the same transaction, so the credits here are the ledger's
   * captures; failed results captured nothing (their credits were released).
   */
  async byDayAndTool(accountId: string, sandbox: boolean, from: string, to: string): Promise<UsageRow[]> {
    const rows: Array<{ day: string; tool: ToolId; credits_used: number; completed: number; failed: number }> =
      await this.dataSource.query(
        `SELECT to_char(r.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, j.api AS tool,
                coalesce(sum(r.credits_used) FILTER (WHERE r.status = 'completed'), 0)::int AS credits_used,
                (count(*) FILTER (WHERE r.status = 'completed'))::int AS completed,
                (count(*) FILTER (WHERE r.status = 'failed'))::int AS failed
           FROM job_results r JOIN jobs j ON j.id = r.job_id
          WHERE r.account_id = $1 AND r.sandbox = $2 AND r.status IN ('completed', 'failed')
            AND r.completed_at >= ($3::date)::timestamp AT TIME ZONE 'UTC'
            AND r.completed_at < ($4::date + 1)::timestamp AT TIME ZONE 'UTC'
          GROUP BY 1, 2
          ORDER BY 1, 2`,
        [accountId, sandbox, from, to],
      );
    return rows.map((row) => ({
      day: row.day,
      tool: row.tool,
      creditsUsed: row.credits_used,
      completed: row.completed,
      failed: row.failed,
    }));
  }
}
