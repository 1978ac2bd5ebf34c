import { Injectable } from '@nestjs/common';
import { CreditsService } from '../credits/credits.service';
import { csvHeader, csvRows } from './activity-csv';
import type { UsageRange } from './usage-range';
import { UsageService } from './usage.service';

/** Ledger entries read per statement while a CSV export streams. */
export const LEDGER_EXPORT_PAGE = 500;

const LEDGER_COLUMNS = ['id', 'created_at', 'kind', 'amount', 'credits', 'balance_after', 'job_id', 'reason'] as const;
const USAGE_COLUMNS = ['date', 'tool', 'credits_used', 'results_completed', 'results_failed'] as const;

/** Whose data an export holds: an account, in one environment. */
export interface ExportScope {
  accountId: string;
  sandbox: boolean;
}

/**
 * The account's ledger and usage as CSV, the same figures as the JSON reads. The ledger is
 * read page by page as the response is sent, so a long history is never held at once.
 */
@Injectable()
export class ActivityExportsService {
  constructor(
    private readonly credits: CreditsService,
    private readonly usage: UsageService,
  ) {}

  /** The whole ledger, newest first, each entry with the balance it left. */
  async *ledgerCsv(scope: ExportScope): AsyncGenerator<string> {
    yield csvHeader(LEDGER_COLUMNS);
    let afterId: string | undefined;
    do {
      const rows = await this.credits.ledgerPage(scope.accountId, {
        limit: LEDGER_EXPORT_PAGE,
        afterId,
        sandbox: scope.sandbox,
      });
      const page = rows.slice(0, LEDGER_EXPORT_PAGE);
      if (page.length > 0) {
        yield csvRows(
          page.map((entry) => [
            entry.id,
            entry.createdAt.toISOString(),
            entry.kind,
            entry.amount,
            entry.credits,
            entry.balanceAfter,
            entry.jobId,
            entry.reason,
          ]),
        );
      }
      afterId = rows.length > LEDGER_EXPORT_PAGE ? page[page.length - 1]?.id : undefined;
    } while (afterId !== undefined);
  }

  /** One row per day and tool with results in the range, oldest day first. */
  async usageCsv(scope: ExportScope, range: UsageRange): Promise<string> {
    const rows = await this.usage.rowsOf(scope, range);
    return (
      csvHeader(USAGE_COLUMNS) +
      csvRows(rows.map((row) => [row.day, row.tool, row.creditsUsed, row.completed, row.failed]))
    );
  }
}
